// The console (issue 14) driven in real headless Chromium as a person would: sign in with a key,
// browse and filter connectors, run one with new arguments from the generated form (a 422 shown
// at its field, the result as a table, logs), upload a file (progress, CRC32C equal to the API's),
// create a login secret (listed, never shown back, TOTP code on demand), runs and tasks pages, and
// record a connector through the embedded live view (pasting a stored secret, typing into the
// iframe), complete, review and publish. axe-core runs on every page; screenshots go to
// test-artifacts/console/. SQLite only: the UI does not depend on the database.
// biome-ignore-all lint/performance/useDomNodeTextContent: innerText here is Playwright's Locator method, not the DOM property
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { Secret as OtpSecret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { type DemoSite, startDemoSite } from '../examples/demo-site/server.js';
import { SEARCH_INPUT, SEARCH_OUTPUT, LOGIN_SLOT, httpSearchDefinition } from './fixtures/definitions.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, publish } from './helpers/runs.js';
import { fixtureHar, synthesizeFrom, uploadText } from './helpers/synth.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const ARTIFACTS = path.join(__dirname, '..', 'test-artifacts', 'console');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const sqlite = !process.env.TEST_BACKENDS || process.env.TEST_BACKENDS.split(',').includes('sqlite');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!sqlite)('console (sqlite, real Chromium)', () => {
  let site: DemoSite;
  let h: Harness;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let alice: string;
  let synthesized: any; // from a stored HAR
  let handWritten: any; // with an integer argument and bounds
  const checked: string[] = [];

  /** axe-core on the page as it is now: no serious or critical violation; then a screenshot. */
  async function audit(name: string) {
    await page.addScriptTag({ content: AXE });
    const violations = await page.evaluate(async () => {
      const r = await (globalThis as any).axe.run(document, { resultTypes: ['violations'], iframes: false });
      return r.violations
        .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
        .map((v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join(', ')})`);
    });
    expect(violations, name).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    checked.push(name);
  }

  /**
   * In the console's embedded live view: sign in to the demo site with alice's pasted username and
   * password, open the search page from the URL bar, type `query` and press Enter.
   */
  async function signInAndSearch(query: string, shot?: string) {
    // Where the box is in the document (the live view focusing its screen may scroll the window).
    const box = page.locator('.live-box');
    const place = () =>
      box.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { top: r.top + scrollY, left: r.left + scrollX, width: r.width, height: r.height };
      });
    const before = await place();
    const live: Frame = (await (await page.waitForSelector('.live-box iframe')).contentFrame())!;
    await live
      .waitForFunction(() => (globalThis as any).__live?.frames > 0, undefined, { timeout: 30_000 })
      .catch(async (e) => {
        // Seen twice on a loaded machine: say what the live view and the session were doing.
        const st = await live.evaluate(() => ({ state: (globalThis as any).__live?.state, url: location.href })).catch(String);
        const sessions = (await h.api('GET', '/v1beta/capture_sessions')).json;
        const u = new URL(sessions[0]?.iframe_url ?? 'http://x/live/x?token=x');
        const rt: any = h.services.captureSessions.liveLookup(u.pathname.split('/')[2], u.searchParams.get('token') ?? '')?.rt;
        const lv: any = rt?.live;
        const srv = lv && {
          framesSent: lv.framesSent,
          casting: lv.casting,
          cdp: !!lv.cdp,
          viewers: lv.viewers.size,
          viewport: lv.viewport,
          url: lv.shown.url(),
          visible: await lv.shown.evaluate(() => document.visibilityState).catch(String),
          lastFrame: !!lv.lastFrame,
        };
        const why = `live view without a frame: ${JSON.stringify(st)} ${JSON.stringify(srv)} ${JSON.stringify(sessions).slice(0, 300)}`;
        await page.screenshot({ path: path.join(ARTIFACTS, 'no-frame.png') });
        // In the error's message, so the failure summary at the end of a CI log carries it.
        throw new Error(`${why}\n${(e as Error).message}`);
      });
    // No layout shift: the box had its size before the live view came.
    expect(await place()).toEqual(before);
    const screen = (await live.locator('#screen').boundingBox())!;
    const viewport = { width: Math.round(screen.width), height: Math.round(screen.height) };
    await live.waitForFunction(
      ([w, hh]) => (globalThis as any).__live.viewport.width === w && (globalThis as any).__live.viewport.height === hh,
      [viewport.width, viewport.height],
    );
    // Where controls are: a reference rendering of the same page at the same size (never the captured page).
    const refCtx = await browser.newContext({ viewport });
    const ref = await refCtx.newPage();
    await ref.goto(`${site.url}/login`);
    const clickRemote = async (selector: string) => {
      const b = (await ref.locator(selector).boundingBox())!;
      const sb = (await live.locator('#screen').boundingBox())!;
      await page.mouse.click(sb.x + b.x + b.width / 2, sb.y + b.y + b.height / 2);
      await sleep(200);
    };
    const urlBar = () => live.locator('#url').inputValue();
    await expect.poll(urlBar).toBe(`${site.url}/login`);
    // What the person sees on the screen, read from the captured page itself (waits only, never input):
    // a loaded machine renders slower than a fixed pause.
    const sessions = (await h.api('GET', '/v1beta/capture_sessions')).json as any[];
    const active = new URL(sessions.find((x) => x.state === 'active').iframe_url);
    const remote = () =>
      (h.services.captureSessions.liveLookup(active.pathname.split('/')[2], active.searchParams.get('token') ?? '') as any).rt.live
        .shown as Page;
    await remote().waitForSelector('#username');
    expect(await page.getByLabel('Pick what you want back').isChecked()).toBe(false);
    if (shot) await audit(shot);

    // alice is the only login secret: chosen already. Click the field, paste.
    expect(await page.getByLabel('Paste from').inputValue()).toBe(alice);
    await clickRemote('#username');
    await page.getByRole('button', { name: 'Paste username' }).click();
    await page.getByText('Pasted the username of alice login').waitFor();
    await clickRemote('#password');
    await page.getByRole('button', { name: 'Paste password' }).click();
    await page.getByText('Pasted the password of alice login').waitFor();
    await clickRemote('[data-testid=login-submit]');
    await expect.poll(urlBar, { timeout: 10_000 }).toBe(`${site.url}/items`);

    await live.locator('#url').fill(`${site.url}/search`);
    await live.locator('#url').press('Enter');
    await expect.poll(urlBar).toBe(`${site.url}/search`);
    await ref.fill('#username', 'alice');
    await ref.fill('#password', 'wonderland');
    await ref.click('[data-testid=login-submit]');
    await ref.waitForURL('**/items');
    await ref.goto(`${site.url}/search`);
    await remote().waitForSelector('#q');
    await clickRemote('#q');
    await page.keyboard.type(query); // into the iframe, as a person types
    await expect.poll(() => remote().inputValue('#q')).toBe(query);
    await page.keyboard.press('Enter');
    await remote().waitForSelector('#status[data-state=done]');
    // "Pick what you want back": the console's toggle switches the live view's pick mode; the
    // first hit is picked (the click never reaches the page) and the console counts it.
    await ref.fill('#q', query);
    await ref.press('#q', 'Enter');
    await ref.waitForSelector('#status[data-state=done]');
    await page.getByLabel('Pick what you want back').check();
    await expect.poll(() => live.locator('#pick').getAttribute('aria-pressed')).toBe('true');
    await clickRemote('#results > li:first-child');
    await page.getByText('1 picked').waitFor();
    await page.getByLabel('Pick what you want back').uncheck();
    await expect.poll(() => live.locator('#pick').getAttribute('aria-pressed')).toBe('false');
    await sleep(300); // the recorder's last events reach the spool
    await refCtx.close();
  }

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    site = await startDemoSite();
    h = await startHarness('sqlite', { TOTP_CODE_REUSE: 'allow', CAPTURE_WARM_CONTEXTS: '1' });
    alice = await loginSecret(h, 'alice', 'wonderland');
    const r = await synthesizeFrom(h, fixtureHar('a-search', site.url), {
      display_name: 'Demo search',
      purpose: 'Search the demo shop',
      website: site.url,
      hints: { arguments: { query: 'gamma' }, secrets: { account: alice } },
    });
    expect(r.status, r.text).toBe(200);
    synthesized = r.json;
    handWritten = await publish(h, {
      display_name: 'Paged search',
      purpose: 'Search with a page size',
      website: 'https://shop.example.com',
      definition: httpSearchDefinition(site.url),
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    browser = await openChromium();
    // bypassCSP only lets the test inject axe-core; the console itself runs under its CSP.
    ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    page = await ctx.newPage();
  });
  afterAll(async () => {
    await ctx?.close();
    await browser?.close();
    await h?.close();
    await site?.close();
  });

  it('serves the page under a CSP without inline code; / leads to it', async () => {
    const res = await fetch(`${h.url}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console');
    const c = await fetch(`${h.url}/console`);
    expect(c.headers.get('content-security-policy')).toMatch(/default-src 'self'; script-src 'self'; style-src 'self'/);
    expect(c.headers.get('cache-control')).toBe('no-store');
    const html = await c.text();
    expect(html).not.toMatch(/<script>|<style>|style=/);
    const js = html.match(/src="(\/console\/app-[0-9a-f]{12}\.js)"/)![1];
    const a = await fetch(h.url + js);
    expect(a.status).toBe(200);
    expect(a.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${h.url}/console/app-000000000000.js`)).status).toBe(404);
  });

  it('signs in with an API key kept in sessionStorage only', async () => {
    await page.goto(`${h.url}/`);
    await expect.poll(() => page.url()).toBe(`${h.url}/console`);
    await page.getByLabel('API key').fill('csk_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That key was not accepted').waitFor();
    await audit('01-sign-in');
    await page.getByLabel('API key').fill(h.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Connectors', level: 1 }).waitFor();
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([h.key]);
  });

  it('lists connectors and filters them by domain', async () => {
    await page.getByRole('link', { name: 'Demo search' }).waitFor();
    await page.getByRole('link', { name: 'Paged search' }).waitFor();
    await audit('02-connectors');
    // Keyboard only: the new page's title has focus, Tab goes on in reading order, Enter filters.
    const focused = () => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`.trim());
    expect(await focused()).toBe('H1 Connectors');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('A Record a connector');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('domain');
    await page.keyboard.type('example.com');
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Paged search' }).waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'Demo search' }).count()).toBe(0);
    await page.getByLabel('Website domain').fill('nothing.test');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No connector for nothing.test').waitFor();
    await audit('03-connectors-empty');
    await page.getByRole('link', { name: 'Clear' }).click();
    await page.getByRole('link', { name: 'Demo search' }).waitFor();
  });

  it('runs a connector with new arguments from the generated form; the result is a table, logs shown', async () => {
    await page.getByRole('link', { name: 'Demo search' }).click();
    await page.getByRole('heading', { name: 'Demo search', level: 1 }).waitFor();
    const query = page.getByLabel(/^query/);
    expect(await query.getAttribute('aria-required')).toBe('true');
    await query.fill('delta');
    // alice is the only login secret: preselected for the slot.
    await expect.poll(() => page.getByLabel(/^account/).inputValue()).toBe(alice);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const table = page.getByRole('table', { name: /items: 8 rows/ });
    await table.waitFor({ timeout: 30_000 });
    const names = await table.locator('tbody tr td:nth-child(2)').allInnerTexts();
    expect(names[0]).toBe('Delta Lantern');
    expect(names.every((n) => n.startsWith('Delta '))).toBe(true);
    await expect.poll(() => page.locator('pre.logs').innerText(), { timeout: 10_000 }).toMatch(/\/api\/search/);
    await page.getByText('success', { exact: true }).first().waitFor();
    await audit('04-connector-run');
    // A small laptop screen: one column, nothing wider than the window.
    await page.setViewportSize({ width: 1024, height: 640 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    await audit('04b-connector-run-1024');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("shows the API's 422 messages at the fields they name", async () => {
    await page.goto(`${h.url}/console#/connectors/${handWritten.id}`);
    await page.getByRole('heading', { name: 'Paged search', level: 1 }).waitFor();
    // The default comes from the schema.
    expect(await page.getByLabel(/^page_size/).inputValue()).toBe('5');
    await page.getByLabel(/^query/).fill('');
    await page.getByLabel(/^page_size/).fill('0');
    await page.getByLabel(/^account/).selectOption('');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const pageSize = page.getByLabel(/^page_size/);
    await expect.poll(() => pageSize.getAttribute('aria-invalid')).toBe('true');
    const msg = await page.locator(`#${await pageSize.getAttribute('aria-describedby').then((d) => d!.split(' ').pop())}`).innerText();
    expect(msg).toMatch(/greater than or equal to 1/i);
    expect(await page.getByLabel(/^query/).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel(/^account/).getAttribute('aria-invalid')).toBe('true');
    // Focus went to the first field the API named.
    expect(await page.evaluate(() => document.activeElement?.id)).toMatch(/^arg-/);
    await audit('05-run-422');
    // Corrected, it runs.
    await page.getByLabel(/^query/).fill('beta');
    await page.getByLabel(/^page_size/).fill('2');
    await page.getByLabel(/^account/).selectOption(alice);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('table', { name: /items: \d+ rows/ }).waitFor({ timeout: 30_000 });
    expect(await page.getByLabel(/^page_size/).getAttribute('aria-invalid')).toBeNull();
  });

  it('uploads a file with a progress bar; the CRC32C shown is the API’s', async () => {
    await page.getByRole('link', { name: 'Files' }).click();
    await page.getByRole('heading', { name: 'Files', level: 1 }).waitFor();
    await audit('06-files-empty');
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'data.bin', mimeType: 'application/octet-stream', buffer: bytes });
    await page.getByRole('button', { name: 'Upload' }).click();
    const crc = await page.getByTestId('upload-crc').innerText({ timeout: 30_000 });
    const be = Buffer.alloc(4);
    be.writeUInt32BE(crc32c(bytes) >>> 0);
    expect(crc).toBe(be.toString('base64'));
    await page.getByText('matches the file on this computer').waitFor();
    expect(await page.locator('#upload-progress').evaluate((p: HTMLProgressElement) => p.value)).toBe(1);
    const listed = (await h.api('GET', '/v1beta/files')).json.data.find((f: any) => f.name === 'data.bin');
    expect(listed.crc32c).toBe(crc);
    expect(listed.size_bytes).toBe(bytes.length);
    await page.getByRole('cell', { name: 'data.bin', exact: true }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download data.bin' }).click();
    const d = await download;
    const got = fs.readFileSync((await d.path())!);
    expect(got.equals(bytes)).toBe(true);
    await audit('07-files');
  });

  it('runs a connector that takes a file: the form uploads the chosen file and sends its id', async () => {
    // A site that answers what a PUT sent it.
    const echo = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ size: body.length, sha256: crypto.createHash('sha256').update(body).digest('hex') }));
      });
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const c = await publish(h, {
        display_name: 'Store a document',
        purpose: 'PUT a document',
        website: 'https://docs.example.com',
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          steps: [
            {
              id: 'put',
              method: 'PUT',
              url: `http://127.0.0.1:${(echo.address() as AddressInfo).port}/doc`,
              body: { file: '{{args.document}}' },
              extract: { got: { from: 'json', path: '$', type: 'json' } },
            },
          ],
          result: { got: '{{vars.got}}' },
        },
        input_schema: { type: 'object', properties: { document: { type: 'string', format: 'file-id' } }, required: ['document'] },
        output_schema: { type: 'object' },
      });
      await page.goto(`${h.url}/console#/connectors/${c.id}`);
      await page.getByRole('heading', { name: 'Store a document', level: 1 }).waitFor();
      const bytes = crypto.randomBytes(5000);
      await page.getByLabel('or upload a file').setInputFiles({ name: 'scan.pdf', mimeType: 'application/pdf', buffer: bytes });
      await page.getByText('Uploaded scan.pdf (5000 bytes)').waitFor({ timeout: 15_000 });
      const id = await page.locator('#arg-document').inputValue();
      const meta = await h.api('GET', `/v1beta/files/${id}`);
      expect(meta.json, meta.text).toMatchObject({ name: 'scan.pdf', size_bytes: 5000 });
      await audit('06b-file-argument');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByText('success', { exact: true }).first().waitFor({ timeout: 30_000 });
      const runs = (await h.api('GET', `/v1beta/runs?connector_id=${c.id}`)).json.data;
      expect(runs[0]).toMatchObject({ status: 'success', arguments: { document: id } });
      const run = (await h.api('GET', `/v1beta/runs/${runs[0].id}`)).json;
      expect(run.result.got).toEqual({ size: 5000, sha256: crypto.createHash('sha256').update(bytes).digest('hex') });
    } finally {
      echo.close();
    }
  });

  it('creates a login secret with a TOTP seed: listed, never shown back, code on demand; deletes it', async () => {
    const seed = 'JBSWY3DPEHPK3PXPJBSWY3DP';
    const password = 'pw-Zq8!sentinel-value';
    await page.getByRole('link', { name: 'Secrets' }).click();
    await page.getByRole('heading', { name: 'Secrets', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Shop login');
    await page.getByLabel('Username', { exact: true }).fill('carol');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('TOTP seed (optional)').fill(seed);
    await page.getByRole('button', { name: 'Save secret' }).click();
    await page.getByText('Saved “Shop login”').waitFor();
    const row = page.locator('.secret-list li', { hasText: 'Shop login' });
    await row.waitFor();
    expect(await row.innerText()).toContain('TOTP');
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    const html = await page.content();
    expect(html).not.toContain(password);
    expect(html).not.toContain(seed);
    await page.getByRole('button', { name: 'Show the current TOTP code of Shop login' }).click();
    const code = await row.locator('code.totp').innerText();
    const totp = new TOTP({ secret: OtpSecret.fromBase32(seed) });
    expect([
      totp.generate({ timestamp: Date.now() - 30_000 }),
      totp.generate(),
      totp.generate({ timestamp: Date.now() + 30_000 }),
    ]).toContain(code);
    await audit('08-secrets');
    // A string secret without a value: the 422 is shown at the field.
    await page.getByLabel('A single value (token, key)').check();
    await page.getByLabel('Name', { exact: true }).fill('token');
    await page.getByRole('button', { name: 'Save secret' }).click();
    await expect.poll(() => page.getByLabel('Value', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Login (username and password)').check();
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Delete Shop login' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await h.api('GET', '/v1beta/secrets')).json.map((s: any) => s.name)).toEqual(['alice login']);
  });

  it('lists runs by connector and opens one; tasks are shown for what they are', async () => {
    await page.getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    await page.getByLabel('Connector').selectOption(synthesized.id);
    // The newest run of the chosen connector: the one with new arguments made from the form.
    const first = page.locator('table.data tbody tr').first();
    await expect.poll(() => first.innerText()).toContain('{"query":"delta"}');
    expect(await page.locator('table.data tbody').innerText()).not.toContain('page_size');
    await audit('09-runs');
    await first.getByRole('link').click();
    await page.getByRole('table', { name: /items: 8 rows/ }).waitFor();
    await audit('10-run');
    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByText('older, task-based API family').waitFor();
    await page.getByText('No tasks.').waitFor();
    await audit('11-tasks');
  });

  it('shows versions and a readable diff between them', async () => {
    const file2 = await uploadText(h, 'second.har', fixtureHar('a-search-2', site.url));
    const v2 = await h.api('POST', `/v1beta/connectors/${synthesized.id}/revisions`, {
      recording_file_id: file2,
      hints: { arguments: { query: 'gamma' }, secrets: { account: alice } },
    });
    expect(v2.status, v2.text).toBe(200);
    await page.goto(`${h.url}/console#/connectors/${synthesized.id}`);
    await page.getByRole('button', { name: 'v2' }).waitFor();
    await page.getByRole('button', { name: 'v1' }).waitFor();
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('1');
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('2');
    const diff = page.getByRole('region', { name: 'Changes from v1 to v2' });
    await diff.waitFor();
    // v2 is synthesized from two recordings: its plan differs, shown as +/- lines (ids and provenance left out).
    expect(await diff.locator('.add').count()).toBeGreaterThan(0);
    expect(await diff.locator('.add').first().innerText()).toMatch(/^added:\s*\+ /);
    await page.getByRole('button', { name: 'v1' }).click();
    await page.getByRole('heading', { name: 'Definition of v1' }).waitFor();
    await audit('12-versions-diff');
  });

  it('records a connector: live view, pasted secret, typing, complete, review, publish', async () => {
    await page.getByRole('link', { name: 'Record', exact: true }).click();
    await page.getByRole('heading', { name: 'Record a connector', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Recorded search');
    await page.getByLabel('Purpose').fill('Search the demo shop by a query');
    await page.getByLabel(/^Website/).fill(`${site.url}/login`);
    await audit('13-record-describe');
    await page.getByRole('button', { name: 'Start recording' }).click();

    await signInAndSearch('gamma', '14-record-live');

    await page.getByRole('button', { name: 'Done: complete the recording' }).click();
    await page.getByRole('heading', { name: 'What should synthesis know?' }).waitFor({ timeout: 20_000 });
    await audit('15-record-hints');
    await page.getByRole('button', { name: 'Synthesize', exact: true }).click();
    await page.getByRole('heading', { name: 'What synthesis proposes' }).waitFor({ timeout: 45_000 });
    const args = page.getByRole('table', { name: 'Arguments' });
    expect(await args.innerText()).toMatch(/q\s+string\s+"gamma"/);
    expect(await page.locator('.review').innerText()).toMatch(/account: login/);
    await page.locator('ol.steps li').first().waitFor();
    expect(await page.content()).not.toContain('wonderland');
    // The preview: the recorded example, run now.
    expect(await page.getByLabel(/^q/).inputValue()).toBe('gamma');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const table = page.getByRole('table', { name: /items: \d+ rows/ });
    await table.waitFor({ timeout: 30_000 });
    expect(await table.innerText()).toContain('Gamma');
    await audit('16-record-review');
    // README's picture: CONSOLE_DOCS_SCREENSHOT=1 refreshes docs/console.png (the visible part only, kept small).
    if (process.env.CONSOLE_DOCS_SCREENSHOT === '1') {
      await page.evaluate(() => scrollTo(0, 0));
      await page.screenshot({ path: path.join(__dirname, '..', 'docs', 'console.png') });
    }

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('heading', { name: 'Recorded search', level: 1 }).waitFor();
    const list = (await h.api('GET', '/v1beta/connectors')).json.data.map((c: any) => c.display_name);
    expect(list).toContain('Recorded search');
    await audit('17-recorded-connector');
  });

  it('records again: a new revision, reviewed with its diff from the version before', async () => {
    await page.getByRole('link', { name: 'Record again' }).click();
    await page.getByRole('heading', { name: 'Record again: Recorded search', level: 1 }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    await page.getByLabel(/^Website/).fill(`${site.url}/login`);
    await page.getByRole('button', { name: 'Start recording' }).click();
    await signInAndSearch('delta');
    await page.getByRole('button', { name: 'Done: complete the recording' }).click();
    await page.getByRole('button', { name: 'Synthesize', exact: true }).click({ timeout: 20_000 });
    await page.getByRole('heading', { name: 'What synthesis proposes' }).waitFor({ timeout: 45_000 });
    await page.getByText('stored it as version 2 of this connector').waitFor();
    await page.getByRole('region', { name: 'Changes from v1 to v2' }).waitFor();
    expect(await page.getByRole('button', { name: 'Discard' }).count()).toBe(0); // versions stay
    await audit('18-record-again-review');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('heading', { name: 'Recorded search', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'v2' }).waitFor();
  });

  it('a recording synthesis cannot use: its 422 is shown in the hints form, nothing is published', async () => {
    const before = (await h.api('GET', '/v1beta/connectors?limit=100')).json.data.length;
    await page.getByRole('link', { name: 'Record', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('Nothing done');
    await page.getByLabel('Purpose').fill('A recording without a task in it');
    await page.getByLabel(/^Website/).fill(`${site.url}/login`);
    await page.getByRole('button', { name: 'Start recording' }).click();
    const live = (await (await page.waitForSelector('.live-box iframe')).contentFrame())!;
    await expect
      .poll(
        () =>
          live
            .locator('#url')
            .inputValue()
            .catch(() => ''),
        { timeout: 20_000 },
      )
      .toBe(`${site.url}/login`);
    await page.getByRole('button', { name: 'Done: complete the recording' }).click();
    await page.getByRole('button', { name: 'Synthesize', exact: true }).click({ timeout: 20_000 });
    await page.getByText('Synthesis could not make a connector from this recording').waitFor({ timeout: 30_000 });
    expect(await page.locator('.problems li').count()).toBeGreaterThan(0);
    expect(await page.getByRole('alert').count()).toBe(1); // listed once, in the form
    await audit('19-synthesis-422');
    expect((await h.api('GET', '/v1beta/connectors?limit=100')).json.data.length).toBe(before);
  });

  it('checked every page with axe-core', () => {
    expect(checked.length).toBeGreaterThanOrEqual(20);
  });
});
