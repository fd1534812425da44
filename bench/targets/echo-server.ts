// The "local target" of the run benchmarks: a bare node:http JSON endpoint. Prints {port}.
import http from 'node:http';

const body = JSON.stringify({
  ok: true,
  items: [
    { id: 1, name: 'one' },
    { id: 2, name: 'two' },
  ],
});
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
