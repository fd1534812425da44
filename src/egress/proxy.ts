// The policy-enforcing forward proxy a browser context's traffic goes through (runs and capture
// sessions; one proxy per context, on 127.0.0.1, started by the parent process). Chromium sends
// it everything: navigations, redirects (each hop is a new request), subresources, iframes,
// fetch/XHR from page JS, and websockets — http:// as absolute-form requests, https:// and
// ws(s):// as CONNECT tunnels. For each one the proxy resolves the host, checks every address
// (resolve.ts) and connects to the checked address, so DNS rebinding can't redirect it. With an
// upstream proxy (the run's PROXY_URLS entry, CAPTURE_PROXY_URL) it chains to it: http:// as an
// absolute-form request, everything else as CONNECT; the check is then best effort (the upstream
// resolves), which the docs state.
// A denial answers 403 with the reason in `x-egress-denied` (Chromium shows it for http://; a
// refused CONNECT becomes net::ERR_TUNNEL_CONNECTION_FAILED) and is reported through onDenied,
// so the run that caused it fails with the reason rather than a network error.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { EgressDenied } from './policy.js';

export interface ProxyOptions {
  /** Checks host:port and returns the address to connect to; throws EgressDenied. */
  pin(host: string, port: number): Promise<{ address: string; family: number }>;
  /** Best-effort check when chaining (no pinning possible); throws EgressDenied. */
  precheck(host: string, port: number): Promise<void>;
  upstream: string | null;
  onDenied?(d: { host: string; port: number; message: string }): void;
}

export interface EgressProxy {
  /** http://127.0.0.1:<port>, for Playwright's `proxy.server`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Headers that describe one hop, not the request (RFC 9110 §7.6.1), plus the proxy's own. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
const CONNECT_TIMEOUT_MS = 30_000;
export const DENIED_HEADER = 'x-egress-denied';

/** `host:port` of a CONNECT line or a URL's host, normalized by the WHATWG parser. */
function target(authority: string): { host: string; port: number } | null {
  try {
    const u = new URL(`http://${authority}`);
    const port = Number(u.port || 80);
    if (!u.hostname || u.pathname !== '/' || u.username || !/:\d+$/.test(authority)) return null;
    return { host: u.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return null;
  }
}

function upstreamAuth(up: URL): Record<string, string> {
  if (!up.username) return {};
  return {
    'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(up.username)}:${decodeURIComponent(up.password)}`).toString('base64')}`,
  };
}

/** Header values must be latin-1 without CR/LF. */
export const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 500);

export async function startEgressProxy(o: ProxyOptions): Promise<EgressProxy> {
  const up = o.upstream ? new URL(o.upstream) : null;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const sockets = new Set<Duplex>();
  const server = http.createServer();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  /** The answer to a refused request: denied → 403 (and reported), any other failure → 502. */
  const refuse = (e: unknown, host: string, port: number): { status: number; headers: Record<string, string>; body: string } => {
    if (e instanceof EgressDenied) {
      o.onDenied?.({ host, port, message: e.message });
      return { status: 403, headers: { [DENIED_HEADER]: headerSafe(e.message) }, body: e.message };
    }
    return {
      status: 502,
      headers: {},
      body: `proxy could not reach ${host}:${port}: ${(e as { code?: string }).code ?? (e as Error).message}`,
    };
  };

  // http:// — absolute-form requests.
  server.on('request', async (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.on('error', () => {});
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return res.writeHead(400, { 'content-type': 'text/plain' }).end('this is a forward proxy: absolute-form http:// requests only');
    }
    if (url.protocol !== 'http:')
      return res.writeHead(400, { 'content-type': 'text/plain' }).end('only http:// is proxied in absolute form; use CONNECT');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || 80);
    let pinned: { address: string; family: number } | null = null;
    try {
      if (up) await o.precheck(host, port);
      else pinned = await o.pin(host, port);
    } catch (e) {
      const r = refuse(e, host, port);
      return res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8', ...r.headers }).end(r.body);
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k) && v !== undefined) headers[k] = v;
    headers.host = url.host;
    const fwd = http.request(
      up
        ? {
            host: up.hostname,
            port: up.port || 80,
            method: req.method,
            path: url.href,
            headers: { ...headers, ...upstreamAuth(up) },
            agent,
          }
        : // Connect to the checked address; the Host header keeps the name.
          {
            host: pinned!.address,
            family: pinned!.family,
            port,
            method: req.method,
            path: url.pathname + url.search,
            headers,
            agent,
            setHost: false,
          },
      (r) => {
        const out: http.OutgoingHttpHeaders = {};
        // x-egress-denied comes from this proxy only: a site can't fake a denial.
        for (const [k, v] of Object.entries(r.headers)) if (!HOP.has(k) && k !== DENIED_HEADER && v !== undefined) out[k] = v;
        res.writeHead(r.statusCode ?? 502, r.statusMessage, out);
        r.pipe(res);
        r.on('error', () => res.destroy());
      },
    );
    // A deadline on connecting only: a slow answer (long polling, a big download) is the page's business.
    fwd.on('socket', (s: net.Socket) => {
      if (!s.connecting) return;
      s.setTimeout(CONNECT_TIMEOUT_MS, () => fwd.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
      s.once('connect', () => s.setTimeout(0));
    });
    fwd.on('error', (e) => {
      if (res.headersSent) return res.destroy();
      const r = refuse(e, host, port);
      res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8' }).end(r.body);
    });
    req.pipe(fwd);
  });

  // https://, ws://, wss:// — CONNECT tunnels (Chromium tunnels every websocket through a proxy).
  server.on('connect', async (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => client.destroy());
    const t = target(req.url ?? '');
    if (!t) return client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
    const fail = (e: unknown) => {
      if (client.destroyed) return;
      const r = refuse(e, t.host, t.port);
      const extra = Object.entries(r.headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      client.end(`HTTP/1.1 ${r.status} ${r.status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\n${extra}content-length: 0\r\n\r\n`);
    };
    const splice = (remote: Duplex, remoteHead?: Buffer) => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) remote.write(head);
      if (remoteHead?.length) client.write(remoteHead);
      remote.on('error', () => client.destroy());
      client.on('close', () => remote.destroy());
      remote.on('close', () => client.destroy());
      remote.pipe(client);
      client.pipe(remote);
    };
    try {
      if (up) {
        await o.precheck(t.host, t.port);
        const authority = `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
        const c = http.request({
          host: up.hostname,
          port: up.port || 80,
          method: 'CONNECT',
          path: authority,
          headers: { host: authority, ...upstreamAuth(up) },
          timeout: CONNECT_TIMEOUT_MS,
        });
        c.once('connect', (res, socket, upHead) => {
          if (res.statusCode !== 200) {
            socket.destroy();
            return fail(new Error(`upstream proxy answered ${res.statusCode}`));
          }
          splice(socket, upHead);
        });
        c.once('timeout', () => c.destroy(new Error('upstream proxy timed out')));
        c.once('error', fail);
        c.end();
      } else {
        const pinned = await o.pin(t.host, t.port);
        const remote = net.connect({ host: pinned.address, port: t.port, family: pinned.family });
        let open = false;
        remote.setTimeout(CONNECT_TIMEOUT_MS, () => remote.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
        remote.once('connect', () => {
          open = true;
          remote.setTimeout(0);
          splice(remote);
        });
        remote.once('error', (e) => (open ? client.destroy() : fail(e)));
      }
    } catch (e) {
      fail(e);
    }
  });

  // A websocket upgrade in absolute form (Chromium uses CONNECT instead; refuse rather than pass).
  server.on('upgrade', (_req: http.IncomingMessage, socket: Duplex) => socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n'));
  server.on('clientError', (_e, socket: Duplex) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
