// The one logger factory (server, CLI, tests): pino with redaction of credential-bearing paths,
// so a future log call that passes a request or body cannot leak a key or secret value.
import pino, { type DestinationStream, type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.totp_secret',
  '*.username',
  '*.value',
  'body',
  'req.body',
];

/** How long a gathered log line waits at most before it is written. */
export const LOG_FLUSH_MS = 200;

/**
 * `destination`: where lines go (tests pass a sink); else stdout, with lines gathered into writes
 * of `bufferBytes` (0: one write per line).
 */
export function makeLogger(level: string, destination?: DestinationStream, opts: { bufferBytes?: number } = {}): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  if (destination) return pino(options, destination);
  return opts.bufferBytes ? pino(options, gatheredStdout(opts.bufferBytes)) : pino(options);
}

/**
 * stdout with lines gathered into fewer writes. pino's own asynchronous stdout hands each line to
 * libuv's thread pool as a write of its own (a thread woken per line): in a CPU profile of the API
 * process under bench/workers.ts (embedded, `info`), those writes were ≈ 4% of its main thread.
 * Here lines are written once `bytes` have gathered, and at most LOG_FLUSH_MS after they were
 * logged (100 lines: 15 writes instead of 100). pino writes what is left synchronously when the
 * process exits (signals handled by the server end with process.exit), so only a SIGKILL or a
 * crash of the runtime itself loses the last lines.
 */
function gatheredStdout(bytes: number): DestinationStream {
  const out = pino.destination({ dest: 1, sync: false, minLength: bytes });
  const timer = setInterval(() => {
    // sonic-boom's own fields: `_len` is what it holds unwritten. Should a release rename it, this
    // flushes at every tick rather than never.
    const state = out as unknown as { _len?: unknown; destroyed?: boolean };
    if (state.destroyed || state._len === 0) return;
    out.flush();
  }, LOG_FLUSH_MS);
  timer.unref();
  return out;
}
