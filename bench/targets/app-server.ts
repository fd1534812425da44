// The real thing: buildApp over SQLite (or DATABASE_URL) in a temp data dir, one uploaded file.
// Prints {port, key, fileId} once ready. Logging is at "warn" as a production deployment would run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeLogger } from '../../src/lib/logger.js';
import { loadConfig } from '../../src/config.js';
import { createServices } from '../../src/services.js';
import { buildApp } from '../../src/app.js';
import { tuneV8 } from '../../src/start/v8-tuning.js';

tuneV8(); // as the real entry point (src/start/cli.ts) does

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
const services = await createServices(config);
const app = await buildApp(services, { logger: makeLogger('warn') });
await services.start();
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address();
const port = typeof addr === 'object' && addr ? addr.port : 0;
config.publicBaseUrl = `http://127.0.0.1:${port}`;
const boot = (await services.users.bootstrap())!;
const auth = { authorization: `Bearer ${boot.key}`, 'content-type': 'application/json' };

const bytes = Buffer.from('benchmark file body\n'.repeat(100));
const init = await (
  await fetch(`${config.publicBaseUrl}/v1beta/files`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'report.txt', size_bytes: bytes.length, content_type: 'text/plain' }),
  })
).json();
const put = await fetch(init.upload_url, { method: 'PUT', headers: init.upload_headers, body: bytes });
if (!put.ok) throw new Error(`upload failed: ${put.status}`);
const done = await fetch(`${config.publicBaseUrl}/v1beta/files/${init.file_id}/complete`, {
  method: 'POST',
  headers: { authorization: auth.authorization },
});
if (!done.ok) throw new Error(`complete failed: ${done.status}`);

process.stdout.write(`${JSON.stringify({ port, key: boot.key, fileId: init.file_id })}\n`);
const stop = async () => {
  await app.close();
  await services.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
