// Recordings made through real capture sessions (test/fixtures/capture/record.ts: the live view,
// pasted secrets) uploaded as files — a capture recording is a HAR — and synthesized with only
// hints.secrets naming this server's stored logins; each connector then runs with NEW arguments.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoSite, BOB_TOTP_SEED } from '../examples/demo-site/server.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, run } from './helpers/runs.js';
import { fixtureHar, synthesizeFrom } from './helpers/synth.js';

describe('synthesis from capture-session recordings (sqlite)', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    site = await startDemoSite();
    // Many TOTP logins in a row (each would wait for a fresh 30 s step): single-use codes are test/totp-single-use.test.ts's.
    h = await startHarness('sqlite', { TOTP_CODE_REUSE: 'allow' });
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
  const make = async (name: string, hints: Record<string, unknown>) => {
    const r = await synthesizeFrom(h, fixtureHar(`capture/${name}`, site.url), { hints });
    expect(r.status, r.text).toBe(200);
    return r.json;
  };
  const go = async (id: string, args: Record<string, unknown>, secret: string) => {
    const out = await run(h, { connector_id: id, arguments: args, secret_bindings: { account: secret } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    return out.result;
  };

  it('(b) TOTP login then the account page', async () => {
    const c = await make('b-totp-account', { secrets: { account: bob } });
    expect(c.required_secrets[0]).toMatchObject({ supports_totp: true });
    expect(await go(c.id, {}, bob)).toMatchObject({ username: 'bob', plan: 'pro', balance: 1024 });
  });

  it('(c) create through the form (typed fields, a select, a checkbox) with a new item', async () => {
    const c = await make('c-create', { secrets: { account: alice }, allow_side_effects: true });
    expect(Object.keys(c.input_schema.properties)).toEqual(['name', 'category', 'price', 'description']);
    const r = await go(c.id, { name: 'Garden Gnome', category: 'garden', price: 9.25, description: 'Small' }, alice);
    expect(r).toMatchObject({ name: 'Garden Gnome', category: 'garden', price: 9.25, description: 'Small' });
    expect(site.state.items.at(-1)).toMatchObject({ id: r.id, name: 'Garden Gnome' });
  });

  it('(d) list then detail', async () => {
    const c = await make('d-list-detail', { secrets: { account: alice } });
    const r = await go(c.id, { q: 'alpha' }, alice);
    expect(r.items.map((i: any) => i.item_id)).toEqual([1, 6, 11, 16, 21, 26, 31, 36]);
    expect(r.detail).toMatchObject({ id: 1, name: 'Alpha Widget', category: 'tools' });
  });

  it('(e) CSV export as a run output file', async () => {
    const c = await make('e-csv', { secrets: { account: alice }, arguments: { query: 'gamma' } });
    const r = await go(c.id, { query: 'epsilon' }, alice);
    expect(r).toMatchObject({ filename: 'items.csv', lines: 9 });
    const url = (await h.api('GET', `/v1beta/files/${r.file_id}/download_url`)).json.url;
    expect((await (await fetch(url)).text()).split('\r\n')[1]).toMatch(/^5,Epsilon /);
  });

  it('(f) signed search through the browser fallback', async () => {
    const c = await make('f-signed', { secrets: { account: alice } });
    const r = await go(c.id, { q: 'kettle' }, alice);
    expect(r.total).toBe(5);
    expect(r.items.every((i: any) => i.name.endsWith(' Kettle'))).toBe(true);
  });
});
