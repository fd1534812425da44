// Synthesis over the API: HARs recorded by a plain Playwright script against the demo site are
// uploaded through the files API with hints, synthesized, replay-validated in the run sandbox and
// published; then the connector runs via POST /v1beta/runs with NEW arguments and the result's
// content is checked against the live demo site.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoSite, BOB_TOTP_SEED } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, logsOf, run } from './helpers/runs.js';
import { fixtureHar, synthesizeFrom, uploadText } from './helpers/synth.js';
import { har as har1 } from './helpers/har-fragment.js';

describe.each(await backends())('synthesis API (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    site = await startDemoSite();
    // Many TOTP logins in a row (each would wait for a fresh 30 s step): single-use codes are test/totp-single-use.test.ts's.
    h = await startHarness(backend, { TOTP_CODE_REUSE: 'allow' });
    alice = await loginSecret(h, 'alice', 'wonderland');
    bob = await loginSecret(h, 'bob', 'builder', BOB_TOTP_SEED);
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });
  beforeEach(async () => {
    await fetch(`${site.url}/__reset`, { method: 'POST' });
  });
  const har = (n: string) => fixtureHar(n, site.url);

  it('(a) logged-in search with pagination: synthesized, validated, runs with a new query', async () => {
    const r = await synthesizeFrom(h, har('a-search'), {
      website: site.url,
      hints: { arguments: { query: 'gamma' }, secrets: { account: alice } },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      version: 1,
      required_secrets: [{ name: 'account', type: 'login', supports_totp: false }],
      input_schema: { properties: { query: { type: 'string' } }, required: ['query'] },
    });
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.validation).toMatchObject({ replayed: true, changed_argument: 'query' });
    expect(def.meta.recording_file_id).toBeTruthy();
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'delta' }, secret_bindings: { account: alice } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.items.map((i: any) => i.id)).toEqual([4, 9, 14, 19, 24, 29, 34, 39]);
    expect(out.result.items[0]).toEqual({
      id: 4,
      name: 'Delta Lantern',
      category: 'toys',
      price: 48.99,
      in_stock: true,
      created_at: '2024-01-04T12:00:00.000Z',
    });
    expect((await logsOf(h, out.id)).match(/GET [^\n]*\/api\/search/g)).toHaveLength(2);
  });

  it('(g) cursor pagination: every page of a new query', async () => {
    const r = await synthesizeFrom(h, har('g-cursor'), { hints: { arguments: { query: 'gamma' }, secrets: { account: alice } } });
    expect(r.status, r.text).toBe(200);
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'epsilon' }, secret_bindings: { account: alice } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.items.map((i: any) => i.id)).toEqual([5, 10, 15, 20, 25, 30, 35, 40]);
    expect((await logsOf(h, out.id)).match(/GET [^\n]*\/api\/items/g)).toHaveLength(3);
  });

  it('(b) login with TOTP, then the account page', async () => {
    const r = await synthesizeFrom(h, har('b-totp-account'), { hints: { secrets: { account: bob } } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.website).toBe(site.url); // defaults to the recorded site
    expect(r.json.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login', supports_totp: true })]);
    const out = await run(h, { connector_id: r.json.id, secret_bindings: { account: bob } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({
      username: 'bob',
      display_name: expect.any(String),
      email: 'bob@demo-site.test',
      plan: 'pro',
      balance: 1024,
      two_factor: 'enabled',
    });
  });

  it('(c) CSRF-protected create with allow_side_effects: the run creates a NEW item and returns it', async () => {
    const r = await synthesizeFrom(h, har('c-create'), {
      hints: {
        arguments: { name: 'Copper Teapot', category: 'kitchen', price: 23.75, description: 'A shiny copper teapot' },
        secrets: { account: alice },
        allow_side_effects: true,
      },
    });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.validation).toMatchObject({ replayed: true });
    // The validation replay created its own item with fresh free-text values, not a duplicate of the recorded one.
    expect(def.meta.validation.reason).toMatch(/fresh values for name, description/);
    expect(site.state.items.filter((i: any) => /^Copper Teapot [0-9a-f]{4}$/.test(i.name))).toHaveLength(1);
    const out = await run(h, {
      connector_id: r.json.id,
      arguments: { name: 'Brass Lamp', category: 'tools', price: 5.5, description: 'Bright' },
      secret_bindings: { account: alice },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toMatchObject({ name: 'Brass Lamp', category: 'tools', price: 5.5, in_stock: 'yes', description: 'Bright' });
    expect(out.result.id).toBeGreaterThan(40);
    expect(site.state.items.find((i: any) => i.id === out.result.id)?.name).toBe('Brass Lamp');
  });

  it('(c) without allow_side_effects the create is published unvalidated and says so', async () => {
    const r = await synthesizeFrom(h, har('c-create'), {
      hints: {
        arguments: { name: 'Copper Teapot', category: 'kitchen', price: 23.75, description: 'A shiny copper teapot' },
        secrets: { account: alice },
      },
    });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.validation).toMatchObject({ replayed: false, reason: expect.stringMatching(/allow_side_effects/) });
    expect(site.state.items.length).toBe(40);
  });

  it('(d) list then detail by id: a new query follows the first match', async () => {
    const r = await synthesizeFrom(h, har('d-list-detail'), { hints: { arguments: { query: 'delta' }, secrets: { account: alice } } });
    expect(r.status, r.text).toBe(200);
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'gamma' }, secret_bindings: { account: alice } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.items.map((i: any) => i.item_id)).toEqual([3, 8, 13, 18, 23, 28, 33, 38]);
    expect(out.result.detail).toMatchObject({
      id: 3,
      name: 'Gamma Gizmo',
      category: 'kitchen',
      price: 11.99,
      in_stock: 'no',
      created_at: '2024-01-03T11:00:00.000Z',
    });
  });

  it('(e) CSV download: a script saves the file as a run output; a new query gives a new CSV', async () => {
    const r = await synthesizeFrom(h, har('e-csv'), { hints: { arguments: { query: 'gamma' }, secrets: { account: alice } } });
    expect(r.status, r.text).toBe(200);
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'delta' }, secret_bindings: { account: alice } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toMatchObject({ filename: 'items.csv', content_type: 'text/csv', lines: 9 });
    // The export's rows, parsed by csv-parse inside the script connector, typed.
    expect(out.result.rows.map((r: any) => r.name)).toEqual([
      'Delta Lantern',
      'Delta Widget',
      'Delta Trowel',
      'Delta Gizmo',
      'Delta Compass',
      'Delta Kettle',
      'Delta Sprocket',
      'Delta Yo-yo',
    ]);
    expect(out.result.rows[0]).toMatchObject({ id: 4, price: 48.99 });
    const files = await h.api('GET', `/v1beta/files?run_id=${out.id}`);
    expect(files.json.data).toEqual([
      expect.objectContaining({ id: out.result.file_id, source: 'RUN_OUTPUT', name: 'items.csv', size_bytes: out.result.size_bytes }),
    ]);
    const url = (await h.api('GET', `/v1beta/files/${out.result.file_id}/download_url`)).json.url;
    const csv = await (await fetch(url)).text();
    const rows = csv.trim().split(/\r\n/);
    expect(rows[0]).toBe('id,name,category,price,in_stock,created_at');
    expect(rows.slice(1).map((l) => l.split(',')[1])).toEqual([
      'Delta Lantern',
      'Delta Widget',
      'Delta Trowel',
      'Delta Gizmo',
      'Delta Compass',
      'Delta Kettle',
      'Delta Sprocket',
      'Delta Yo-yo',
    ]);
  });

  // Browser runs are heavy on a shared machine and don't touch the database layer: SQLite only.
  it.skipIf(backend === 'postgres')('(f) a search signed in page JS works through the browser fallback', async () => {
    const r = await synthesizeFrom(h, har('f-signed'), { hints: { arguments: { query: 'gamma' }, secrets: { account: alice } } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def).toMatchObject({ engine: 'script', browser: true, meta: { validation: { replayed: true } } });
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'delta' }, secret_bindings: { account: alice } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toMatchObject({ total: 8, page: 1, has_more: true });
    expect(out.result.items.map((i: any) => i.name)).toEqual([
      'Delta Lantern',
      'Delta Widget',
      'Delta Trowel',
      'Delta Gizmo',
      'Delta Compass',
    ]);
  });

  it('a second recording posted to /revisions yields version 2', async () => {
    const r = await synthesizeFrom(h, har('a-search'), { hints: { arguments: { query: 'gamma' }, secrets: { account: alice } } });
    const file2 = await uploadText(h, 'second.har', har('a-search-2'));
    const v2 = await h.api('POST', `/v1beta/connectors/${r.json.id}/revisions`, {
      recording_file_id: file2,
      hints: { arguments: { query: 'gamma' }, secrets: { account: alice } },
    });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.json).toMatchObject({ id: r.json.id, version: 2, display_name: 'synthesized' });
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'alpha' }, secret_bindings: { account: alice } });
    expect(out).toMatchObject({ status: 'success', connector_version: 2 });
    expect(out.result.items).toHaveLength(8);
  });

  it('422 with a precise explanation, and nothing published', async () => {
    const before = (await h.api('GET', '/v1beta/connectors?limit=100')).json.data.length;
    // A value computed in page JS, and no page in the recording to run that JS in.
    const signed = JSON.stringify(
      har1({
        url: `${site.url}/api/flaky?nonce=9f8e7d6c5b4a39281706f5e4d3c2b1a0`,
        headers: { 'X-Sig': 'b8229299c7db6580cba12a107a7e5445' },
        body: { ok: true, status: 'operational' },
      }),
    );
    let r = await synthesizeFrom(h, signed, { hints: { result: ['operational'] } });
    expect(r.status).toBe(422);
    expect(r.json.detail.map((d: any) => d.msg).join('\n')).toMatch(
      /can't be replayed over HTTP: header x-sig = .* computed in page JavaScript/,
    );
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'recording_file_id'], ctx: { stage: 'trace' } });
    // Nothing but static assets.
    const assets = JSON.stringify({
      log: {
        version: '1.2',
        entries: [
          {
            startedDateTime: new Date().toISOString(),
            request: { method: 'GET', url: `${site.url}/a.png`, headers: [], cookies: [] },
            response: { status: 200, headers: [], cookies: [], content: { mimeType: 'image/png', size: 1 } },
          },
        ],
      },
    });
    r = await synthesizeFrom(h, assets, {});
    expect(r.status).toBe(422);
    expect(r.json.detail[0].msg).toMatch(/synthesis failed \(noise\)/);
    // Not a HAR; unknown file; unknown secret in hints.
    r = await synthesizeFrom(h, '{"hello": 1}', {});
    expect(r.json.detail[0].msg).toMatch(/not a HAR 1.2/);
    r = await h.api('POST', '/v1beta/connectors', {
      display_name: 'x',
      purpose: 'y',
      recording_file_id: '0193aaaa-0000-7000-8000-000000000000',
    });
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'recording_file_id'] });
    r = await synthesizeFrom(h, har('a-search'), { hints: { secrets: { account: '0193aaaa-0000-7000-8000-000000000000' } } });
    expect(r.json.detail[0].loc).toEqual(['body', 'hints', 'secrets', 'account']);
    // Synthesis and a hand-written definition at once.
    r = await synthesizeFrom(h, har('a-search'), { definition: {}, input_schema: {} });
    expect(r.json.detail.map((d: any) => d.loc[1]).sort()).toEqual(['definition', 'input_schema']);
    expect((await h.api('GET', '/v1beta/connectors?limit=100')).json.data.length).toBe(before);
  });

  it('a replay that fails is a 422 naming the failure; the secret value appears nowhere', async () => {
    const SENTINEL = 'Sentinel-pw-0x5eed';
    const wrong = await loginSecret(h, 'alice', SENTINEL);
    const r = await synthesizeFrom(h, har('a-search').split('wonderland').join(SENTINEL), {
      hints: { arguments: { query: 'gamma' }, secrets: { account: wrong } },
    });
    expect(r.status).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'recording_file_id'], ctx: { stage: 'replay' } });
    expect(r.json.detail[0].msg).toMatch(/replaying the plan with the recorded arguments failed: auth_required/);
    expect(r.text).not.toContain(SENTINEL);
    expect(h.logs.join('\n')).not.toContain(SENTINEL);
    expect((await h.api('GET', '/v1beta/connectors?limit=100')).json.data.every((c: any) => c.display_name !== 'never')).toBe(true);
  });
});
