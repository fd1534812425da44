// The live view (iframe_url): an HTML page and its WebSocket, authorized by the session's own
// unguessable token (never the API key). Unknown session, wrong token or a session that is no
// longer active all answer 404. Embeddable from any origin (no X-Frame-Options, no CSP frame-ancestors); request logging
// is off here so the token never reaches a log line. Any process answers: a session whose browser
// another process holds has its socket relayed there (forward.ts); the internal routes the owner
// answers with live in internal-routes.ts.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import websocket from '@fastify/websocket';
import type { CaptureSessionsService } from './service.js';
import { liveViewPage } from '../../browser/live-view-page.js';
import { internalRoutes } from './internal-routes.js';

type Req = FastifyRequest<{ Params: { id: string }; Querystring: { token?: string; mode?: string } }>;
type Elsewhere = NonNullable<Awaited<ReturnType<CaptureSessionsService['liveElsewhere']>>>;

export const liveViewRoutes: FastifyPluginAsync<{ svc: CaptureSessionsService }> = async (app, { svc }) => {
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  // Shutdown must not wait for viewers: drop their sockets before the server closes.
  const sockets = new Set<import('ws').WebSocket>();
  app.addHook('preClose', async () => {
    for (const c of sockets) c.terminate();
    for (const c of app.websocketServer?.clients ?? []) c.terminate();
  });
  // Sessions whose browser another process holds, found by `check` (one database read).
  const remote = new WeakMap<FastifyRequest, Elsewhere>();
  const check = async (req: Req, reply: FastifyReply) => {
    // The browser is here: no database read (the single-process path).
    if (svc.liveLookup(req.params.id, req.query.token ?? '')) return;
    const there = await svc.liveElsewhere(req.params.id, req.query.token ?? '');
    if (there) return void remote.set(req, there);
    return reply.code(404).header('cache-control', 'no-store').send({ detail: 'Live view not found or no longer active' });
  };
  const hide = { hide: true } as object;

  // Read-only: the view token (iframe_view_url), or any token with mode=view (a person may watch
  // without control); the socket then drops input, whatever the page does.
  const readOnly = (req: Req) =>
    !!(svc.liveLookup(req.params.id, req.query.token ?? '') ?? remote.get(req))?.readOnly || req.query.mode === 'view';

  app.get('/live/:id', { logLevel: 'silent', schema: hide, preHandler: check }, async (req: Req, reply) => {
    // The browser is here: the page comes with its current frame (a relayed one gets it on hello).
    const firstFrame = svc.liveLookup(req.params.id, req.query.token ?? '')?.rt.live.latestFrame;
    return reply
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src blob: data:; connect-src 'self' ws: wss:",
      )
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send(liveViewPage({ readOnly: readOnly(req), firstFrame }));
  });

  app.get('/live/:id/ws', { logLevel: 'silent', schema: hide, websocket: true, preValidation: check }, (socket, req: Req) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const l = svc.liveLookup(req.params.id, req.query.token ?? '');
    const there = remote.get(req);
    if (!l && there) return svc.forwarder.relay(socket, there.owner, req.params.id, there.readOnly || req.query.mode === 'view');
    if (!l) return socket.close(4004, 'not found');
    const ro = l.readOnly || req.query.mode === 'view';
    // Watching is no activity: only a controlling viewer keeps the session from its idle timeout.
    if (!ro) l.rt.touch();
    l.rt.live.addViewer(socket, { readOnly: ro });
  });

  // In this context: the internal live route needs the websocket plugin registered above.
  await app.register(internalRoutes, { svc });
};
