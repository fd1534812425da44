// Acceptance through the LIVE VIEW on a single-page app, Directus 10: a person signs in with pasted
// secrets, opens a collection and types into its live filter box (a Vue input with no name, id or
// label: the argument is named by its placeholder), and ends the session there. The connector comes from the capture
// session alone (no hints) and runs with a NEW query; the truth is Directus's own API.
// Opt-in: ACCEPTANCE=1.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../../src/browser/chromium.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { completeCapture, pasteSignIn } from '../helpers/live-view.js';
import { APPS, appInstalled, DIRECTUS_ADMIN, directusApi, directusForgetViews, serveApp } from '../helpers/real-apps.js';
import { loginSecret, run } from '../helpers/runs.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.directus);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const { email: EMAIL, password: PASSWORD } = DIRECTUS_ADMIN;

describe.skipIf(!ready)('Directus through the live view (sqlite)', () => {
  let h: Harness;
  let dx: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let ref: Page; // a reference rendering at the session's viewport, for coordinates only
  const api = (method: string, path: string) => directusApi(dx.url, method, path);
  beforeAll(async () => {
    dx = await serveApp(APPS.directus);
    h = await startHarness('sqlite', { CAPTURE_WARM_CONTEXTS: '0' });
    browser = await openChromium();
    ref = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await directusForgetViews(dx.url); // (the app remembers a list's last search: start from none)
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await dx?.close();
  });

  it('sign in (pasted secrets), type into the live filter box: the connector returns the hits of a NEW query', async () => {
    const secret = await loginSecret(h, EMAIL, PASSWORD);
    const { session: s, d } = await pasteSignIn(h, ref, {
      loginUrl: `${dx.url}/admin/login`,
      secretId: secret,
      userField: 'input[type=email]',
      passwordField: 'input[type=password]',
      landed: '/admin/content',
    });
    // The reference rendering signs in on its own, for where things are on the list's screen.
    await ref.fill('input[type=email]', EMAIL);
    await ref.fill('input[type=password]', PASSWORD);
    await Promise.all([ref.waitForURL(/\/admin\/content/), ref.click('button[type=submit]')]);
    await ref.goto(`${dx.url}/admin/content/books`);
    await ref.waitForSelector('text=The Broken Fence');
    d.navigate(`${dx.url}/admin/content/books`);
    await expect.poll(d.url, { timeout: 15_000 }).toContain('/content/books');
    // The box opens on a click and takes the typing; nothing ends it (no Enter, no other click).
    // The app saves the list's search as a preset once it filtered: that says the typing landed
    // (a slow app may still be loading the list at the first click: then it is done again).
    const searched = async () =>
      ((await api('GET', '/presets?limit=-1&fields[]=search')) as { search: string | null }[]).some((p) => p.search === 'Clara');
    for (let attempt = 1; ; attempt++) {
      await sleep(attempt === 1 ? 4000 : 2000); // (the app loads its settings, fields and the list before the box works)
      await d.click('.search-input');
      await sleep(1000);
      await d.chord('Control', 'a');
      d.text('Clara');
      try {
        await expect.poll(searched, { timeout: 20_000 }).toBe(true);
        break;
      } catch (e) {
        if (attempt === 3) throw e;
      }
    }
    await sleep(1000); // (the list's own request for the search has its answer)
    const rec = await completeCapture(h, s.id);
    expect(JSON.stringify(rec)).not.toContain(PASSWORD);

    const c = await h.api('POST', '/v1beta/connectors', {
      display_name: 'books search',
      purpose: 'search the books',
      capture_session_id: s.id,
    });
    expect(c.status, c.text).toBe(200);
    const args = Object.keys(c.json.input_schema.properties);
    expect(args).toHaveLength(1);
    const slot = c.json.required_secrets[0].name;
    const out = await run(h, { connector_id: c.json.id, arguments: { [args[0]!]: 'Basil' }, secret_bindings: { [slot]: secret } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    const truth: { title: string }[] = await api('GET', '/items/books?limit=-1&search=Basil&fields[]=title');
    expect(truth.length).toBeGreaterThan(1);
    const items = (out.result.data ?? Object.values(out.result).find(Array.isArray)) as { title: string }[];
    expect(items.map((i) => i.title).sort(), JSON.stringify(out.result).slice(0, 600)).toEqual(truth.map((t) => t.title).sort());
    // Named by what the box says to a person (its placeholder): it has no name, id or label.
    expect(args).toEqual(['search_items']);
  }, 180_000);
});
