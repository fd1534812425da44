// Serves the console (a browser client of the public API; issue 14): GET /console (the page),
// /console/app-<hash>.js|css (immutable), and / → /console. No data passes here: the page talks
// to /v1beta with the API key the person typed, like any other client.
import type { FastifyPluginAsync } from 'fastify';
import { consoleBundle } from './bundle.js';
import { consoleCsp, consolePage } from './page.js';

export const consoleRoutes: FastifyPluginAsync<{ publicBaseUrl: () => string }> = async (app, { publicBaseUrl }) => {
  const hide = { hide: true } as object;
  app.get('/', { schema: hide }, async (_req, reply) => reply.redirect('/console', 302));
  app.get('/console', { schema: hide }, async (_req, reply) => {
    const b = await consoleBundle();
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', consoleCsp(publicBaseUrl()))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(consolePage(b));
  });
  app.get<{ Params: { asset: string } }>('/console/:asset', { schema: hide }, async (req, reply) => {
    const b = await consoleBundle();
    const a = [b.script, b.style].find((x) => x.name === req.params.asset);
    // An old hash after a rebuild is gone: the page that named it is stale, reload it.
    if (!a) return reply.code(404).header('cache-control', 'no-store').send({ detail: 'Not Found' });
    return reply
      .type(a.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(a.body);
  });
};
