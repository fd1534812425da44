// /v1beta/secrets through HTTP on both backends: every endpoint, every 422, cross-user 404s,
// vault entries removed on delete, TOTP codes, the task-based shape, no half-written secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { deref, oneOfNames } from './helpers/openapi.js';
import { totpCode } from '../src/lib/totp.js';
import { SecretsService } from '../src/modules/secrets/service.js';
import type { CredentialVault } from '../src/adapters/vault/port.js';

const SEED = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const login = (extra: Record<string, unknown> = {}) => ({ name: 'Bank', secret_type: 'login', username: 'u1', password: 'p1', ...extra });
const str = (extra: Record<string, unknown> = {}) => ({ name: 'Token', secret_type: 'string', value: 'v1', ...extra });
const SECRET_KEYS = ['created_at', 'has_totp', 'id', 'name', 'secret_type', 'updated_at'];
const TASK_KEYS = ['created_at', 'has_totp', 'name', 'secret_type', 'updated_at', 'uuid', 'website'];
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(await backends())('secrets (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  const create = async (body: unknown, key?: string) => {
    const r = await h.api('POST', '/v1beta/secrets', body, key);
    expect(r.status, r.text).toBe(200);
    return r.json;
  };

  describe('create and list', () => {
    it('creates a login secret and returns metadata only', async () => {
      const s = await create(login({ totp_secret: SEED }));
      expect(Object.keys(s).sort()).toEqual(SECRET_KEYS);
      expect(s).toMatchObject({ name: 'Bank', secret_type: 'login', has_totp: true });
      expect(s.id).toMatch(UUID_RE);
      expect(s.created_at).toBe(s.updated_at);
      expect(new Date(s.created_at).toISOString()).toBe(s.created_at);
    });

    it('creates login without TOTP (absent or null) and string secrets', async () => {
      expect((await create(login())).has_totp).toBe(false);
      expect((await create(login({ totp_secret: null, value: null }))).has_totp).toBe(false);
      const s = await create(str({ username: null, password: null, totp_secret: null }));
      expect(s).toMatchObject({ secret_type: 'string', has_totp: false });
    });

    it('stores the value in the vault, not in the metadata table', async () => {
      const s = await create(login({ username: 'vault-user', password: 'vault-pass', totp_secret: 'jbsw y3dp ehpk 3pxp' }));
      const v = await h.services.vault.get({ ownerId: h.userId, secretId: s.id });
      expect(v).toEqual({ type: 'login', username: 'vault-user', password: 'vault-pass', totp_secret: 'JBSWY3DPEHPK3PXP' });
      const row = await h.services.db.selectFrom('secrets').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toMatch(/vault-user|vault-pass|JBSWY3DP/);
      const r = await h.services.secrets.resolve(h.userId, s.id);
      expect(r?.value).toEqual(v);
      expect(r?.meta.id).toBe(s.id);
    });

    it('lists only the caller’s secrets, newest first', async () => {
      const u = await h.newUser('lister');
      expect((await h.api('GET', '/v1beta/secrets', undefined, u.key)).json).toEqual([]);
      const a = await create(str({ name: 'first' }), u.key);
      const b = await create(login({ name: 'second' }), u.key);
      const c = await create(str({ name: 'third', website: 'https://x.test' }), u.key);
      const r = await h.api('GET', '/v1beta/secrets', undefined, u.key);
      expect(r.status).toBe(200);
      expect(r.json.map((s: any) => s.id)).toEqual([c.uuid, b.id, a.id]);
      for (const s of r.json) expect(Object.keys(s).sort()).toEqual(SECRET_KEYS);
      const mine = (await h.api('GET', '/v1beta/secrets')).json.map((s: any) => s.id);
      expect(mine).not.toContain(a.id);
    });
  });

  describe('task-based variant', () => {
    it('answers in the task-based shape when website is present', async () => {
      const s = await create(login({ website: 'https://bank.example/login', totp_secret: SEED }));
      expect(Object.keys(s).sort()).toEqual(TASK_KEYS);
      expect(s).toMatchObject({ name: 'Bank', secret_type: 'login', website: 'https://bank.example/login', has_totp: true });
      expect(s.uuid).toMatch(UUID_RE);
      const row = await h.services.secrets.get(h.userId, s.uuid);
      expect(row?.website).toBe('https://bank.example/login');
    });

    it('uses the task-based shape for website: null too', async () => {
      const s = await create(str({ website: null }));
      expect(Object.keys(s).sort()).toEqual(TASK_KEYS);
      expect(s.website).toBeNull();
    });

    it('task-based secrets work with the id-based endpoints', async () => {
      const s = await create(login({ website: 'https://a.test', totp_secret: SEED }));
      expect((await h.api('POST', `/v1beta/secrets/${s.uuid}/totp`)).status).toBe(200);
      expect((await h.api('DELETE', `/v1beta/secrets/${s.uuid}`)).json).toEqual({ id: s.uuid, deleted: true });
    });
  });

  describe('TOTP', () => {
    it('returns the code totpCode computes for the stored seed now', async () => {
      const s = await create(login({ totp_secret: SEED }));
      // Retry once if the request straddled a 30 s boundary.
      for (let i = 0; i < 2; i++) {
        const before = totpCode(SEED);
        const r = await h.api('POST', `/v1beta/secrets/${s.id}/totp`);
        expect(r.status).toBe(200);
        expect(Object.keys(r.json).sort()).toEqual(['code', 'id']);
        expect(r.json.id).toBe(s.id);
        expect(r.json.code).toMatch(/^\d{6}$/);
        if (r.json.code === before || r.json.code === totpCode(SEED)) return;
      }
      throw new Error('TOTP code did not match');
    });

    it('answers 409 for a login without TOTP and for a string secret', async () => {
      const l = await create(login());
      const r1 = await h.api('POST', `/v1beta/secrets/${l.id}/totp`);
      expect(r1.status).toBe(409);
      expect(r1.json.detail).toMatch(/no TOTP seed/);
      const s = await create(str());
      const r2 = await h.api('POST', `/v1beta/secrets/${s.id}/totp`);
      expect(r2.status).toBe(409);
      expect(r2.json.detail).toMatch(/string secret/);
    });

    it('answers 404 for unknown and malformed ids', async () => {
      for (const id of ['0190f0a0-0000-7000-8000-000000000000', 'not-a-uuid', '%20']) {
        const r = await h.api('POST', `/v1beta/secrets/${id}/totp`);
        expect(r.status).toBe(404);
        expect(r.json).toEqual({ detail: 'Secret not found' });
      }
    });
  });

  describe('delete', () => {
    it('removes metadata and the vault entry', async () => {
      const s = await create(login({ totp_secret: SEED }));
      const ref = { ownerId: h.userId, secretId: s.id };
      expect(await h.services.vault.get(ref)).not.toBeNull();
      const r = await h.api('DELETE', `/v1beta/secrets/${s.id}`);
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ id: s.id, deleted: true });
      expect(await h.services.vault.get(ref)).toBeNull();
      expect(await h.services.db.selectFrom('secrets').selectAll().where('id', '=', s.id).executeTakeFirst()).toBeUndefined();
      expect((await h.api('GET', '/v1beta/secrets')).json.map((x: any) => x.id)).not.toContain(s.id);
      expect((await h.api('DELETE', `/v1beta/secrets/${s.id}`)).json).toEqual({ detail: 'Secret not found' });
      expect((await h.api('POST', `/v1beta/secrets/${s.id}/totp`)).status).toBe(404);
    });

    it('answers 404 for unknown and malformed ids', async () => {
      for (const id of ['0190f0a0-0000-7000-8000-000000000000', 'nope']) {
        const r = await h.api('DELETE', `/v1beta/secrets/${id}`);
        expect(r.status).toBe(404);
        expect(r.json).toEqual({ detail: 'Secret not found' });
      }
    });

    it('answers a clear 4xx for an over-long id', async () => {
      // Fastify's maxParamLength (414) or IdParam's maxLength (422), whichever is lower.
      const r = await h.api('DELETE', `/v1beta/secrets/${'a'.repeat(201)}`);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    });
  });

  describe('cross-user access', () => {
    it('user B can neither list, use nor delete A’s secret', async () => {
      const a = await create(login({ totp_secret: SEED }));
      const b = await h.newUser('intruder');
      expect((await h.api('GET', '/v1beta/secrets', undefined, b.key)).json).toEqual([]);
      const t = await h.api('POST', `/v1beta/secrets/${a.id}/totp`, undefined, b.key);
      expect(t.status).toBe(404);
      expect(t.json).toEqual({ detail: 'Secret not found' });
      const d = await h.api('DELETE', `/v1beta/secrets/${a.id}`, undefined, b.key);
      expect(d.status).toBe(404);
      expect(d.json).toEqual({ detail: 'Secret not found' });
      expect(await h.services.secrets.resolve(b.userId, a.id)).toBeNull();
      expect(await h.services.vault.get({ ownerId: h.userId, secretId: a.id })).not.toBeNull();
      expect((await h.api('POST', `/v1beta/secrets/${a.id}/totp`)).status).toBe(200);
    });

    it('requires a key on every route', async () => {
      for (const [m, p] of [
        ['GET', '/v1beta/secrets'],
        ['POST', '/v1beta/secrets'],
        ['POST', '/v1beta/secrets/x/totp'],
        ['DELETE', '/v1beta/secrets/x'],
      ]) {
        const r = await h.api(m, p, m === 'POST' ? {} : undefined, null);
        expect(r.status).toBe(401);
      }
    });
  });

  describe('validation', () => {
    const post = (body: unknown) => h.api('POST', '/v1beta/secrets', body);
    const expect422 = async (body: unknown, loc: (string | number)[], type: string) => {
      const r = await post(body);
      expect(r.status, r.text).toBe(422);
      const e = r.json.detail.find((d: any) => JSON.stringify(d.loc) === JSON.stringify(loc));
      expect(e, `no entry at ${JSON.stringify(loc)} in ${r.text}`).toBeDefined();
      expect(e.type).toBe(type);
      expect(typeof e.msg).toBe('string');
      return { r, e };
    };

    it.each([
      ['name', { secret_type: 'string', value: 'v' }],
      ['secret_type', { name: 'n', value: 'v' }],
    ])('requires %s', async (field, body) => {
      await expect422(body, ['body', field], 'missing');
    });

    it('requires a body', async () => {
      await expect422(undefined, ['body'], 'missing');
    });

    it.each([
      ['username', login({ username: undefined })],
      ['username', login({ username: null })],
      ['password', login({ password: undefined })],
      ['password', login({ password: null })],
      ['value', { name: 'n', secret_type: 'string' }],
      ['value', str({ value: null })],
    ])('requires %s for its type', async (field, body) => {
      const { e } = await expect422(body, ['body', field], 'missing');
      expect(e.msg).toMatch(/secret_type/);
    });

    it.each([
      ['value', login({ value: 'x' })],
      ['username', str({ username: 'x' })],
      ['password', str({ password: 'x' })],
      ['totp_secret', str({ totp_secret: SEED })],
    ])('rejects %s of the other type', async (field, body) => {
      const { e } = await expect422(body, ['body', field], 'value_error');
      expect(e.msg).toMatch(/not allowed/);
      expect(e).not.toHaveProperty('input');
    });

    it('reports every broken rule at once', async () => {
      const r = await post({ name: 'n', secret_type: 'string', username: 'x' });
      expect(r.json.detail.map((d: any) => d.loc[1]).sort()).toEqual(['username', 'value']);
    });

    it.each(['not base32!!!!!!!!', 'JBSWY3DPEHPK3PX', 'JBSWY3DPEHPK3PX1', '', '===='])('rejects totp_secret %j', async (seed) => {
      const { e } = await expect422(login({ totp_secret: seed }), ['body', 'totp_secret'], 'value_error');
      expect(e.msg).toMatch(/base32/);
      expect(e).not.toHaveProperty('input');
    });

    it('rejects an unknown secret_type with enum', async () => {
      const { e } = await expect422(login({ secret_type: 'card' }), ['body', 'secret_type'], 'enum');
      expect(e.input).toBe('card');
      expect(e.ctx).toEqual({ expected: "'login' or 'string'" });
    });

    it.each([
      ['name', 5],
      ['name', null],
      ['secret_type', 1],
      ['username', 7],
      ['password', true],
      ['totp_secret', ['x']],
      ['value', { a: 1 }],
      ['website', 3],
    ])('rejects %s of the wrong type', async (field, bad) => {
      const base = field === 'value' ? str() : login();
      const { e } = await expect422({ ...base, [field]: bad }, ['body', field], 'string_type');
      if (['username', 'password', 'totp_secret', 'value'].includes(field)) expect(e).not.toHaveProperty('input');
      else expect(e.input).toEqual(bad);
    });

    it.each([
      ['name', '', 'string_too_short'],
      ['name', 'n'.repeat(201), 'string_too_long'],
      ['username', '', 'string_too_short'],
      ['username', 'u'.repeat(1025), 'string_too_long'],
      ['password', '', 'string_too_short'],
      ['password', 'p'.repeat(4097), 'string_too_long'],
      ['totp_secret', 'A'.repeat(257), 'string_too_long'],
      ['website', '', 'string_too_short'],
      ['website', 'w'.repeat(2084), 'string_too_long'],
    ])('enforces the length of %s (%j…)', async (field, bad, type) => {
      const { e } = await expect422(login({ [field]: bad }), ['body', field], type);
      expect(e.ctx).toBeDefined();
    });

    it.each([
      ['value', '', 'string_too_short'],
      ['value', 'v'.repeat(65537), 'string_too_long'],
    ])('enforces the length of %s', async (field, bad, type) => {
      await expect422(str({ [field]: bad }), ['body', field], type);
    });

    it('accepts the longest allowed values', async () => {
      await create(login({ name: 'n'.repeat(200), username: 'u'.repeat(1024), password: 'p'.repeat(4096), website: 'w'.repeat(2083) }));
      await create(str({ value: 'v'.repeat(65536) }));
    });

    it('rejects unknown fields', async () => {
      const { e } = await expect422(login({ color: 'blue' }), ['body', 'color'], 'extra_forbidden');
      expect(e.input).toBe('blue');
    });

    it('rejects a body that is not an object, without echoing it', async () => {
      for (const body of [[1, 2], '"text"', '42']) {
        const { e } = await expect422(body, ['body'], 'dict_type');
        expect(e).not.toHaveProperty('input');
      }
    });

    it('rejects malformed JSON with json_invalid', async () => {
      const r = await post('{"name": "n", "secret_type": ');
      expect(r.status).toBe(422);
      expect(r.json.detail[0]).toMatchObject({ type: 'json_invalid' });
      expect(r.json.detail[0].loc[0]).toBe('body');
    });

    it('writes nothing on a 422', async () => {
      const u = await h.newUser('invalid-only');
      await h.api('POST', '/v1beta/secrets', login({ totp_secret: 'bad' }), u.key);
      await h.api('POST', '/v1beta/secrets', str({ password: 'x' }), u.key);
      expect((await h.api('GET', '/v1beta/secrets', undefined, u.key)).json).toEqual([]);
    });
  });

  describe('consistency between metadata and vault', () => {
    const failing = (real: CredentialVault, op: 'put' | 'delete'): CredentialVault => ({
      put: op === 'put' ? async () => Promise.reject(new Error('vault down')) : real.put.bind(real),
      get: real.get.bind(real),
      delete: op === 'delete' ? async () => Promise.reject(new Error('vault down')) : real.delete.bind(real),
      close: async () => {},
    });

    it('leaves no metadata row when the vault put fails', async () => {
      const u = await h.newUser('put-fails');
      const svc = new SecretsService({ db: h.services.db, vault: failing(h.services.vault, 'put') });
      await expect(svc.create(u.userId, { name: 'n', secret_type: 'string', value: 'v' })).rejects.toThrow('vault down');
      expect(await svc.list(u.userId)).toEqual([]);
    });

    it('keeps the secret intact when the vault delete fails', async () => {
      const u = await h.newUser('delete-fails');
      const s = await create(login(), u.key);
      const svc = new SecretsService({ db: h.services.db, vault: failing(h.services.vault, 'delete') });
      await expect(svc.delete(u.userId, s.id)).rejects.toThrow('vault down');
      expect((await svc.list(u.userId)).map((x) => x.id)).toEqual([s.id]);
      expect(await h.services.secrets.resolve(u.userId, s.id)).not.toBeNull();
    });
  });

  it('documents the routes in OpenAPI without credential fields in responses', async () => {
    const doc = (await h.api('GET', '/openapi.json', undefined, null)).json;
    const post = doc.paths['/v1beta/secrets'].post;
    const ok = post.responses['200'].content['application/json'].schema;
    expect(oneOfNames(ok)).toEqual(['Secret', 'TaskBasedSecret']);
    expect(post.responses['422']).toBeDefined();
    const ops = Object.values(doc.paths as Record<string, any>)
      .flatMap((p: any) => Object.values(p))
      .filter((op: any) => op.tags?.includes('Secrets'));
    expect(ops).toHaveLength(4);
    const props = new Set<string>();
    const walk = (v: any): void => {
      if (Array.isArray(v)) return v.forEach(walk);
      if (!v || typeof v !== 'object') return;
      if (v.$ref) return walk(deref(doc, v));
      if (v.properties) Object.keys(v.properties).forEach((k) => props.add(k));
      Object.values(v).forEach(walk);
    };
    ops.forEach((op: any) => walk(op.responses));
    expect(props.size).toBeGreaterThan(5);
    for (const f of ['username', 'password', 'totp_secret', 'value']) expect(props.has(f)).toBe(false);
    expect(doc.paths['/v1beta/secrets/{id}/totp'].post).toBeDefined();
    expect(doc.paths['/v1beta/secrets/{id}'].delete).toBeDefined();
  });
});
