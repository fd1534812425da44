// Command-line entry: `npx tsx examples/demo-site/main.ts [--port 8123] [--host 127.0.0.1]`.
// Prints the URL on stdout (one line, so scripts can read it) and runs until interrupted.
import { parseArgs } from 'node:util';
import { startDemoSite } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.DEMO_SITE_PORT ?? '0' },
    host: { type: 'string', default: process.env.DEMO_SITE_HOST ?? '127.0.0.1' },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid --port ${values.port}`);
  process.exit(2);
}

const site = await startDemoSite({ port, host: values.host });
console.log(site.url);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void site.close().then(() => process.exit(0));
  });
}
