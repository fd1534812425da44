// Bearer-key authentication for every /v1beta route.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';
import type { UsersService } from '../modules/users/service.js';

declare module 'fastify' {
  interface FastifyRequest {
    userId: string;
  }
}

const challenge = { 'WWW-Authenticate': 'Bearer' };

export function registerAuth(app: FastifyInstance, users: UsersService): void {
  app.decorateRequest('userId', '');
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const h = req.headers.authorization;
    if (!h) throw new HttpError(401, 'Not authenticated', challenge);
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    if (!m) throw new HttpError(401, 'Invalid authorization header: expected "Bearer <API key>"', challenge);
    const userId = await users.authenticate(m[1]);
    if (!userId) throw new HttpError(401, 'Invalid or revoked API key', challenge);
    req.userId = userId;
  });
}
