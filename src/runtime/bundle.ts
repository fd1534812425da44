// Builds the sandbox worker into one ESM file (esbuild, already installed with tsx) so the worker
// process needs read access to that single file and nothing else of the server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let built: Promise<{ file: string; dir: string }> | null = null;

export function sandboxBundle(): Promise<{ file: string; dir: string }> {
  built ??= (async () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const entry = ['sandbox/main.ts', 'sandbox/main.js'].map((f) => path.join(here, f)).find((f) => fs.existsSync(f));
    if (!entry) throw new Error('sandbox entry point not found');
    const { build } = await import('esbuild');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-sandbox-'));
    const file = path.join(dir, 'sandbox.mjs');
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: file,
      logLevel: 'silent',
      // CommonJS dependencies call require(): give the ESM bundle one.
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    });
    fs.chmodSync(file, 0o444);
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    return { file, dir };
  })();
  return built;
}
