// /internal/capture_sessions/…: what other processes of the fleet forward to the process holding a
// session's browser (forward.ts). No API key: every request must carry a signature made with a key
// derived from MASTER_KEY, for this very process, at most 30 s old; anything else is a 404 that
// says no more. Hidden from the OpenAPI document; the public paths stay /v1beta and /live.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { CaptureSessionsService } from './service.js';
import { answer } from './forward.js';
import type { SecretField } from '../../formats/recording/types.js';

type Req = FastifyRequest<{ Params: { id: string; action?: string }; Querystring: { mode?: string } }>;
interface Forwarded {
  user_id: string;
  field?: SecretField;
  secret_id?: string;
}

export const internalRoutes: FastifyPluginAsync<{ svc: CaptureSessionsService }> = async (app, { svc }) => {
  const hide = { hide: true } as object;
  // The signature covers the body as sent: keep its text.
  const raw = new WeakMap<FastifyRequest, string>();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 64 * 1024 }, (req, body, done) => {
    raw.set(req, String(body));
    try {
      done(null, JSON.parse(String(body)));
    } catch {
      done(null, null);
    }
  });
  const refuse = (req: Req, reply: FastifyReply, why: string) => {
    req.log.warn({ why }, 'internal capture request refused');
    return reply.code(404).send({ detail: 'Not Found' });
  };
  const signed = async (req: Req, reply: FastifyReply) => {
    const why = svc.forwarder.verify(req.headers, req.method, req.url, raw.get(req) ?? '');
    if (why) return refuse(req, reply, why);
  };

  app.post('/internal/capture_sessions/:id/:action', { schema: hide, preHandler: signed }, async (req: Req, reply) => {
    const b = req.body as Forwarded | null;
    if (!b || typeof b.user_id !== 'string') return reply.code(400).send({ detail: 'bad body' });
    const { id, action } = req.params;
    const o = { forwarded: true };
    if (action === 'complete') return answer(() => svc.complete(b.user_id, id, o));
    if (action === 'abandon') return answer(() => svc.abandon(b.user_id, id, o));
    if (action === 'paste' && typeof b.secret_id === 'string' && typeof b.field === 'string')
      return answer(() => svc.paste(b.user_id, id, { field: b.field!, secret_id: b.secret_id! }, o));
    return reply.code(404).send({ detail: 'Not Found' });
  });

  // The live view's socket, relayed by another process (its viewer's token was checked there).
  app.get(
    '/internal/capture_sessions/:id/live',
    { logLevel: 'silent', schema: hide, websocket: true, preValidation: signed },
    (socket, req: Req) => {
      const rt = svc.liveRuntime(req.params.id);
      if (!rt) return socket.close(4004, 'not found');
      const readOnly = req.query.mode !== 'control';
      if (!readOnly) rt.touch();
      rt.live.addViewer(socket, { readOnly });
    },
  );
};
