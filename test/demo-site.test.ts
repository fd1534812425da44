// The fixture website (examples/demo-site) over real HTTP, as a connector would see it: fetch with
// a hand-rolled cookie jar and no redirect following, plus one real-Chromium run of the page that
// signs its requests in JavaScript.
import { existsSync } from 'node:fs';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BOB_TOTP_SEED, startDemoSite, type DemoSite } from '../examples/demo-site/server.js';
import { signatureFor } from '../examples/demo-site/signed.js';

const CHROMIUM = '/usr/bin/chromium';

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** One "browser profile": cookies persist across requests, redirects are returned, not followed. */
class Client {
  readonly jar = new Map<string, string>();
  constructor(readonly base: string) {}

  async send(
    method: string,
    path: string,
    opts: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.jar.size) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(opts.form).toString();
    } else if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    const res = await fetch(this.base + path, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      if (/max-age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, pair.slice(eq + 1));
    }
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }
  get = (path: string, headers?: Record<string, string>) => this.send('GET', path, { headers });
}

const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
const totpNow = (offsetSteps = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(BOB_TOTP_SEED), timestamp: Date.now() + offsetSteps * 30_000 });

describe('demo site', () => {
  let site: DemoSite;
  const client = () => new Client(site.url);

  async function login(username = 'alice', password = 'wonderland'): Promise<Client> {
    const c = client();
    const token = csrfOf((await c.get('/login')).text);
    const r = await c.send('POST', '/login', { form: { csrf_token: token, username, password } });
    expect(r.status).toBe(303);
    return c;
  }

  beforeAll(async () => {
    site = await startDemoSite();
  });
  afterAll(async () => site?.close());
  beforeEach(async () => {
    expect((await fetch(`${site.url}/__reset`, { method: 'POST' })).status).toBe(204);
  });
  const control = (body: unknown) =>
    fetch(`${site.url}/__control`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('logs in with a CSRF token tied to the pre-session cookie and sets an HttpOnly session', async () => {
    const c = client();
    const page = await c.get('/login?next=/account');
    expect(page.status).toBe(200);
    expect(page.text).toContain('autocomplete="current-password"');
    const token = csrfOf(page.text);
    expect(token).not.toBe('');
    const creds = { username: 'alice', password: 'wonderland', next: '/account' };

    expect((await c.send('POST', '/login', { form: creds })).status).toBe(403);
    expect((await c.send('POST', '/login', { form: { ...creds, csrf_token: 'forged' } })).status).toBe(403);
    // The right token from another visitor's pre-session doesn't count either.
    expect((await client().send('POST', '/login', { form: { ...creds, csrf_token: token } })).status).toBe(403);

    const wrong = await c.send('POST', '/login', { form: { ...creds, password: 'nope', csrf_token: token } });
    expect(wrong.status).toBe(200);
    expect(wrong.text).toContain('Invalid username or password.');
    expect(wrong.text).toContain('id="login-form"');
    expect(c.jar.has('demo_session')).toBe(false);

    const ok = await c.send('POST', '/login', { form: { ...creds, csrf_token: token } });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/account');
    expect(ok.headers.getSetCookie().find((l) => l.startsWith('demo_session='))).toMatch(/HttpOnly/);
    expect((await c.get('/api/account')).json).toMatchObject({ username: 'alice', plan: 'free', two_factor: false });
  });

  it('asks bob for a TOTP code and then shows his account', async () => {
    const c = client();
    const token = csrfOf((await c.get('/login')).text);
    const first = await c.send('POST', '/login', { form: { csrf_token: token, username: 'bob', password: 'builder' } });
    expect(first.headers.get('location')).toBe('/login/totp');
    expect((await c.get('/api/account')).status).toBe(401);

    const totpPage = await c.get('/login/totp');
    expect(totpPage.text).toContain('autocomplete="one-time-code"');
    const valid = new Set([-1, 0, 1].map(totpNow));
    let bad = '000000';
    while (valid.has(bad)) bad = String(Number(bad) + 1).padStart(6, '0');
    const rejected = await c.send('POST', '/login/totp', { form: { csrf_token: csrfOf(totpPage.text), code: bad } });
    expect(rejected.status).toBe(200);
    expect(rejected.text).toContain('Invalid authentication code.');

    const ok = await c.send('POST', '/login/totp', { form: { csrf_token: csrfOf(totpPage.text), code: totpNow() } });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/items');
    const account = await c.get('/account');
    expect(account.text).toContain('<dd data-field="plan">pro</dd>');
    expect((await c.get('/api/account')).json).toMatchObject({ username: 'bob', balance: 1024, two_factor: true });
  });

  it('paginates the JSON search (page/limit and cursor) over deterministic items', async () => {
    const c = await login();
    const p1 = (await c.get('/api/search?q=gamma&page=1&limit=5')).json;
    const p2 = (await c.get('/api/search?q=gamma&page=2&limit=5')).json;
    expect(p1).toMatchObject({ page: 1, limit: 5, total: 8, has_more: true });
    expect(p2).toMatchObject({ page: 2, limit: 5, total: 8, has_more: false });
    const items = [...p1.items, ...p2.items];
    expect(items.map((i: any) => i.id)).toEqual([3, 8, 13, 18, 23, 28, 33, 38]);
    expect(items[0]).toEqual({
      id: 3,
      name: 'Gamma Gizmo',
      category: 'kitchen',
      price: 11.99,
      in_stock: false,
      created_at: '2024-01-03T11:00:00.000Z',
    });
    for (const it of items) {
      expect(it.name).toMatch(/^Gamma /);
      expect(typeof it.price).toBe('number');
      expect(typeof it.in_stock).toBe('boolean');
    }
    expect((await c.get('/api/search')).json).toMatchObject({ total: 40, limit: 10 });
    expect((await c.get('/api/search?limit=500')).status).toBe(400);

    const viaCursor: number[] = [];
    let cursor: string | null = '';
    do {
      const r: any = (await c.get(`/api/items?q=gamma&limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json;
      viaCursor.push(...r.items.map((i: any) => i.id));
      cursor = r.next_cursor;
    } while (cursor);
    expect(viaCursor).toEqual([3, 8, 13, 18, 23, 28, 33, 38]);

    const list = await c.get('/items?q=gamma');
    expect(list.text.match(/data-testid="item-row"/g)).toHaveLength(8);
    expect(list.text).toContain('<a href="/items/3">Gamma Gizmo</a>');
  });

  it('answers 401 JSON or a login redirect when logged out', async () => {
    const c = client();
    const api = await c.get('/api/search?q=gamma');
    expect(api.status).toBe(401);
    expect(api.json).toEqual({ error: 'not_authenticated', detail: 'sign in first' });
    const page = await c.get('/items/3');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2Fitems%2F3');

    const alice = await login();
    expect((await alice.get('/api/search')).status).toBe(200);
    await control({ expire_sessions: true });
    expect((await alice.get('/api/search')).status).toBe(401);
  });

  it('creates an item through the CSRF-protected form and as JSON', async () => {
    const c = await login();
    const form = await c.get('/items/new');
    const token = csrfOf(form.text);
    expect(c.jar.get('demo_csrf')).toBe(token);
    const fields = { name: 'Zeta Anvil', category: 'tools', price: '19.50', in_stock: 'on' };

    expect((await c.send('POST', '/items', { form: fields })).status).toBe(403);
    const invalid = await c.send('POST', '/items', { form: { ...fields, price: 'cheap', csrf_token: token } });
    expect(invalid.status).toBe(422);
    const created = await c.send('POST', '/items', { form: { ...fields, csrf_token: token } });
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/items/41');
    const detail = await c.get('/items/41');
    expect(detail.text).toContain('<dd data-field="name">Zeta Anvil</dd>');
    expect(detail.text).toContain('<span data-field="price">19.50</span>');

    const asJson = await c.send('POST', '/items', {
      json: { name: 'Eta Bucket', category: 'garden', price: 3 },
      headers: { 'x-csrf-token': token },
    });
    expect(asJson.status).toBe(201);
    expect(asJson.json).toMatchObject({ id: 42, item: { name: 'Eta Bucket', price: 3, in_stock: false } });
    expect((await c.get('/api/items/42')).json.name).toBe('Eta Bucket');
  });

  it('exports the search as a CSV attachment', async () => {
    const c = await login();
    const r = await c.get('/export.csv?q=gamma');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="items.csv"');
    const lines = r.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,name,category,price,in_stock,created_at');
    expect(lines).toHaveLength(9);
    expect(lines[1]).toBe('3,Gamma Gizmo,kitchen,11.99,false,2024-01-03T11:00:00.000Z');
  });

  it('answers 503 from /api/flaky on demand', async () => {
    const flaky = () => fetch(`${site.url}/api/flaky`).then((r) => r.status);
    expect(await flaky()).toBe(200);
    expect((await fetch(`${site.url}/api/flaky?fail=1`)).status).toBe(503);
    await control({ flaky: true });
    expect(await flaky()).toBe(503);
    await control({ flaky: 2 });
    expect([await flaky(), await flaky(), await flaky()]).toEqual([503, 503, 200]);
    expect((await control({ flaky: 'sometimes' })).status).toBe(400);
  });

  it('shows a challenge page on demand, and the whole site can be down', async () => {
    const c = await login();
    await control({ challenge: true });
    for (const path of ['/items', '/api/search?q=a', '/login']) {
      const r = await c.get(path);
      expect(r.status).toBe(403);
      expect(r.text).toContain('<div id="challenge"');
      expect(r.text).toContain('Verify you are human');
    }
    await control({ challenge: false, outage: true });
    expect((await c.get('/api/search')).status).toBe(503);
    await control({ outage: false });
    expect((await c.get('/api/search')).status).toBe(200);
  });

  it('renames the detail page hooks when markup is "changed"', async () => {
    const c = await login();
    expect((await c.get('/items/3')).text).toContain('<dd data-field="name">Gamma Gizmo</dd>');
    expect((await control({ changed_markup: true })).status).toBe(200);
    const changed = await c.get('/items/3');
    expect(changed.text).not.toContain('data-field=');
    expect(changed.text).toContain('<dd data-prop="name">Gamma Gizmo</dd>');
    expect((await c.get('/items')).text).toContain('data-testid="product-row"');
  });

  it('rejects unsigned, forged, stale and replayed signed-search requests', async () => {
    const c = await login();
    const page = await c.get('/signed');
    const [pageId, signing] = [...site.state.signingPages].at(-1)!;
    // The key travels only obfuscated, so a regex over the recorded page can't lift it.
    expect(page.text).not.toContain(signing.key.toString('hex'));
    expect(page.text).not.toContain(signing.key.toString('base64'));

    const call = (q: string, ts: string, nonce: string, sig?: string, client = c) =>
      client.get(`/api/signed-search?${new URLSearchParams({ q, page: '1', ts, nonce })}`, {
        ...(sig ? { 'x-signature': sig } : {}),
        'x-page-id': pageId,
      });
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = signatureFor(signing.key, 'gamma', '1', ts, 'n0nce-1');

    expect((await call('gamma', ts, 'n0nce-1')).json.error).toBe('missing_signature');
    expect((await call('gamma', ts, 'n0nce-1', 'ab'.repeat(32))).json.error).toBe('bad_signature');
    expect((await call('delta', ts, 'n0nce-1', sig)).json.error).toBe('bad_signature');
    const old = String(Number(ts) - 120);
    expect((await call('gamma', old, 'n0nce-2', signatureFor(signing.key, 'gamma', '1', old, 'n0nce-2'))).json.error).toBe(
      'stale_timestamp',
    );
    expect((await call('gamma', ts, 'n0nce-1', sig, await login())).json.error).toBe('unknown_page');

    const good = await call('gamma', ts, 'n0nce-1', sig);
    expect(good.status).toBe(200);
    expect(good.json).toMatchObject({ total: 8, has_more: true });
    expect(good.json.items).toHaveLength(5);
    const replay = await call('gamma', ts, 'n0nce-1', sig);
    expect(replay.status).toBe(403);
    expect(replay.json.error).toBe('nonce_reused');
  });

  const haveChromium = existsSync(CHROMIUM);
  it.skipIf(!haveChromium)(
    `signed search works in Chromium${haveChromium ? '' : ` (SKIPPED: ${CHROMIUM} not installed; apt-get install -y chromium)`}`,
    async () => {
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          '--disable-quic',
        ],
      });
      try {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${site.url}/signed`);
        // Redirected to the login form with ?next=/signed.
        await page.getByTestId('username').fill('alice');
        await page.getByTestId('password').fill('wonderland');
        await page.getByTestId('login-submit').click();
        await page.waitForURL(`${site.url}/signed`);

        await page.getByTestId('search-input').fill('gamma');
        const requestSeen = page.waitForRequest((r) => r.url().includes('/api/signed-search'));
        await page.getByTestId('search-submit').click();
        const request = await requestSeen;
        await page.locator('#status[data-state="done"]').waitFor();
        expect(await page.getByTestId('result-row').count()).toBe(5);
        await page.getByTestId('load-more').click();
        await expect.poll(() => page.getByTestId('result-row').count()).toBe(8);
        expect(await page.getByTestId('result-row').first().textContent()).toContain('Gamma Gizmo');

        // The same request replayed over plain HTTP, with the browser's own cookies: refused.
        const replay = await context.request.get(request.url(), { headers: await request.allHeaders() });
        expect(replay.status()).toBe(403);
        expect((await replay.json()).error).toBe('nonce_reused');
      } finally {
        await browser.close();
      }
    },
  );
});
