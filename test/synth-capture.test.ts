// The whole loop from a capture session: a person signs in (pasted password and TOTP), searches
// and pages through results in the live view (its WebSocket protocol: clicks at coordinates,
// typed text, Enter), completes; POST /v1beta/connectors with capture_session_id and NO hints
// synthesizes from the action log and secret markers; the connector then runs with a NEW query.
// RECORD_FIXTURES=1 stores the recording as test/fixtures/capture/search-totp.har.json.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Browser, Page } from 'playwright-core';
import { TOTP, Secret } from 'otpauth';
import { openChromium } from '../src/browser/chromium.js';
import { startDemoSite, BOB_TOTP_SEED, type DemoSite } from '../examples/demo-site/server.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, run } from './helpers/runs.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('synthesis from a capture session (sqlite)', () => {
  let site: DemoSite;
  let h: Harness;
  let browser: Browser;
  let ref: Page; // reference rendering at the session's viewport, for coordinates only
  let ws: WebSocket;
  let url = '';
  let bob: string;

  beforeAll(async () => {
    site = await startDemoSite();
    // Many TOTP logins in a row (each would wait for a fresh 30 s step): single-use codes are test/totp-single-use.test.ts's.
    h = await startHarness('sqlite', { CAPTURE_WARM_CONTEXTS: '0', TOTP_CODE_REUSE: 'allow' });
    browser = await openChromium();
    ref = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    bob = await loginSecret(h, 'bob', 'builder', BOB_TOTP_SEED);
  });
  afterAll(async () => {
    ws?.close();
    await browser?.close();
    await h?.close();
    await site?.close();
  });

  const send = (m: object) => ws.send(JSON.stringify(m));
  async function click(selector: string) {
    const b = (await ref.locator(selector).boundingBox())!;
    const at = { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    send({ t: 'mouse', type: 'down', ...at, button: 'left', clickCount: 1 });
    send({ t: 'mouse', type: 'up', ...at, button: 'left', clickCount: 1 });
    await sleep(200);
  }
  const press = async (key: string) => {
    send({ t: 'key', type: 'down', key });
    send({ t: 'key', type: 'up', key });
    await sleep(200);
  };
  const at = (u: string) => expect.poll(() => url, { timeout: 10_000 }).toBe(u);

  it('records a person signing in with pasted secrets, searching and paging', async () => {
    const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: `${site.url}/login` })).json;
    ws = new WebSocket(s.iframe_url.replace(/^http/, 'ws').replace(/\/live\/([^?]+)/, '/live/$1/ws'));
    ws.on('message', (d, bin) => {
      if (!bin) url = JSON.parse(String(d)).url ?? url;
    });
    await new Promise((r) => ws.once('open', r));
    await at(`${site.url}/login`);
    await ref.goto(`${site.url}/login`);
    const paste = async (field: string) =>
      expect((await h.api('POST', `/v1beta/capture_sessions/${s.id}/paste`, { field, secret_id: bob })).status).toBe(204);
    await click('#username');
    await paste('username');
    await click('#password');
    await paste('password');
    await press('Enter');
    await at(`${site.url}/login/totp`);
    await ref.fill('#username', 'bob');
    await ref.fill('#password', 'builder');
    await ref.click('[data-testid=login-submit]');
    await ref.waitForURL('**/login/totp');
    await click('#code');
    await paste('totp');
    await click('[data-testid=totp-submit]');
    await at(`${site.url}/items`);
    await ref.fill('#code', TOTP.generate({ secret: Secret.fromBase32(BOB_TOTP_SEED) }));
    await ref.click('[data-testid=totp-submit]');
    await ref.waitForURL('**/items');

    send({ t: 'navigate', url: `${site.url}/search` });
    await at(`${site.url}/search`);
    await ref.goto(`${site.url}/search`);
    await sleep(300);
    await click('#q');
    send({ t: 'text', text: 'gamma' });
    await press('Enter');
    await ref.fill('#q', 'gamma');
    await ref.press('#q', 'Enter');
    await ref.waitForSelector('#status[data-state=done]');
    await sleep(700);
    await click('[data-testid=load-more]');
    await sleep(700);
    expect((await h.api('POST', `/v1beta/capture_sessions/${s.id}/complete`)).status).toBe(202);
    await expect
      .poll(async () => (await h.api('GET', `/v1beta/capture_sessions/${s.id}`)).json.state, { timeout: 15_000 })
      .toBe('completed');
    const rec = await h.api('GET', `/v1beta/capture_sessions/${s.id}/recording`);
    expect(rec.text).not.toContain('builder');
    if (process.env.RECORD_FIXTURES === '1')
      fs.writeFileSync(
        path.join(__dirname, 'fixtures/capture/search-totp.har.json'),
        JSON.stringify(rec.json, null, 1).split(site.url).join('http://127.0.0.1:47811'),
      );

    // Synthesis needs no hints: the typed query and the pasted secrets come from the action log.
    const c = await h.api('POST', '/v1beta/connectors', { display_name: 'search', purpose: 'search the shop', capture_session_id: s.id });
    expect(c.status, c.text).toBe(200);
    expect(c.json.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login', supports_totp: true })]);
    const arg = Object.keys(c.json.input_schema.properties);
    expect(arg).toEqual(['q']);
    const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    expect(def.meta).toMatchObject({ capture_session_id: s.id, validation: { replayed: true } });
    expect(def.login.steps.map((x: any) => `${x.method ?? 'GET'} ${x.url}`)).toEqual(['GET /login', 'POST /login', 'POST /login/totp']);
    expect(JSON.stringify(def)).not.toMatch(/\{\{secret:/);

    const out = await run(h, { connector_id: c.json.id, arguments: { q: 'epsilon' }, secret_bindings: { account: bob } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.items.map((i: any) => i.id)).toEqual([5, 10, 15, 20, 25, 30, 35, 40]);
    expect(out.result.items.every((i: any) => i.name.startsWith('Epsilon '))).toBe(true);

    // The same recording as a browser connector (sites that block non-browser clients).
    const b = await h.api('POST', '/v1beta/connectors', {
      display_name: 'search (browser)',
      purpose: 'search the shop',
      capture_session_id: s.id,
      hints: { prefer_browser: true },
    });
    expect(b.status, b.text).toBe(200);
    const bout = await run(h, { connector_id: b.json.id, arguments: { q: 'beta' }, secret_bindings: { account: bob } });
    expect(bout.status, JSON.stringify(bout.error)).toBe('success');
    expect(bout.result.items.map((i: any) => i.id)).toEqual([2, 7, 12, 17, 22]);
    expect(bout.result.items[0]).toMatchObject({ name: 'Beta Sprocket', price: 74.99 });
  });
});
