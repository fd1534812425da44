// The demo site: a plain node:http server over in-memory state. startDemoSite() is what tests and
// the demo use; main.ts is the command-line entry. See README.md for routes and toggles.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authRoutes, SESSION_COOKIE } from './auth.js';
import { controlRoutes } from './control.js';
import { HttpError, parseCookies, redirect, sendHtml, sendJson, type Ctx, type Route } from './http.js';
import { itemRoutes } from './items.js';
import { challengePage, homePage, messagePage } from './pages.js';
import { signedRoutes } from './signed.js';
import { createState, userOf, type DemoState } from './state.js';

export type { DemoState } from './state.js';
export { BOB_TOTP_SEED, USERS } from './data.js';

const routes: Route[] = [
  {
    method: 'GET',
    path: '/',
    access: 'public',
    handler: (ctx) => sendHtml(ctx.res, 200, homePage(ctx.session ? userOf(ctx.state, ctx.session) : null)),
  },
  // Browsers ask for it on every page; answer quietly instead of logging a 404.
  { method: 'GET', path: '/favicon.ico', access: 'public', handler: (ctx) => void ctx.res.writeHead(204).end() },
  ...authRoutes,
  ...itemRoutes,
  ...signedRoutes,
  ...controlRoutes,
];

function match(route: Route, pathname: string): Record<string, string> | null {
  if (typeof route.path === 'string') return route.path === pathname ? {} : null;
  const m = route.path.exec(pathname);
  return m ? { ...m.groups } : null;
}

/** JSON for API paths and clients that ask for JSON; HTML for everything a browser navigates to. */
function wantsJson(req: IncomingMessage, pathname: string): boolean {
  return (
    pathname.startsWith('/api/') ||
    pathname.startsWith('/__') ||
    (req.headers['content-type'] ?? '').startsWith('application/json') ||
    (req.headers.accept ?? '').startsWith('application/json')
  );
}

function sendError(ctx: Ctx, status: number, error: string, detail: string): void {
  if (wantsJson(ctx.req, ctx.url.pathname)) return sendJson(ctx.res, status, { error, detail });
  const user = ctx.session ? userOf(ctx.state, ctx.session) : null;
  sendHtml(ctx.res, status, messagePage(status === 404 ? 'Not found' : 'Error', detail, user));
}

async function dispatch(state: DemoState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://demo-site.invalid');
  const cookies = parseCookies(req.headers.cookie);
  const session = state.sessions.get(cookies[SESSION_COOKIE] ?? '') ?? null;
  const ctx: Ctx = { req, res, url, state, cookies, session, params: {} };
  const method = req.method === 'HEAD' ? 'GET' : req.method;

  const candidates = routes.map((r) => ({ r, params: match(r, url.pathname) })).filter((c) => c.params);
  const found = candidates.find((c) => c.r.method === method);
  if (!found) {
    if (candidates.length) res.setHeader('allow', [...new Set(candidates.map((c) => c.r.method))].join(', '));
    return candidates.length
      ? sendError(ctx, 405, 'method_not_allowed', 'Method not allowed.')
      : sendError(ctx, 404, 'not_found', 'No such page.');
  }
  const route = found.r;
  ctx.params = found.params!;

  // The failure toggles act like a CDN in front of the site: they hit every route but the hooks.
  if (route.access !== 'control') {
    if (state.toggles.outage) {
      res.setHeader('retry-after', '5');
      return sendError(ctx, 503, 'service_unavailable', 'The site is temporarily down for maintenance.');
    }
    if (state.toggles.challenge) return sendHtml(res, 403, challengePage());
  }
  if (!session && route.access === 'api') {
    return sendJson(res, 401, { error: 'not_authenticated', detail: 'sign in first' });
  }
  if (!session && route.access === 'page') {
    if (wantsJson(req, url.pathname)) return sendJson(res, 401, { error: 'not_authenticated', detail: 'sign in first' });
    const next = method === 'GET' ? url.pathname + url.search : '/items';
    return redirect(res, `/login?${new URLSearchParams({ next })}`);
  }
  await route.handler(ctx);
}

export interface DemoSite {
  /** e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  port: number;
  /** The live in-memory state; tests may read it (and flip toggles) directly. */
  state: DemoState;
  close(): Promise<void>;
}

export async function startDemoSite(opts: { port?: number; host?: string } = {}): Promise<DemoSite> {
  const host = opts.host ?? '127.0.0.1';
  const state = createState();
  const server = createServer((req, res) => {
    dispatch(state, req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof HttpError) {
        return sendJson(res, err.status, { error: err.status === 413 ? 'payload_too_large' : 'bad_request', detail: err.message });
      }
      console.error('demo-site: unhandled error', err);
      sendJson(res, 500, { error: 'internal_error', detail: 'unexpected error' });
    });
  });
  server.listen(opts.port ?? 0, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive connections from browsers would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
