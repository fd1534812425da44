// The local vault: envelope format, AAD binding, tamper detection, storage on both backends,
// master-key rotation, and where master keys come from.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../src/config.js';
import { VaultDecryptError, blobKid, open, rewrap, seal } from '../src/adapters/vault/envelope.js';
import { createLocalVault, openVaultStore, vaultDbPath } from '../src/adapters/vault/local.js';
import { createVault, rotateVault } from '../src/adapters/vault/index.js';
import { addKeyToFile, keyFilePath, loadMasterKeyring, parseMasterKeyEnv } from '../src/adapters/vault/master-key.js';
import type { SecretValue } from '../src/adapters/vault/port.js';
import { newId } from '../src/lib/ids.js';
import { PG_URL, backends } from './helpers/harness.js';

const key = () => crypto.randomBytes(32);
const ref = { ownerId: 'owner-a', secretId: 'secret-1' };
const PLAINTEXT = Buffer.from('{"type":"string","value":"plain-text-value"}');

describe('envelope', () => {
  const k1 = key();
  const lookup = (kid: string) => (kid === '1' ? k1 : undefined);

  it('round-trips and records the key id', () => {
    const blob = seal(PLAINTEXT, ref, '1', k1);
    expect(blob.startsWith('v1.1.')).toBe(true);
    expect(blobKid(blob)).toBe('1');
    expect(blob).not.toContain('plain-text-value');
    expect(open(blob, ref, lookup).equals(PLAINTEXT)).toBe(true);
  });

  it('uses a fresh data key and IVs for every seal', () => {
    const a = seal(PLAINTEXT, ref, '1', k1).split('.');
    const b = seal(PLAINTEXT, ref, '1', k1).split('.');
    for (const i of [2, 3, 4, 5]) expect(a[i]).not.toBe(b[i]);
  });

  it.each([
    ['owner', { ...ref, ownerId: 'owner-b' }],
    ['secret id', { ...ref, secretId: 'secret-2' }],
    ['owner/id boundary', { ownerId: 'owner-as', secretId: 'ecret-1' }],
  ])('binds the %s through AAD', (_l, other) => {
    const blob = seal(PLAINTEXT, ref, '1', k1);
    expect(() => open(blob, other, lookup)).toThrow(VaultDecryptError);
  });

  it.each([2, 3, 4, 5])('detects tampering with part %d', (part) => {
    const p = seal(PLAINTEXT, ref, '1', k1).split('.');
    const bytes = Buffer.from(p[part], 'base64url');
    bytes[bytes.length >> 1] ^= 0x01;
    p[part] = bytes.toString('base64url');
    expect(() => open(p.join('.'), ref, lookup)).toThrow(VaultDecryptError);
  });

  it('fails clearly on an unknown key id, a wrong key or a foreign format, without the value', () => {
    const blob = seal(PLAINTEXT, ref, '1', k1);
    expect(() => open(blob.replace('v1.1.', 'v1.9.'), ref, lookup)).toThrow(/master key 9 is not in the keyring/);
    expect(() => open(blob, ref, () => key())).toThrow(/authentication failed/);
    expect(() => open('garbage', ref, lookup)).toThrow(/unknown blob format/);
    try {
      open(blob, ref, () => key());
    } catch (e) {
      expect(String((e as Error).message)).not.toContain('plain-text-value');
    }
  });

  it('rewraps the data key only', () => {
    const k2 = key();
    const blob = seal(PLAINTEXT, ref, '1', k1);
    const re = rewrap(blob, ref, lookup, '2', k2);
    expect(blobKid(re)).toBe('2');
    expect(re.split('.')[5]).toBe(blob.split('.')[5]); // same value ciphertext
    expect(open(re, ref, (kid) => (kid === '2' ? k2 : undefined)).equals(PLAINTEXT)).toBe(true);
    expect(() => open(re, ref, lookup)).toThrow(VaultDecryptError);
  });
});

function tmpConfig(env: Record<string, string> = {}, backend: 'sqlite' | 'postgres' = 'sqlite'): Config {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-vault-'));
  return loadConfig({ DATA_DIR: dataDir, ...(backend === 'postgres' ? { DATABASE_URL: PG_URL } : {}), ...env });
}

const login: SecretValue = { type: 'login', username: 'alice', password: 'hunter2-pw', totp_secret: 'JBSWY3DPEHPK3PXP' };
const str: SecretValue = { type: 'string', value: 'api-token-xyz' };

describe.each(await backends())('local vault (%s)', (backend) => {
  const dirs: string[] = [];
  const schemas: string[] = [];
  const setup = () => {
    const cfg = tmpConfig({}, backend);
    dirs.push(cfg.dataDir);
    const pgSchema = backend === 'postgres' ? `v_${crypto.randomBytes(6).toString('hex')}` : undefined;
    if (pgSchema) schemas.push(pgSchema);
    return { cfg, opts: { pgSchema } };
  };
  afterAll(async () => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    if (schemas.length) {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
      await c.end();
    }
  });

  it('stores, reads and deletes entries; wrong owner reads null', async () => {
    const { cfg, opts } = setup();
    const vault = await createVault(cfg, loadMasterKeyring(cfg), opts);
    try {
      const a = { ownerId: newId(), secretId: newId() };
      const b = { ownerId: newId(), secretId: newId() };
      await vault.put(a, login);
      await vault.put(b, str);
      expect(await vault.get(a)).toEqual(login);
      expect(await vault.get(b)).toEqual(str);
      expect(await vault.get({ ownerId: b.ownerId, secretId: a.secretId })).toBeNull();
      expect(await vault.get({ ownerId: a.ownerId, secretId: newId() })).toBeNull();
      await vault.delete({ ownerId: b.ownerId, secretId: a.secretId }); // wrong owner: no effect
      expect(await vault.get(a)).toEqual(login);
      await vault.delete(a);
      expect(await vault.get(a)).toBeNull();
      expect(await vault.get(b)).toEqual(str);
    } finally {
      await vault.close();
    }
  });

  it('keeps only ciphertext, in its own store', async () => {
    const { cfg, opts } = setup();
    const vault = await createVault(cfg, loadMasterKeyring(cfg), opts);
    const r = { ownerId: newId(), secretId: newId() };
    await vault.put(r, login);
    await vault.close();
    const store = await openVaultStore(cfg, opts);
    try {
      const rows = await store.db.selectFrom('vault_entries').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: r.secretId, owner_id: r.ownerId, kid: '1' });
      for (const s of ['alice', 'hunter2-pw', 'JBSWY3DPEHPK3PXP']) expect(JSON.stringify(rows)).not.toContain(s);
    } finally {
      await store.close();
    }
    if (backend === 'sqlite') {
      expect(fs.existsSync(vaultDbPath(cfg))).toBe(true);
      expect(fs.existsSync(path.join(cfg.dataDir, 'connector.db'))).toBe(false);
    }
  });

  it('refuses a blob moved to another row (owner or id swapped in the store)', async () => {
    const { cfg, opts } = setup();
    const vault = await createVault(cfg, loadMasterKeyring(cfg), opts);
    const a = { ownerId: newId(), secretId: newId() };
    const b = { ownerId: newId(), secretId: newId() };
    await vault.put(a, login);
    await vault.put(b, str);
    const store = await openVaultStore(cfg, opts);
    try {
      const rowA = await store.db.selectFrom('vault_entries').selectAll().where('id', '=', a.secretId).executeTakeFirstOrThrow();
      // Attacker with write access to the store copies A's blob onto B's row, then relabels A's owner.
      await store.db.updateTable('vault_entries').set({ blob: rowA.blob }).where('id', '=', b.secretId).execute();
      await expect(vault.get(b)).rejects.toThrow(VaultDecryptError);
      await store.db.updateTable('vault_entries').set({ owner_id: b.ownerId }).where('id', '=', a.secretId).execute();
      await expect(vault.get({ ownerId: b.ownerId, secretId: a.secretId })).rejects.toThrow(/could not be decrypted/);
    } finally {
      await store.close();
      await vault.close();
    }
  });

  it('rotates: rewraps every entry to the new key, old key can then be dropped', async () => {
    const { cfg, opts } = setup();
    const ring1 = loadMasterKeyring(cfg);
    const vault = await createLocalVault(cfg, ring1, opts); // a "running server" on key 1
    const refs = Array.from({ length: 3 }, () => ({ ownerId: newId(), secretId: newId() }));
    for (const r of refs) await vault.put(r, login);
    expect(await vault.countByKid()).toEqual({ '1': 3 });

    expect(addKeyToFile(cfg)).toBe('2');
    const ring2 = loadMasterKeyring(cfg);
    // Before rotating, the new keyring still reads old entries (key 1 stays in the file).
    const vault2 = await createLocalVault(cfg, ring2, opts);
    expect(await vault2.get(refs[0])).toEqual(login);

    expect(await rotateVault(cfg, opts)).toBe(3);
    expect(await vault2.countByKid()).toEqual({ '2': 3 });
    expect(await rotateVault(cfg, opts)).toBe(0); // idempotent

    // The running server (keyring loaded before rotation) re-reads the key file on an unknown kid.
    expect(await vault.get(refs[1])).toEqual(login);

    // Drop key 1 from the key file: everything is still readable.
    const file = keyFilePath(cfg);
    const kf = JSON.parse(fs.readFileSync(file, 'utf8'));
    delete kf.keys['1'];
    fs.writeFileSync(file, JSON.stringify(kf), { mode: 0o600 });
    const vault3 = await createLocalVault(cfg, loadMasterKeyring(cfg), opts);
    try {
      for (const r of refs) expect(await vault3.get(r)).toEqual(login);
    } finally {
      await Promise.all([vault.close(), vault2.close(), vault3.close()]);
    }
  });

  it('rotates with keys from MASTER_KEY (new key first)', async () => {
    const { cfg, opts } = setup();
    const k1 = key().toString('base64');
    const k2 = key().toString('base64');
    const old = { ...cfg, masterKey: `a:${k1}` };
    const vault = await createVault(old, loadMasterKeyring(old), opts);
    const r = { ownerId: newId(), secretId: newId() };
    await vault.put(r, str);
    await vault.close();
    const next = { ...cfg, masterKey: `b:${k2},a:${k1}` };
    expect(await rotateVault(next, opts)).toBe(1);
    const only2 = { ...cfg, masterKey: `b:${k2}` };
    const v = await createVault(only2, loadMasterKeyring(only2), opts);
    try {
      expect(await v.get(r)).toEqual(str);
    } finally {
      await v.close();
    }
    expect(fs.existsSync(keyFilePath(cfg))).toBe(false);
  });
});

describe('master keys', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('generates the key file once, with mode 0600', () => {
    const cfg = tmpConfig();
    dirs.push(cfg.dataDir);
    const file = keyFilePath(cfg);
    expect(fs.existsSync(file)).toBe(false);
    const a = loadMasterKeyring(cfg);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const before = fs.readFileSync(file, 'utf8');
    const b = loadMasterKeyring(cfg);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(b.currentId).toBe(a.currentId);
    expect(b.get(b.currentId)!.equals(a.get(a.currentId)!)).toBe(true);
    expect(a.source).toBe(file);
  });

  it('refuses a key file readable by others', () => {
    const cfg = tmpConfig();
    dirs.push(cfg.dataDir);
    loadMasterKeyring(cfg);
    fs.chmodSync(keyFilePath(cfg), 0o644);
    expect(() => loadMasterKeyring(cfg)).toThrow(/chmod 600/);
  });

  it('takes the key from MASTER_KEY and writes no file', () => {
    const raw = key();
    const cfg = tmpConfig({ MASTER_KEY: raw.toString('base64') });
    dirs.push(cfg.dataDir);
    const ring = loadMasterKeyring(cfg);
    expect(ring.source).toBe('env');
    expect(ring.currentId).toBe('1');
    expect(ring.get('1')!.equals(raw)).toBe(true);
    expect(fs.existsSync(keyFilePath(cfg))).toBe(false);
    expect(parseMasterKeyEnv(`x:${key().toString('base64')},y:${raw.toString('base64')}`).currentId).toBe('x');
    expect(() => parseMasterKeyEnv('c2hvcnQ=')).toThrow(/32 bytes/);
  });
});
