// The console's browser bundle, built with esbuild in memory when first asked for and again when a
// source file changed (a ~100 ms build; no build step, so `npm install && npm start` keeps working
// on a fresh clone). Asset names carry a content hash, so they can be cached forever.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ConsoleAsset {
  name: string;
  type: string;
  body: Buffer;
}
export interface ConsoleBundle {
  script: ConsoleAsset;
  style: ConsoleAsset;
  /** Newest mtime of the sources it was built from. */
  stamp: number;
}

/** The browser sources: src/console/web (also from dist/, which has no .tsx of its own). */
export function webSourceDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const dir of [path.join(here, 'web'), path.join(here, '..', '..', 'src', 'console', 'web')]) {
    if (fs.existsSync(path.join(dir, 'main.tsx'))) return dir;
  }
  throw new Error('console sources not found (src/console/web/main.tsx)');
}

function newestMtime(dir: string): number {
  let max = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    max = Math.max(max, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return max;
}

const hashed = (stem: string, ext: string, body: Buffer) =>
  `${stem}-${crypto.createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`;

async function build(dir: string, stamp: number): Promise<ConsoleBundle> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [path.join(dir, 'main.tsx')],
    bundle: true,
    write: false,
    outdir: '/console-out',
    format: 'esm',
    target: 'es2020',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const js = out.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = out.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js || !css) throw new Error('console build produced no script or stylesheet');
  const script = Buffer.from(js.contents);
  const style = Buffer.from(css.contents);
  return {
    script: { name: hashed('app', 'js', script), type: 'text/javascript; charset=utf-8', body: script },
    style: { name: hashed('app', 'css', style), type: 'text/css; charset=utf-8', body: style },
    stamp,
  };
}

let current: Promise<ConsoleBundle> | null = null;

/** The bundle, rebuilt when a source is newer than the one it was made from. One build at a time per process. */
export async function consoleBundle(): Promise<ConsoleBundle> {
  const dir = webSourceDir();
  const stamp = newestMtime(dir);
  if (current) {
    const b = await current.catch(() => null);
    if (b && b.stamp >= stamp) return b;
  }
  current = build(dir, stamp);
  return current;
}
