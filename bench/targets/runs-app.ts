// The real service (SQLite in a temp dir) plus the demo site, with the connectors the run
// benchmarks use: `one` (one GET to TARGET_URL), and the demo login+search flow as an http and as
// a browser connector. Prints {port, key, one, flowHttp, flowBrowser, alice} once ready.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeLogger } from '../../src/lib/logger.js';
import { loadConfig } from '../../src/config.js';
import { createServices } from '../../src/services.js';
import { buildApp } from '../../src/app.js';
import { startDemoSite } from '../../examples/demo-site/server.js';
import { browserSearchDefinition, httpSearchDefinition, LOGIN_SLOT, SEARCH_INPUT } from '../../test/fixtures/definitions.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-runs-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
const services = await createServices(config);
const app = await buildApp(services, { logger: makeLogger('warn') });
await services.start();
await app.listen({ host: '127.0.0.1', port: 0 });
const port = (app.server.address() as { port: number }).port;
config.publicBaseUrl = `http://127.0.0.1:${port}`;
const site = await startDemoSite();
const boot = (await services.users.bootstrap())!;
const u = boot.user.id;
const pub = (body: Record<string, unknown>) =>
  services.connectors.publish(u, {
    display_name: 'bench',
    purpose: 'bench',
    input_schema: { type: 'object' },
    output_schema: {},
    ...body,
  } as never);
const one = await pub({
  definition: {
    format: 'connector-definition/v1',
    engine: 'http',
    steps: [{ id: 'get', url: `${process.env.TARGET_URL}/ping`, extract: { items: { from: 'json', path: '$.items[*]', all: true } } }],
    result: { items: '{{vars.items}}' },
  },
});
const flowHttp = await pub({ definition: httpSearchDefinition(site.url), input_schema: SEARCH_INPUT, required_secrets: [LOGIN_SLOT] });
const flowBrowser = await pub({
  definition: browserSearchDefinition(site.url),
  input_schema: { type: 'object' },
  required_secrets: [LOGIN_SLOT],
});
const alice = await services.secrets.create(u, { name: 'alice', secret_type: 'login', username: 'alice', password: 'wonderland' });

process.stdout.write(
  `${JSON.stringify({ port, key: boot.key, one: one.id, flowHttp: flowHttp.id, flowBrowser: flowBrowser.id, alice: alice.id })}\n`,
);
const stop = async () => {
  await app.close();
  await services.close();
  await site.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
