// Responses of the requests read in one event-loop turn leave together at its end
// (src/http/turn-batched-send.ts), over real sockets: no handler of the turn sees an earlier
// response already written; without the hook the same test sees them written one by one. A response
// that fails to go out (a header Node refuses) costs its own connection only, not the batch's.
import http from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerTurnBatchedSend } from '../src/http/turn-batched-send.js';

const CONNECTIONS = 6;
let app: FastifyInstance | undefined;
const agents: http.Agent[] = [];

afterEach(async () => {
  for (const a of agents.splice(0)) a.destroy();
  await app?.close();
  app = undefined;
});

/** A server whose handlers record how many replies of other requests had already been written. */
async function serve(batched: boolean) {
  app = Fastify({ logger: false });
  if (batched) registerTurnBatchedSend(app);
  const replies: http.ServerResponse[] = [];
  const seen: number[] = [];
  app.get('/r', (req, reply) => {
    seen.push(replies.filter((r) => r.headersSent).length);
    replies.push(reply.raw);
    if ((req.query as { bad?: string }).bad) reply.header('x-bad', 'not\nallowed');
    reply.send({ ok: true });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  return { port, seen, replies };
}

function get(port: number, agent: http.Agent, path = '/r'): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode! }));
      })
      .on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
  });
}

/** Opens one kept-alive connection per agent, then sends a request on each in the same tick. */
async function burst(port: number, paths: string[]) {
  for (const _ of paths) agents.push(new http.Agent({ keepAlive: true, maxSockets: 1 }));
  await Promise.all(agents.map((a) => get(port, a)));
  const answers = paths.map((p, i) => get(port, agents[i], p));
  // A request goes out on its kept-alive socket in a nextTick; after those writes, hold the event
  // loop so every request is waiting in the kernel when the server next polls.
  await new Promise<void>((resolve) =>
    process.nextTick(() => {
      const until = Date.now() + 50;
      while (Date.now() < until);
      resolve();
    }),
  );
  return Promise.all(answers);
}

/** What the burst's handlers saw written among the burst's own replies (the warm-ups all were). */
const burstSeen = (seen: number[]) => seen.slice(CONNECTIONS).map((n) => n - CONNECTIONS);

describe('turn-batched send', () => {
  it('writes the responses of one turn after all of its handlers ran', async () => {
    const s = await serve(true);
    const answers = await burst(s.port, Array(CONNECTIONS).fill('/r'));
    expect(answers).toEqual(Array(CONNECTIONS).fill({ status: 200 }));
    // The warm-up requests came one per turn; the burst's handlers all ran before any write.
    expect(burstSeen(s.seen)).toEqual(Array(CONNECTIONS).fill(0));
  });

  it('is what makes the difference: without it each response is written before the next handler', async () => {
    const s = await serve(false);
    await burst(s.port, Array(CONNECTIONS).fill('/r'));
    expect(burstSeen(s.seen)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a response Node refuses to write closes its own connection; the rest of the batch is answered', async () => {
    const s = await serve(true);
    const paths = Array(CONNECTIONS).fill('/r');
    paths[2] = '/r?bad=1';
    const answers = await burst(s.port, paths);
    expect(answers[2]).toHaveProperty('error');
    expect(answers.filter((a) => 'status' in a && a.status === 200)).toHaveLength(CONNECTIONS - 1);
    // The server still answers afterwards.
    expect(await get(s.port, new http.Agent())).toEqual({ status: 200 });
  });
});
