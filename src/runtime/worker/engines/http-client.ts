// A small HTTP/1.1 client over node:http/https for the engines: keep-alive, optional upstream
// proxy (absolute-form requests for http://, CONNECT tunnels for https://), gzip/br/deflate,
// a body size cap. No redirects here: the engine follows them so the jar sees every hop.
// Egress: every request (so every redirect hop) is checked against the run's policy first; the
// host is resolved once, every address checked, and the socket goes to the checked address
// (the name stays in Host and SNI), so DNS rebinding can't swap it. Through an upstream proxy
// the proxy resolves: the check is then best effort (see src/egress/resolve.ts).
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { egressFailure, RunFailure } from '../../shared/failure.js';
import { EgressDenied, parseIp, type EgressPolicy } from '../../../egress/policy.js';
import { checkViaProxy, resolveChecked, type Pinned } from '../../../egress/resolve.js';

export interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  proxy?: string | null;
  timeoutMs: number;
  maxBytes: number;
  egress: EgressPolicy | null;
  /** The run's stop switch: aborting it ends the request at once (the run was stopped). */
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });

function tunnel(proxy: URL, target: URL, timeoutMs: number): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const port = target.port || '443';
    const req = http.request({
      host: proxy.hostname,
      port: proxy.port || 80,
      method: 'CONNECT',
      path: `${target.hostname}:${port}`,
      headers: { host: `${target.hostname}:${port}` },
      timeout: timeoutMs,
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        return reject(new Error(`proxy CONNECT answered ${res.statusCode}`));
      }
      resolve(tls.connect({ socket, servername: target.hostname }));
    });
    req.once('error', reject);
    req.once('timeout', () => req.destroy(new Error('proxy CONNECT timed out')));
    req.end();
  });
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body);
    case 'br':
      return zlib.brotliDecompressSync(body);
    case 'deflate':
      return zlib.inflateSync(body);
    default:
      return body;
  }
}

/** The policy's verdict on a URL; the address to connect to (null when a proxy connects). */
async function checkEgress(policy: EgressPolicy | null, target: URL, viaProxy: boolean): Promise<Pinned | null> {
  if (!policy) throw new RunFailure('internal_error', 'the run has no egress policy', { retryable: false });
  const d = policy.checkUrl(target);
  if (!d.ok) throw egressFailure(d);
  try {
    if (viaProxy) {
      await checkViaProxy(policy, d.host!, d.port!);
      return null;
    }
    return await resolveChecked(policy, d.host!, d.port!);
  } catch (e) {
    // Not resolvable etc. stays a network error (site_unavailable) for the session to report.
    throw e instanceof EgressDenied ? egressFailure(e) : e;
  }
}

/**
 * A kept-alive socket can be closed by the server just as a request is written on it (its idle
 * timeout ran out; on a busy host the FIN is read only after the request went out). The server
 * never saw that request, so it is sent once more on a new connection — what browsers do, and
 * what Node's documentation of `reusedSocket` advises. Only for a reused socket that failed before
 * any byte of a response arrived: a fresh connection that fails is a real error. The second try
 * bypasses the pool (`agent: false`): a server that closed one idle socket closed its idle
 * neighbours too, and the pool would hand out the next stale one.
 */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export async function send(r: RawRequest): Promise<RawResponse> {
  try {
    return await sendOnce(r);
  } catch (e) {
    if (!(e as StaleSocketError).staleSocket) throw e;
    return sendOnce(r, true);
  }
}

type StaleSocketError = Error & { staleSocket?: boolean };

async function sendOnce(r: RawRequest, fresh = false): Promise<RawResponse> {
  const target = new URL(r.url);
  const isHttps = target.protocol === 'https:';
  const proxy = r.proxy ? new URL(r.proxy) : null;
  const pinned = await checkEgress(r.egress, target, !!proxy);
  const headers: Record<string, string> = { host: target.host, ...r.headers };
  if (r.body) headers['content-length'] = String(r.body.length);
  r.signal?.throwIfAborted();
  const opts: http.RequestOptions = { method: r.method, headers, timeout: r.timeoutMs, signal: r.signal };
  if (proxy && !isHttps) {
    // Forward proxy: absolute-form request line to the proxy.
    Object.assign(opts, { host: proxy.hostname, port: proxy.port || 80, path: target.href, agent: fresh ? false : httpAgent });
    if (proxy.username)
      headers['proxy-authorization'] =
        `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
  } else {
    const servername = isHttps && !parseIp(target.hostname) ? target.hostname : undefined;
    const to = pinned ? { host: pinned.address, family: pinned.family, servername } : { host: target.hostname };
    Object.assign(opts, {
      ...to,
      port: target.port || (isHttps ? 443 : 80),
      path: target.pathname + target.search,
      agent: fresh ? false : isHttps ? httpsAgent : httpAgent,
    });
    if (proxy && isHttps) {
      const socket = await tunnel(proxy, target, r.timeoutMs);
      Object.assign(opts, { agent: false, createConnection: () => socket });
    }
  }
  return new Promise<RawResponse>((resolve, reject) => {
    let answered = false;
    const req = (isHttps ? https : http).request(opts, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > r.maxBytes) {
          req.destroy(
            new RunFailure('site_changed', `response of ${r.method} ${target.origin}${target.pathname} exceeds ${r.maxBytes} bytes`),
          );
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => {
        try {
          resolve({
            status: res.statusCode ?? 0,
            url: target.href,
            headers: res.headers,
            body: decode(Buffer.concat(chunks), res.headers['content-encoding'] as string | undefined),
          });
        } catch (e) {
          reject(e);
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', (e: StaleSocketError & { code?: string }) => {
      if (req.reusedSocket && !answered && STALE_SOCKET.has(e.code ?? '')) e.staleSocket = true;
      reject(e);
    });
    req.end(r.body);
  });
}
