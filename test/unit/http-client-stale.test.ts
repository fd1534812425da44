// The engines' HTTP client when a server drops its idle kept-alive connections all at once (its
// idle timeout ran out while the worker was busy): the request that met a dropped socket is sent
// again on a NEW connection, not on the pool's next idle socket, which the server dropped too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EgressPolicy } from '../../src/egress/policy.js';
import { send } from '../../src/runtime/worker/engines/http-client.js';

let server: http.Server;
let base = '';
let dropReused = false;
const served = new WeakMap<object, number>();
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    seen.push(`${req.url}#${n}`);
    // A socket that served before is one the server considers idle and closed.
    if (dropReused && n > 1) return req.socket.destroy();
    // The warm-up requests wait a little, so that each gets a connection of its own.
    setTimeout(() => res.end(JSON.stringify({ at: req.url })), 50);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = (p: string) =>
  send({ method: 'GET', url: `${base}${p}`, headers: {}, timeoutMs: 5000, maxBytes: 1 << 20, egress: new EgressPolicy() });

it('sends the request once more on a new connection when every kept-alive socket was dropped', async () => {
  // Two idle kept-alive sockets in the pool.
  await Promise.all([get('/warm-1'), get('/warm-2')]);
  expect(seen.sort()).toEqual(['/warm-1#1', '/warm-2#1']);
  seen.length = 0;
  dropReused = true;
  const r = await get('/next');
  expect(r.status).toBe(200);
  expect(JSON.parse(r.body.toString())).toEqual({ at: '/next' });
  // Dropped on one reused socket, then answered on a connection of its own (the pool's other
  // idle socket, dropped too, was not tried).
  expect(seen).toEqual(['/next#2', '/next#1']);
});
