// Baseline: a bare Fastify JSON route returning a file-sized object, no auth, no database.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const body = {
  id: '01934b2e-0000-7000-8000-000000000000',
  source: 'UPLOAD',
  run_id: null,
  name: 'report.pdf',
  size_bytes: 123456,
  content_type: 'application/pdf',
  crc32c: 'AAAAAA==',
  created_at: '2026-11-22T00:00:00.000Z',
};
app.get('/v1beta/files/:id', async () => body);
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
