// X-Request-Id: the caller's id when it is a plain token (it lands in log lines), otherwise a new one.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdFor(req: IncomingMessage): string {
  const h = req.headers['x-request-id'];
  return typeof h === 'string' && REQUEST_ID.test(h) ? h : crypto.randomUUID();
}
