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

export function makeLogger(level: string, destination?: DestinationStream): Logger {
  const opts = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  return destination ? pino(opts, destination) : pino(opts);
}
