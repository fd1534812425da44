// The forged sandbox worker (test/fixtures/forged-worker.mjs), copied where the sandbox uid can
// read it; pass the path as ServiceOptions.workerEntry.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function forgedWorker(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-forged-'));
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'worker.mjs');
  fs.copyFileSync(fileURLToPath(new URL('../fixtures/forged-worker.mjs', import.meta.url)), file);
  fs.chmodSync(file, 0o444);
  return file;
}
