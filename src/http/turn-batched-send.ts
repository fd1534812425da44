// Responses leave at the end of the event-loop turn, together. Each write to a socket whose reader
// sleeps (the client, or a reverse proxy on the same host) makes the kernel wake that reader, and
// on virtual machines the wake-up is the dearest part of a small response. The requests read in one
// turn are answered back to back at its end, so the reader is woken once per batch, not per
// response (docs/architecture.md, "The request path"). A response waits at most for the rest of
// the turn's requests, which run before anything else could anyway.
import type { FastifyInstance, FastifyReply } from 'fastify';

type Done = (err: Error | null, payload?: unknown) => void;

/** This turn's sends, flat (reply, payload, done, …): nothing is allocated per request. */
let queued: unknown[] = [];

function flush() {
  const batch = queued;
  queued = [];
  for (let i = 0; i < batch.length; i += 3) {
    const reply = batch[i] as FastifyReply;
    try {
      (batch[i + 2] as Done)(null, batch[i + 1]);
    } catch (err) {
      // One response failing to go out must not take the rest of the batch (or the process) down.
      reply.log.error({ err }, 'sending the response failed');
      reply.raw.destroy();
    }
  }
}

/** Registers the batching on every route of `app` (put it before the routes). */
export function registerTurnBatchedSend(app: FastifyInstance): void {
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (queued.push(reply, payload, done) === 3) setImmediate(flush);
  });
}
