// Builds the sandbox worker into one ESM file (esbuild, already installed with tsx) next to a copy
// of the QuickJS wasm, so the worker process needs read access to those two files and nothing
// else of the server. The directory is world-readable (0755, files 0444): workers run under an
// unprivileged uid when the server runs as root, and hold nothing secret.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { QUICKJS_WASM_NAME } from '../shared/bundle-layout.js';

export interface SandboxBundle {
  file: string;
  dir: string;
  wasm: string;
}

let built: Promise<SandboxBundle> | null = null;

export function sandboxBundle(): Promise<SandboxBundle> {
  built ??= (async () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const entry = ['main.ts', 'main.js'].map((f) => path.join(here, '..', 'worker', f)).find((f) => fs.existsSync(f));
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
    const wasm = path.join(dir, QUICKJS_WASM_NAME);
    fs.copyFileSync(quickjsWasmFile(), wasm);
    for (const f of [file, wasm]) fs.chmodSync(f, 0o444);
    fs.chmodSync(dir, 0o755);
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    return { file, dir, wasm };
  })();
  return built;
}

/** The release-sync variant's wasm, resolved from quickjs-emscripten (whose dependency it is). */
function quickjsWasmFile(): string {
  const req = createRequire(import.meta.url);
  return createRequire(req.resolve('quickjs-emscripten')).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
}
