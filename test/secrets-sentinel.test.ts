// Sentinel test: credentials sent to the secrets API never come back out — not in a response
// body or header, not in a log line, and not in any file of the data dir (metadata database, its
// WAL, the vault database) or, on PostgreSQL, in any row of the run's schema.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type ApiResponse, type Harness } from './helpers/harness.js';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const randomBase32 = (n: number) => Array.from(crypto.randomBytes(n), (b) => BASE32[b & 31]).join('');
const hex = () => crypto.randomBytes(12).toString('hex');

const S = {
  username: `usr-${hex()}`,
  password: `pw-${hex()}`,
  totp: randomBase32(32),
  value: `val-${hex()}`,
};
const SENTINELS = Object.values(S);

/**
 * A sentinel "appears" if the whole string or any 8-character piece of it does (error messages
 * such as V8's JSON.parse quote only ~10 characters around the fault). Pieces of random hex or
 * base32 this long do not occur by chance in the few megabytes we scan.
 */
function findLeak(haystack: string): string | null {
  for (const s of SENTINELS) {
    for (let i = 0; i + 8 <= s.length; i++) {
      const piece = s.slice(i, i + 8);
      if (haystack.includes(piece)) return piece;
    }
  }
  return null;
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

describe.each(await backends())('secret sentinels (%s)', (backend) => {
  let h: Harness;
  const seen: { what: string; r: ApiResponse }[] = [];
  const call = async (what: string, method: string, p: string, body?: unknown, key?: string) => {
    const r = await h.api(method, p, body, key);
    seen.push({ what, r });
    return r;
  };

  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  it('exercises every secrets endpoint and error path with sentinel credentials', async () => {
    const login = { name: 'bank', secret_type: 'login', username: S.username, password: S.password, totp_secret: S.totp };
    const str = { name: 'token', secret_type: 'string', value: S.value };

    const a = await call('create login', 'POST', '/v1beta/secrets', login);
    expect(a.status).toBe(200);
    const b = await call('create string', 'POST', '/v1beta/secrets', str);
    expect(b.status).toBe(200);
    const c = await call('create task-based', 'POST', '/v1beta/secrets', { ...login, website: 'https://bank.test' });
    expect(c.status).toBe(200);
    const noTotp = await call('create login without totp', 'POST', '/v1beta/secrets', { ...login, totp_secret: null, name: 'plain' });
    expect(noTotp.status).toBe(200);

    expect((await call('list', 'GET', '/v1beta/secrets')).status).toBe(200);
    expect((await call('totp', 'POST', `/v1beta/secrets/${a.json.id}/totp`)).status).toBe(200);
    expect((await call('totp of string', 'POST', `/v1beta/secrets/${b.json.id}/totp`)).status).toBe(409);
    expect((await call('totp without seed', 'POST', `/v1beta/secrets/${noTotp.json.id}/totp`)).status).toBe(409);

    const other = await h.newUser('sentinel-other');
    expect((await call('cross-user list', 'GET', '/v1beta/secrets', undefined, other.key)).json).toEqual([]);
    expect((await call('cross-user totp', 'POST', `/v1beta/secrets/${a.json.id}/totp`, undefined, other.key)).status).toBe(404);
    expect((await call('cross-user delete', 'DELETE', `/v1beta/secrets/${a.json.id}`, undefined, other.key)).status).toBe(404);

    // Every kind of 422 with sentinels somewhere in the body.
    const bad: [string, unknown][] = [
      ['other-type value', { ...login, value: S.value }],
      ['other-type login fields', { ...str, username: S.username, password: S.password, totp_secret: S.totp }],
      ['invalid base32', { ...login, totp_secret: `${S.totp}!1` }],
      ['short base32', { ...login, totp_secret: S.totp.slice(0, 12) }],
      ['missing name', { secret_type: 'login', username: S.username, password: S.password }],
      ['missing password', { name: 'n', secret_type: 'login', username: S.username }],
      ['enum', { ...login, secret_type: 'card' }],
      ['name wrong type', { ...login, name: 5 }],
      ['name too long', { ...login, name: 'n'.repeat(201) }],
      ['username wrong type', { ...login, username: [S.username] }],
      ['password wrong type', { ...login, password: { p: S.password } }],
      ['value wrong type', { ...str, value: [S.value] }],
      ['password too long', { ...login, password: S.password + 'x'.repeat(4096) }],
      ['value too long', { ...str, value: S.value + 'x'.repeat(65536) }],
      ['totp too long', { ...login, totp_secret: S.totp.repeat(9) }],
      ['empty value', { ...str, value: '', username: S.username }],
      ['extra field', { ...login, extra: 1 }],
      ['array body', [S.username, S.password, S.totp, S.value]],
      ['string body', JSON.stringify(S.password)],
    ];
    for (const [what, body] of bad) {
      const r = await call(what, 'POST', '/v1beta/secrets', body);
      expect(r.status, what).toBe(422);
    }
  });

  it('answers malformed JSON holding a sentinel without quoting it', async () => {
    const malformed = [
      `{"name":"n","secret_type":"login","username":"${S.username}","password":"${S.password}",}`,
      `{"name":"n","secret_type":"login","password": ${S.password}}`,
      `{"name":"n","secret_type":"string","value":"${S.value}"`,
      `{"totp_secret":"${S.totp}" "x"}`,
      `[${S.username}]`,
    ];
    for (const body of malformed) {
      const r = await call('malformed JSON', 'POST', '/v1beta/secrets', body);
      expect(r.status).toBe(422);
      expect(r.json.detail[0].type).toBe('json_invalid');
      expect(findLeak(r.text), `json_invalid body quotes the request: ${r.text}`).toBeNull();
    }
  });

  it('deletes, and a deleted secret stays gone', async () => {
    const list = await call('list before delete', 'GET', '/v1beta/secrets');
    for (const s of list.json) expect((await call('delete', 'DELETE', `/v1beta/secrets/${s.id}`)).status).toBe(200);
    const again = await call('delete again', 'DELETE', `/v1beta/secrets/${list.json[0].id}`);
    expect(again.status).toBe(404);
    // Keep one live secret so the stores still hold ciphertext while we scan them.
    const r = await call('create after delete', 'POST', '/v1beta/secrets', {
      name: 'kept',
      secret_type: 'login',
      username: S.username,
      password: S.password,
      totp_secret: S.totp,
    });
    expect(r.status).toBe(200);
    const s2 = await call('create string after delete', 'POST', '/v1beta/secrets', {
      name: 'kept2',
      secret_type: 'string',
      value: S.value,
    });
    expect(s2.status).toBe(200);
  });

  it('finds no sentinel in any response body or header', () => {
    expect(seen.length).toBeGreaterThan(30);
    const leaks = seen.flatMap(({ what, r }) => {
      const headers = JSON.stringify([...r.headers.entries()]);
      return [findLeak(r.text) && `${what}: ${r.text.slice(0, 300)}`, findLeak(headers) && `${what} (headers)`].filter(Boolean);
    });
    expect(leaks).toEqual([]);
  });

  it('finds no sentinel in any log line', () => {
    expect(h.logs.length).toBeGreaterThan(0);
    for (const line of h.logs) expect(findLeak(line), line.slice(0, 300)).toBeNull();
  });

  it('finds no sentinel in any file under the data dir', () => {
    const files = filesUnder(h.dataDir);
    if (backend === 'sqlite') {
      const names = files.map((f) => path.basename(f));
      expect(names).toContain('connector.db');
      expect(names).toContain('vault.db');
    }
    for (const f of files) {
      const bytes = fs.readFileSync(f);
      // latin1 keeps every byte as one char, so ASCII sentinels are found wherever they sit.
      expect(findLeak(bytes.toString('latin1')), f).toBeNull();
    }
  });

  it.runIf(backend === 'postgres')('finds no sentinel in any row of the schema', async () => {
    const {
      rows: [cur],
    } = await sql<{ s: string }>`select current_schema() as s`.execute(h.services.db);
    const { rows: tables } = await sql<{ t: string }>`
      select table_name as t from information_schema.tables where table_schema = ${cur.s} and table_type = 'BASE TABLE'`.execute(
      h.services.db,
    );
    const names = tables.map((t) => t.t);
    expect(names).toEqual(expect.arrayContaining(['secrets', 'vault_entries', 'users']));
    let rowsSeen = 0;
    for (const t of names) {
      const { rows } = await sql<{ r: string }>`select t::text as r from ${sql.id(cur.s, t)} t`.execute(h.services.db);
      rowsSeen += rows.length;
      for (const row of rows) expect(findLeak(row.r), `${t}: ${row.r.slice(0, 200)}`).toBeNull();
    }
    expect(rowsSeen).toBeGreaterThan(2);
  });
});
