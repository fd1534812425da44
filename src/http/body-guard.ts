// Body idle timeout: a request body that stops arriving is cut instead of holding a socket (and,
// for uploads, a temp file) until the client gives up. Same rule as S3's 400 RequestTimeout.
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';

export const bodyIdleError = (seconds: number) =>
  new HttpError(408, `Request timeout: no body data received for ${seconds} s; the connection is closed and nothing was stored`, {
    connection: 'close',
  });

/**
 * Calls `onIdle` once when `stream` delivers no data for `ms` before it ends or closes.
 * Returns a function that stops watching. Listening to 'data' does not change the flow mode
 * for a stream that is piped (the pipe already consumes it).
 */
export function watchIdle(stream: Readable, ms: number, onIdle: () => void): () => void {
  let timer: NodeJS.Timeout | null = null;
  let lastData = Date.now();
  let stopped = false;
  const stop = () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    timer = null;
    stream.off('data', seen);
    stream.off('end', stop);
    stream.off('close', stop);
  };
  const arm = (wait: number) => {
    timer = setTimeout(() => {
      timer = null;
      // Timers run before pending socket reads in an event-loop turn: after a stall of this
      // process (GC, a busy machine) the data that did arrive is delivered first (setImmediate
      // runs after the poll phase), so only a client that really went silent is cut.
      setImmediate(() => {
        if (stopped) return;
        const quiet = Date.now() - lastData;
        if (quiet < ms) return arm(ms - quiet);
        stop();
        onIdle();
      });
    }, wait);
    timer.unref();
  };
  function seen() {
    lastData = Date.now();
  }
  stream.on('data', seen);
  stream.once('end', stop);
  stream.once('close', stop);
  arm(ms);
  return stop;
}

const hasBody = (h: Record<string, unknown>) =>
  (h['content-length'] !== undefined && h['content-length'] !== '0') || h['transfer-encoding'] !== undefined;

/**
 * For routes registered in `app` (the JSON API): the body reaches the parser through a stream
 * that fails with 408 {"detail"} when the client goes silent. The socket stays open long enough
 * to carry that answer; `connection: close` then ends it (the rest of the body is discarded).
 */
export function registerBodyIdleTimeout(app: FastifyInstance, seconds: number): void {
  app.addHook('preParsing', (req, reply, payload, done) => {
    if (!hasBody(req.headers)) return done(null, payload);
    const out = new PassThrough();
    // The body may never be read (e.g. 413 decided from Content-Length): then nobody listens
    // on `out` when the timer fires, and an unhandled 'error' would crash the process.
    out.on('error', () => {});
    const stop = watchIdle(payload, seconds * 1000, () => {
      payload.unpipe(out);
      payload.resume();
      out.destroy(bodyIdleError(seconds));
    });
    payload.on('error', (e) => {
      stop();
      out.destroy(e);
    });
    out.on('close', stop);
    // Answered (or gone) without reading the body: nothing left to time out.
    reply.raw.once('finish', stop);
    reply.raw.once('close', stop);
    payload.pipe(out);
    done(null, out);
  });
}

/**
 * A response sent before the request body was read (401 from auth, 404, 413, a refused upload)
 * closes the connection. Otherwise Node keeps it to drain the rest of the body, and a client
 * that stalls there holds the socket until the overall request timeout, without any API key.
 */
export function registerCloseUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    if (hasBody(req.headers) && !req.raw.complete) reply.header('connection', 'close');
    done(null, payload);
  });
}
