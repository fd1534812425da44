// Master keys of the local vault. From MASTER_KEY ("id:base64,id:base64", current first, or a
// single base64 key with id "1"), or else from DATA_DIR/master.key, generated once with mode 0600.
// There is never a built-in default key.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';

export interface MasterKeyring {
  /** Id of the key that wraps new data keys. */
  readonly currentId: string;
  get(id: string): Buffer | undefined;
  ids(): string[];
  /** A stable 32-byte subkey for another purpose (HKDF-SHA256 of the current key). */
  derive(purpose: string): Buffer;
  /** The same subkey from every key, current first: what verifies a value made by any process of a fleet mid-rotation. */
  deriveEach(purpose: string): Buffer[];
  /** Where the keys came from: 'env' or the key file's path. */
  readonly source: string;
}

interface KeyFile {
  current: string;
  keys: Record<string, string>;
}

export function keyFilePath(cfg: Pick<Config, 'dataDir'>): string {
  return path.join(cfg.dataDir, 'master.key');
}

function decodeKey(b64: string, where: string): Buffer {
  const k = Buffer.from(b64.trim(), 'base64');
  if (k.length !== 32) throw new Error(`${where}: a master key must be base64 of exactly 32 bytes`);
  return k;
}

const subkey = (key: Buffer, purpose: string) =>
  Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), `connector-service:${purpose}`, 32));

function makeRing(current: string, keys: Map<string, Buffer>, source: string): MasterKeyring {
  if (!keys.has(current)) throw new Error(`master key ${current} missing from ${source}`);
  return {
    currentId: current,
    source,
    get: (id) => keys.get(id),
    ids: () => [...keys.keys()],
    derive: (purpose) => subkey(keys.get(current)!, purpose),
    deriveEach: (purpose) => [current, ...[...keys.keys()].filter((id) => id !== current)].map((id) => subkey(keys.get(id)!, purpose)),
  };
}

export function parseMasterKeyEnv(value: string): MasterKeyring {
  const parts = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const keys = new Map<string, Buffer>();
  for (const p of parts) {
    const m = /^([A-Za-z0-9_-]{1,32}):(.+)$/.exec(p);
    const [id, b64] = m ? [m[1], m[2]] : ['1', p];
    if (keys.has(id)) throw new Error(`MASTER_KEY: duplicate key id ${id}`);
    keys.set(id, decodeKey(b64, 'MASTER_KEY'));
  }
  if (!keys.size) throw new Error('MASTER_KEY is empty');
  return makeRing(keys.keys().next().value as string, keys, 'env');
}

function readKeyFile(file: string): KeyFile {
  const kf = JSON.parse(fs.readFileSync(file, 'utf8')) as KeyFile;
  if (!kf || typeof kf.current !== 'string' || typeof kf.keys !== 'object') throw new Error(`${file}: not a master key file`);
  return kf;
}

function writeKeyFile(file: string, kf: KeyFile): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(kf, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  fs.renameSync(tmp, file);
}

export function loadMasterKeyring(cfg: Pick<Config, 'masterKey' | 'dataDir'>): MasterKeyring {
  if (cfg.masterKey) return parseMasterKeyEnv(cfg.masterKey);
  const file = keyFilePath(cfg);
  if (!fs.existsSync(file)) {
    const kf: KeyFile = { current: '1', keys: { '1': crypto.randomBytes(32).toString('base64') } };
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify(kf, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      // Another process created it first: use theirs.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  const mode = fs.statSync(file).mode & 0o077;
  if (mode)
    throw new Error(`${file} is readable by group/others (mode ${(fs.statSync(file).mode & 0o777).toString(8)}); run chmod 600 on it`);
  const kf = readKeyFile(file);
  const keys = new Map(Object.entries(kf.keys).map(([id, b64]) => [id, decodeKey(b64, file)] as const));
  return makeRing(kf.current, keys, file);
}

/** Adds a new current key to the key file (old keys stay so existing entries can be unwrapped). */
export function addKeyToFile(cfg: Pick<Config, 'dataDir'>): string {
  const file = keyFilePath(cfg);
  const kf = readKeyFile(file);
  const next = String(Math.max(0, ...Object.keys(kf.keys).map((k) => Number(k) || 0)) + 1);
  kf.keys[next] = crypto.randomBytes(32).toString('base64');
  kf.current = next;
  writeKeyFile(file, kf);
  return next;
}
