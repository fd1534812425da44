// Bearer-key authentication for every /v1beta route.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

/** Resolves a presented bearer token to its user id, or null (unknown or revoked); at once when it can. */
export type VerifyApiKey = (token: string) => string | null | Promise<string | null>;

declare module 'fastify' {
  interface FastifyRequest {
    userId: string;
  }
}

const challenge = { 'WWW-Authenticate': 'Bearer' };

/** Passes the request on as `userId`'s, or fails it with 401. */
function accept(req: FastifyRequest, done: (err?: Error) => void, userId: string | null) {
  if (!userId) return done(new HttpError(401, 'Invalid or revoked API key', challenge));
  req.userId = userId;
  done();
}

export function registerAuth(app: FastifyInstance, verify: VerifyApiKey): void {
  app.decorateRequest('userId', '');
  // Callback-style: a key verified before is answered from memory, without a promise (or a
  // closure) per request.
  app.addHook('onRequest', (req: FastifyRequest, _reply, done) => {
    const h = req.headers.authorization;
    if (!h) return done(new HttpError(401, 'Not authenticated', challenge));
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    if (!m) return done(new HttpError(401, 'Invalid authorization header: expected "Bearer <API key>"', challenge));
    const r = verify(m[1]);
    if (r instanceof Promise) r.then((userId) => accept(req, done, userId), done);
    else accept(req, done, r);
  });
}
