// Where a webhook may go, and the one POST that takes it there. The egress policy (src/egress/)
// decides, as for connectors: a URL is judged when it is given (subscription, per-request
// webhook_url) and again at every attempt, where the host is resolved once, every address is
// checked, and the socket goes to the checked address — DNS that changed since (or rebinding)
// cannot send a delivery to a metadata endpoint, this server or its database.
import http from 'node:http';
import https from 'node:https';
import type { Egress } from '../../egress/egress.js';
import { EgressDenied, parseIp } from '../../egress/policy.js';
import { checkViaProxy, resolveChecked } from '../../egress/resolve.js';

const SCHEMES = ['http:', 'https:'];
/** Response bytes kept for the delivery log (the rest is not read). */
const KEEP_BYTES = 512;
const USER_AGENT = 'connector-service-webhooks/1';

/**
 * Why `raw` cannot be a webhook URL, or null when it can. A name that does not resolve now is
 * accepted (it may later; every attempt checks again); a denied name or address is not.
 */
export async function refuseTarget(egress: Egress, raw: string): Promise<string | null> {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (!SCHEMES.includes(u.protocol)) return 'a webhook URL must be http or https';
  if (u.username || u.password) return 'a webhook URL must not carry credentials (user:password@); put a token in its path or query';
  const policy = egress.policy();
  const d = policy.checkUrl(u);
  if (!d.ok) return d.message;
  try {
    await checkViaProxy(policy, d.host!, d.port!);
  } catch (e) {
    if (e instanceof EgressDenied) return e.message;
    throw e;
  }
  return null;
}

export interface Answer {
  status: number;
  /** The first bytes of the response body (for the delivery log of a non-2xx answer). */
  body: string;
}

export class AttemptTimeout extends Error {}

/**
 * POSTs `body` to `url` with `headers`; resolves with the status once the answer (or its first
 * KEEP_BYTES) arrived. Rejects with EgressDenied, a network error, or AttemptTimeout after
 * `timeoutMs` (name resolution included); `signal` aborts it (shutdown). Redirects are not
 * followed: a 3xx is an answer like any other non-2xx.
 */
export async function postWebhook(
  egress: Egress,
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<Answer> {
  const target = new URL(url);
  const policy = egress.policy();
  const d = policy.checkUrl(target);
  if (!d.ok) throw EgressDenied.from(d);
  const local = new AbortController();
  const timer = setTimeout(() => local.abort(new AttemptTimeout(`timed out after ${opts.timeoutMs / 1000} s`)), opts.timeoutMs);
  const onAbort = () => local.abort(opts.signal.reason ?? new Error('aborted'));
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener('abort', onAbort, { once: true });
  const aborted = new Promise<never>((_, reject) => {
    if (local.signal.aborted) reject(local.signal.reason);
    local.signal.addEventListener('abort', () => reject(local.signal.reason), { once: true });
  });
  aborted.catch(() => {});
  try {
    const pinned = await Promise.race([resolveChecked(policy, d.host!, d.port!), aborted]);
    const isHttps = target.protocol === 'https:';
    const servername = isHttps && !parseIp(target.hostname) ? target.hostname : undefined;
    const payload = Buffer.from(body, 'utf8');
    return await new Promise<Answer>((resolve, reject) => {
      const req = (isHttps ? https : http).request(
        {
          method: 'POST',
          host: pinned.address,
          family: pinned.family,
          servername,
          port: d.port,
          path: target.pathname + target.search,
          agent: false,
          signal: local.signal,
          headers: {
            host: target.host,
            'content-type': 'application/json',
            'content-length': String(payload.length),
            'user-agent': USER_AGENT,
            ...headers,
          },
        },
        (res) => {
          // The status decides; the body is read only for the log, as far as it comes (a body cut
          // short by the deadline or the receiver still leaves the status).
          const chunks: Buffer[] = [];
          let kept = 0;
          const done = () => {
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, KEEP_BYTES) });
            res.destroy();
          };
          if (res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode <= 299) {
            // Delivered: the body is drained in the background (a receiver that never ends it is cut).
            resolve({ status: res.statusCode, body: '' });
            res.setTimeout(5000, () => res.destroy());
            res.resume();
            return;
          }
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            kept += c.length;
            if (kept >= KEEP_BYTES) done();
          });
          res.on('end', done);
          res.on('error', done);
          res.on('close', done);
        },
      );
      req.on('error', (e) => reject(local.signal.aborted ? local.signal.reason : e));
      req.end(payload);
    });
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', onAbort);
  }
}
