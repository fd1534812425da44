// Process-to-process forwarding of capture-session actions (docs/live-view.md, "Across
// processes"). A session's browser lives in one process (the row's owner_id/owner_url); any other
// process sends the actions that need it there: HTTP calls (complete, abandon, paste) and the live
// view's WebSocket, relayed both ways. Every internal request is signed with a key derived from
// MASTER_KEY (HMAC-SHA256 over time, a nonce, target process, method, path and body), expires
// after MAX_SKEW_MS, is accepted once (the target remembers the nonces it saw until they expire)
// and names the one process it is for, so the internal routes are useless from outside, a request
// seen on the wire can't be sent again, and a forward never lands on a newer process that took
// over the owner's address.
import crypto from 'node:crypto';
import WebSocket from 'ws';
import { DomainError, InvalidInput, type Problem } from '../../lib/errors.js';
import type { MasterKeyring } from '../../adapters/vault/master-key.js';

export const SIGNATURE_HEADER = 'x-capture-forward-signature';
export const TARGET_HEADER = 'x-capture-forward-target';
/** How old (or how far in the future) a signed request may be. */
const MAX_SKEW_MS = 30_000;
/** A paste of a TOTP code may wait for the next 30 s step. */
const CALL_TIMEOUT_MS = 60_000;
/** The relay stops reading from the owner while its viewer has this much unsent (like LiveView's MAX_BUFFERED). */
const MAX_BUFFERED = 2 * 1024 * 1024;

export interface ForwardKeys {
  /** Signs outgoing requests (derived from the current master key). */
  sign: Buffer;
  /** Accepted signatures: one per master key, so a fleet mid-rotation still talks. */
  verify: Buffer[];
}

/** What an internal call answers (always HTTP 200 once the signature was accepted). */
export type InternalAnswer =
  | { ok: unknown }
  | { error: { code: DomainError['code']; message: string; retryAfterS?: number; problems?: Problem[] } };

/** The capture sessions' keys from the master keyring, current first; each key verifies, so a fleet mid-rotation still talks. */
export function captureKeys(ring: MasterKeyring): { live: Buffer[]; forward: ForwardKeys } {
  const forward = ring.deriveEach('capture-forward');
  return { live: ring.deriveEach('capture-live-token'), forward: { sign: forward[0], verify: forward } };
}

const mac = (key: Buffer, parts: string[]) => crypto.createHmac('sha256', key).update(parts.join('\n')).digest('base64url');
const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

export class Forwarder {
  /** Nonces of accepted requests, in arrival order, with the time they can be forgotten (then expired anyway). */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly keys: ForwardKeys,
    /** This process's id: the only target this process accepts. */
    private readonly me: string,
  ) {}

  /** Headers that authorize `method pathAndQuery` with `body` for the process `target`. */
  sign(target: string, method: string, pathAndQuery: string, body = '', now = Date.now()): Record<string, string> {
    const ts = String(now);
    const nonce = crypto.randomBytes(12).toString('base64url');
    return {
      [SIGNATURE_HEADER]: `v1.${ts}.${nonce}.${mac(this.keys.sign, ['v1', ts, nonce, target, method.toUpperCase(), pathAndQuery, sha256(body)])}`,
      [TARGET_HEADER]: target,
    };
  }

  /** Null when the request was signed for this process within MAX_SKEW_MS and not seen before; else why it is refused. */
  verify(headers: Record<string, string | string[] | undefined>, method: string, pathAndQuery: string, body = ''): string | null {
    const sig = headers[SIGNATURE_HEADER];
    const target = headers[TARGET_HEADER];
    if (typeof sig !== 'string' || typeof target !== 'string') return 'unsigned';
    if (target !== this.me) return 'signed for another process';
    const m = /^v1\.(\d{1,16})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/.exec(sig);
    if (!m) return 'malformed signature';
    const [, ts, nonce, given] = m;
    const now = Date.now();
    if (Math.abs(now - Number(ts)) > MAX_SKEW_MS) return 'expired signature';
    const got = Buffer.from(given);
    const parts = ['v1', ts, nonce, target, method.toUpperCase(), pathAndQuery, sha256(body)];
    if (!this.keys.verify.some((k) => crypto.timingSafeEqual(Buffer.from(mac(k, parts)), got))) return 'bad signature';
    // Forget what has expired by now (the map keeps arrival order, so the oldest come first).
    for (const [n, until] of this.seen) {
      if (until >= now) break;
      this.seen.delete(n);
    }
    if (this.seen.has(nonce)) return 'replayed signature';
    this.seen.set(nonce, Number(ts) + MAX_SKEW_MS);
    return null;
  }

  /** POSTs `action` to the owner; its answer, or the owner's DomainError thrown here. */
  async call(owner: { url: string; id: string }, sessionId: string, action: string, payload: object): Promise<unknown> {
    const p = `/internal/capture_sessions/${encodeURIComponent(sessionId)}/${action}`;
    const body = JSON.stringify(payload);
    let res: Response;
    try {
      res = await fetch(owner.url + p, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.sign(owner.id, 'POST', p, body) },
        body,
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        redirect: 'error',
      });
    } catch {
      throw ownerUnreachable();
    }
    const answer = (await res.json().catch(() => null)) as InternalAnswer | null;
    if (res.status !== 200 || !answer) throw ownerUnreachable();
    if ('ok' in answer) return answer.ok;
    const e = answer.error;
    if (e.code === 'invalid_input' && e.problems) throw new InvalidInput(e.problems);
    throw new DomainError(e.code, e.message, e.retryAfterS);
  }

  /**
   * Relays a viewer's socket to the owner's live view: messages both ways as they are (binary
   * frames, JSON text), the owner's close code passed on. While the viewer is slow the relay stops
   * reading from the owner, so the owner's LiveView sees the backpressure and skips frames.
   */
  relay(viewer: WebSocket, owner: { url: string; id: string }, sessionId: string, readOnly: boolean): void {
    const p = `/internal/capture_sessions/${encodeURIComponent(sessionId)}/live?mode=${readOnly ? 'view' : 'control'}`;
    const up = new WebSocket(owner.url.replace(/^http/, 'ws') + p, {
      headers: this.sign(owner.id, 'GET', p),
      maxPayload: 64 * 1024 * 1024,
      handshakeTimeout: 10_000,
    });
    const early: [WebSocket.RawData, boolean][] = [];
    viewer.on('message', (d, bin) => {
      if (readOnly) return; // the owner drops them too; no need to carry them
      if (up.readyState === WebSocket.OPEN) up.send(d, { binary: bin });
      else if (up.readyState === WebSocket.CONNECTING && early.length < 1000) early.push([d, bin]);
    });
    up.on('open', () => {
      for (const [d, bin] of early.splice(0)) up.send(d, { binary: bin });
    });
    let paused = false;
    up.on('message', (d, bin) => {
      if (viewer.readyState !== WebSocket.OPEN) return;
      viewer.send(d, { binary: bin }, () => {
        if (paused && viewer.bufferedAmount < MAX_BUFFERED / 2) {
          paused = false;
          up.resume();
        }
      });
      if (!paused && viewer.bufferedAmount >= MAX_BUFFERED) {
        paused = true;
        up.pause();
      }
    });
    const closeViewer = (code: number, reason: string) => {
      if (viewer.readyState === WebSocket.OPEN || viewer.readyState === WebSocket.CONNECTING) viewer.close(code, reason);
    };
    up.on('close', (code, reason) => closeViewer(code === 1000 || (code >= 3000 && code < 5000) ? code : 1011, String(reason)));
    up.on('unexpected-response', (_req, res) => {
      res.resume();
      closeViewer(res.statusCode === 404 ? 4004 : 1011, res.statusCode === 404 ? 'not found' : 'live view unavailable');
      up.terminate();
    });
    up.on('error', () => closeViewer(1011, 'live view unavailable'));
    viewer.on('close', () => (up.readyState === WebSocket.CONNECTING ? up.terminate() : up.close()));
  }
}

const ownerUnreachable = () =>
  new DomainError('unavailable', 'The server process holding this capture session’s browser did not answer; try again', 5);

/** An answer for the internal routes: the result, or the DomainError as data (never an HTTP error). */
export async function answer(fn: () => Promise<unknown>): Promise<InternalAnswer> {
  try {
    return { ok: (await fn()) ?? null };
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return {
      error: {
        code: e.code,
        message: e.message,
        ...(e.retryAfterS !== undefined ? { retryAfterS: e.retryAfterS } : {}),
        ...(e instanceof InvalidInput ? { problems: e.problems } : {}),
      },
    };
  }
}
