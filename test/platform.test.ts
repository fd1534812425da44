// Platform behaviour shared by every route: auth, error shapes, OpenAPI, health.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';

describe.each(await backends())('platform (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  it('answers /healthz without auth', async () => {
    const r = await h.api('GET', '/healthz', undefined, null);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 'ok' });
  });

  it('rejects a missing key with 401 and WWW-Authenticate', async () => {
    const r = await h.api('GET', '/v1beta/secrets', undefined, null);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(typeof r.json.detail).toBe('string');
  });

  it('rejects an unknown, malformed or revoked key with 401', async () => {
    expect((await h.api('GET', '/v1beta/secrets', undefined, 'csk_nope')).status).toBe(401);
    const res = await fetch(`${h.url}/v1beta/secrets`, { headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(401);
    const u = await h.newUser('revokee');
    expect((await h.api('GET', '/v1beta/secrets', undefined, u.key)).status).toBe(200);
    const [info] = await h.services.users.listKeys(u.userId);
    expect(await h.services.users.revokeKey(info.id)).toBe(true);
    expect((await h.api('GET', '/v1beta/secrets', undefined, u.key)).status).toBe(401);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const r = await h.api('GET', '/v1beta/nothing-here');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: 'Not Found' });
  });

  it('serves an OpenAPI document built from the route schemas', async () => {
    const r = await h.api('GET', '/openapi.json', undefined, null);
    expect(r.status).toBe(200);
    expect(r.json.openapi).toBe('3.1.0');
    expect(r.json.components.securitySchemes.bearer.scheme).toBe('bearer');
    expect(r.json.components.schemas.HTTPValidationError).toBeDefined();
    const docs = await fetch(`${h.url}/docs`, { redirect: 'follow' });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('stores only a hash of API keys', async () => {
    const rows = await h.services.db.selectFrom('api_keys').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(JSON.stringify(row)).not.toContain(h.key);
    expect(h.key).toMatch(/^csk_[A-Za-z0-9_-]{43}$/);
  });
});
