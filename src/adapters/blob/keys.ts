// Object keys are relative paths like "files/<user>/<file>". They are resolved under the
// store's root only after a strict check, so no key can name a file outside it.
import path from 'node:path';

export class BadKeyError extends Error {
  constructor(key: string, why: string) {
    super(`Invalid object key ${JSON.stringify(key.slice(0, 200))}: ${why}`);
  }
}

// A segment starts with an alphanumeric: "." and ".." are impossible and dot-names stay
// reserved for the store's own temp and sidecar files.
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_KEY = 1024;

/** Throws BadKeyError unless `key` is a safe relative key. */
export function checkKey(key: string): void {
  if (typeof key !== 'string' || key === '') throw new BadKeyError(String(key), 'empty');
  if (key.length > MAX_KEY) throw new BadKeyError(key, `longer than ${MAX_KEY} characters`);
  if (key.includes('\0')) throw new BadKeyError(key, 'contains NUL');
  if (key.includes('\\')) throw new BadKeyError(key, 'contains a backslash');
  if (key.startsWith('/')) throw new BadKeyError(key, 'absolute path');
  for (const seg of key.split('/')) {
    if (seg === '..' || seg === '.') throw new BadKeyError(key, 'contains a relative segment');
    if (!SEGMENT.test(seg)) throw new BadKeyError(key, 'segments must be [A-Za-z0-9._-], starting alphanumeric');
  }
}

/** Absolute path of `key` under `root`, checked twice: by syntax and by the resolved prefix. */
export function resolveKey(root: string, key: string): string {
  checkKey(key);
  const absRoot = path.resolve(root);
  const p = path.resolve(absRoot, key);
  if (!p.startsWith(absRoot + path.sep)) throw new BadKeyError(key, 'escapes the store root');
  return p;
}
