// Acceptance through the LIVE VIEW on WordPress: a person signs in on wp-login.php with pasted
// secrets, opens the admin's posts table from the URL bar and picks one row ("pick what you want
// back"); synthesis with NO hints generalises the picked row to the whole table, and the connector
// returns every post, checked against WordPress's database. Opt-in: ACCEPTANCE=1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openChromium } from '../../src/browser/chromium.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pasteSignIn } from '../helpers/live-view.js';
import { APPS, appInstalled, serveApp, wordpressFirstPosts } from '../helpers/real-apps.js';
import { loginSecret, run } from '../helpers/runs.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.wordpress);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!ready)('WordPress through the live view (sqlite)', () => {
  let h: Harness;
  let wp: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let ref: Page; // a reference rendering at the session's viewport, for coordinates only
  beforeAll(async () => {
    wp = await serveApp(APPS.wordpress);
    h = await startHarness('sqlite', { CAPTURE_WARM_CONTEXTS: '0' });
    browser = await openChromium();
    ref = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await wp?.close();
  });

  it('sign in (pasted secrets), open the posts table, pick one row: the connector returns every post', async () => {
    const secret = await loginSecret(h, 'admin', 'wp-admin-pass-1');
    const { session: s, d } = await pasteSignIn(h, ref, {
      loginUrl: `${wp.url}/wp-login.php`,
      secretId: secret,
      userField: '#user_login',
      passwordField: '#user_pass',
      landed: '/wp-admin/',
    });
    d.navigate(`${wp.url}/wp-admin/edit.php`);
    await expect.poll(d.url, { timeout: 15_000 }).toContain('edit.php');
    await sleep(800);
    d.ws.send(JSON.stringify({ t: 'pick_at', selector: '#the-list tr:nth-child(2) .row-title', record: true }));
    await sleep(500);
    expect((await h.api('POST', `/v1beta/capture_sessions/${s.id}/complete`)).status).toBe(202);
    await expect
      .poll(async () => (await h.api('GET', `/v1beta/capture_sessions/${s.id}`)).json.state, { timeout: 15_000 })
      .toBe('completed');
    const rec = await h.api('GET', `/v1beta/capture_sessions/${s.id}/recording`);
    expect(rec.text).not.toContain('wp-admin-pass-1');

    const c = await h.api('POST', '/v1beta/connectors', { display_name: 'posts', purpose: 'list the posts', capture_session_id: s.id });
    expect(c.status, c.text).toBe(200);
    expect(c.json.required_secrets).toEqual([expect.objectContaining({ type: 'login' })]);
    const slot = c.json.required_secrets[0].name;
    const out = await run(h, { connector_id: c.json.id, secret_bindings: { [slot]: secret } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    const { must, may } = wordpressFirstPosts(['publish']);
    const titles = may.map(([, t]) => t);
    const items = (Object.values(out.result).find(Array.isArray) ?? []) as any[];
    // The first page: every post newer than the 20th, the rest among those tied with it (the same second).
    const got = items.map((i) => Object.values(i).find((v) => titles.includes(v as string)));
    expect(got, JSON.stringify(out.result).slice(0, 800)).toHaveLength(Math.min(20, may.length));
    for (const t of got) expect(titles).toContain(t);
    for (const [, t] of must) expect(got).toContain(t);
  }, 120_000);
});
