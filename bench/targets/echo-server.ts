// The "local target" of the run benchmarks: a bare node:http JSON endpoint. Prints {port}.
// TARGET_DELAY_MS: answer each request that much later (a website's latency, not its CPU).
import http from 'node:http';

const delayMs = Number(process.env.TARGET_DELAY_MS ?? 0);

const body = JSON.stringify({
  ok: true,
  items: [
    { id: 1, name: 'one' },
    { id: 2, name: 'two' },
  ],
});
const answer = (res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};
const server = http.createServer((_req, res) => {
  if (delayMs > 0) setTimeout(answer, delayMs, res);
  else answer(res);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
