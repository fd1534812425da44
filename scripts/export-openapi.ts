// Writes the OpenAPI document the app serves to openapi/openapi.json, so a change to the API shows
// up in review and client generators have a file to read. `npm run openapi:export`; the suite
// fails when the committed file differs from what the app produces (test/openapi-export.test.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { buildApp } from '../src/app.js';
import { makeLogger } from '../src/lib/logger.js';

export const OPENAPI_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi', 'openapi.json');

/** The document as the app builds it, for a server at the default address, as stable JSON text. */
export async function renderOpenApi(): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-openapi-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    LOG_LEVEL: 'silent',
    CAPTURE_WARM_CONTEXTS: '0',
  });
  const services = await createServices(config);
  try {
    const app = await buildApp(services, { logger: makeLogger('silent') });
    await app.ready();
    const doc = app.swagger();
    await app.close();
    return `${JSON.stringify(doc, null, 2)}\n`;
  } finally {
    await services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = await renderOpenApi();
  fs.mkdirSync(path.dirname(OPENAPI_FILE), { recursive: true });
  fs.writeFileSync(OPENAPI_FILE, text);
  console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)} (${text.length} bytes)`);
}
