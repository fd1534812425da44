// End to end, as a person would: the live view (iframe_url) embedded in an iframe of another
// origin, in a second headless Chromium; every click and keystroke goes through the live view's
// own page and WebSocket. A failed login with sentinel credentials, then bob's login with a
// pasted password and TOTP code, the live search with "Load more" pagination, complete — and the
// stored recording has the traffic, bodies, actions and secret markers, and no secret value
// anywhere (recording, responses, logs, data dir). Coordinates of the remote page's controls come
// from a reference page of the same site at the same viewport size (never from the captured page).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { Browser, Frame, Page } from 'playwright-core';
import { TOTP, Secret } from 'otpauth';
import { openChromium } from '../src/browser/chromium.js';
import { startDemoSite, BOB_TOTP_SEED, type DemoSite } from '../examples/demo-site/server.js';
import { startHarness, type ApiResponse, type Harness } from './helpers/harness.js';
import { liveWsUrl, openLiveView, startEmbedder, type LiveViewDriver } from './helpers/live-view.js';

// A real browser on a shared 2-core machine: generous limits, so load elsewhere doesn't fail us.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const SENT = { username: `u${crypto.randomBytes(8).toString('hex')}`, password: `P${crypto.randomBytes(10).toString('hex')}+/ =` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const IFRAME = { width: 1000, height: 700 };

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('capture session through the live view (sqlite)', () => {
  let site: DemoSite;
  let h: Harness;
  let viewerBrowser: Browser;
  let host: Page; // the page on "another origin" that embeds iframe_url
  let live: Frame;
  let ref: Page; // reference rendering of the site, for coordinates only
  const responses: ApiResponse[] = [];
  const api = async (m: string, p: string, b?: unknown, k?: string | null) => {
    const r = await h.api(m, p, b, k);
    responses.push(r);
    return r;
  };
  let session: any;
  let bob: string;
  let sentinel: string;
  let firstFrameMs = 0;
  // Another origin that embeds the live view, as a customer's dashboard would.
  let embedder: Awaited<ReturnType<typeof startEmbedder>>;
  let driver: LiveViewDriver;

  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness('sqlite', { CAPTURE_WARM_CONTEXTS: '1' });
    viewerBrowser = await openChromium();
    embedder = await startEmbedder(IFRAME);
    bob = (
      await api('POST', '/v1beta/secrets', {
        name: 'bob',
        secret_type: 'login',
        username: 'bob',
        password: 'builder',
        totp_secret: BOB_TOTP_SEED,
      })
    ).json.id;
    sentinel = (await api('POST', '/v1beta/secrets', { name: 'sentinel', secret_type: 'login', ...SENT })).json.id;
  });
  afterAll(async () => {
    await viewerBrowser?.close();
    await embedder?.close();
    await h?.close();
    await site?.close();
  });

  const clickRemote = (selector: string) => driver.clickLike(ref, selector);
  const urlBar = () => driver.urlBar();

  it('creates a session and shows its live view embedded cross-origin', async () => {
    const r = await api('POST', '/v1beta/capture_sessions', { start_url: `${site.url}/login` });
    expect(r.status).toBe(200);
    session = r.json;
    expect(session.iframe_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/live\/.+\?token=[A-Za-z0-9_-]{43}$/);
    expect(session.iframe_url).not.toContain(h.key);

    driver = await openLiveView(viewerBrowser, embedder.url, session.iframe_url);
    ({ host, live, firstFrameMs } = driver);
    expect(driver.viewport).toEqual({ width: IFRAME.width, height: IFRAME.height - 37 });
    await expect.poll(urlBar).toBe(`${site.url}/login`);

    const rctx = await viewerBrowser.newContext({ viewport: driver.viewport });
    ref = await rctx.newPage();
    await ref.goto(`${site.url}/login`);
    console.log(`open iframe_url → first frame: ${firstFrameMs} ms`);
  });

  it('a failed login with pasted sentinel credentials, then bob with password and TOTP', async () => {
    const id = session.id;
    await clickRemote('#username');
    expect((await api('POST', `/v1beta/capture_sessions/${id}/paste`, { field: 'username', secret_id: sentinel })).status).toBe(204);
    await clickRemote('#password');
    expect((await api('POST', `/v1beta/capture_sessions/${id}/paste`, { field: 'password', secret_id: sentinel })).status).toBe(204);
    await clickRemote('[data-testid=login-submit]');
    await sleep(700);
    await expect.poll(urlBar).toBe(`${site.url}/login`);

    // The error line shifts the form: take coordinates from the reference page in the same state.
    await ref.fill('#username', 'nobody');
    await ref.fill('#password', 'wrong');
    await ref.click('[data-testid=login-submit]');
    await ref.waitForSelector('[data-testid=form-error]');
    await clickRemote('#username');
    // Select what may be left and type over it through the keyboard, as a person would.
    await host.keyboard.down('Control');
    await host.keyboard.press('a');
    await host.keyboard.up('Control');
    await host.keyboard.press('Backspace');
    await api('POST', `/v1beta/capture_sessions/${id}/paste`, { field: 'username', secret_id: bob });
    await clickRemote('#password');
    await api('POST', `/v1beta/capture_sessions/${id}/paste`, { field: 'password', secret_id: bob });
    await host.keyboard.press('Enter');
    await expect.poll(urlBar, { timeout: 10_000 }).toBe(`${site.url}/login/totp`);

    await ref.fill('#username', 'bob');
    await ref.fill('#password', 'builder');
    await ref.click('[data-testid=login-submit]');
    await ref.waitForURL('**/login/totp');
    await clickRemote('#code');
    expect((await api('POST', `/v1beta/capture_sessions/${id}/paste`, { field: 'totp', secret_id: bob })).status).toBe(204);
    await clickRemote('[data-testid=totp-submit]');
    await expect.poll(urlBar, { timeout: 10_000 }).toBe(`${site.url}/items`);
    await ref.fill('#code', TOTP.generate({ secret: Secret.fromBase32(BOB_TOTP_SEED) }));
    await ref.click('[data-testid=totp-submit]');
    await ref.waitForURL('**/items');
  });

  it('searches and paginates through the live view; a second viewer sees the same page', async () => {
    // A second viewer speaking the WebSocket protocol directly.
    const second = new WebSocket(liveWsUrl(session.iframe_url));
    const seen: { frames: number; urls: string[] } = { frames: 0, urls: [] };
    second.on('message', (d, bin) => {
      if (bin) seen.frames++;
      else {
        const m = JSON.parse(String(d));
        if (m.url) seen.urls.push(m.url);
      }
    });
    await new Promise((r) => second.once('open', r));

    await live.locator('#url').click();
    await live.locator('#url').fill(`${site.url}/search`);
    await host.keyboard.press('Enter');
    await expect.poll(urlBar).toBe(`${site.url}/search`);
    await ref.goto(`${site.url}/search`);
    await sleep(300);
    await clickRemote('#q');
    await host.keyboard.type('gamm');
    await host.keyboard.press('Backspace');
    await host.keyboard.type('ma');
    await host.keyboard.press('Enter');
    await ref.fill('#q', 'gamma');
    await ref.press('#q', 'Enter');
    await ref.waitForSelector('#status[data-state=done]');
    await sleep(800);
    await clickRemote('[data-testid=load-more]');
    await sleep(800);
    await expect.poll(() => seen.urls.includes(`${site.url}/search`)).toBe(true);
    expect(seen.frames).toBeGreaterThan(0);
    second.close();
  });

  it('completes: 202 completing, then completed with the browser released', async () => {
    const c = await api('POST', `/v1beta/capture_sessions/${session.id}/complete`);
    expect(c.status).toBe(202);
    expect(c.json.state).toBe('completing');
    expect(c.json.iframe_url).toBeNull();
    await expect
      .poll(async () => (await api('GET', `/v1beta/capture_sessions/${session.id}`)).json.state, { timeout: 15_000 })
      .toBe('completed');
    const g = await api('GET', `/v1beta/capture_sessions/${session.id}`);
    expect(g.json).toMatchObject({ state: 'completed', browser_session_id: null, iframe_url: null });
    // The live view's token is dead.
    const page = await fetch(session.iframe_url);
    expect(page.status).toBe(404);
    const ws = new WebSocket(liveWsUrl(session.iframe_url));
    const outcome = await new Promise((r) => {
      ws.once('open', () => r('open'));
      ws.once('unexpected-response', (_q, res) => r(res.statusCode));
      ws.once('error', () => r('error'));
    });
    expect(outcome).toBe(404);
  });

  it('the recording has the requests, bodies, actions and secret markers', async () => {
    const r = await api('GET', `/v1beta/capture_sessions/${session.id}/recording`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    const log = r.json.log;
    expect(log.version).toBe('1.2');
    const cap = log._capture;
    expect(cap.session_id).toBe(session.id);
    const entries: any[] = log.entries;
    const ph = (s: string, f: string) => `{{secret:${s}:${f}}}`;

    const logins = entries.filter((e) => e.request.method === 'POST' && e.request.url === `${site.url}/login`);
    expect(logins).toHaveLength(2);
    const p0 = Object.fromEntries(logins[0].request.postData.params.map((p: any) => [p.name, p.value]));
    expect(p0.username).toBe(ph(sentinel, 'username'));
    expect(p0.password).toBe(ph(sentinel, 'password'));
    expect(p0.csrf_token).toMatch(/.{8,}/);
    expect(logins[0].response.status).toBe(200);
    const p1 = Object.fromEntries(logins[1].request.postData.params.map((p: any) => [p.name, p.value]));
    expect(p1).toMatchObject({ username: ph(bob, 'username'), password: ph(bob, 'password') });
    expect(logins[1].response.status).toBe(303);
    expect(logins[1].response.redirectURL).toBe('/login/totp');
    expect(logins[1]._secrets.map((m: any) => `${m.field}@${m.location}:${m.field_name}`).sort()).toEqual([
      'password@request.postData:password',
      'username@request.postData:username',
    ]);
    const totp = entries.find((e) => e.request.method === 'POST' && e.request.url === `${site.url}/login/totp`);
    expect(totp.request.postData.params.find((p: any) => p.name === 'code').value).toBe(ph(bob, 'totp'));
    expect(totp._secrets.some((m: any) => m.field === 'totp' && m.field_name === 'code')).toBe(true);
    expect(totp.response.cookies.map((c: any) => c.name)).toContain('demo_session');
    expect(totp.response.headers.some((h: any) => h.name.toLowerCase() === 'set-cookie')).toBe(true);

    const searches = entries.filter((e) => e.request.url.startsWith(`${site.url}/api/search?`));
    expect(searches.map((e) => new URL(e.request.url).searchParams.get('page'))).toEqual(['1', '2']);
    expect(searches.every((e) => new URL(e.request.url).searchParams.get('q') === 'gamma')).toBe(true);
    const body1 = JSON.parse(searches[0].response.content.text);
    expect(body1.items.map((i: any) => i.name)).toContain('Gamma Gizmo');
    expect(body1.has_more).toBe(true);
    expect(searches[0].request.headers.some((h: any) => h.name.toLowerCase() === 'cookie' && h.value.includes('demo_session='))).toBe(true);
    expect(searches[0]._resource_type).toBe('Fetch');

    const actions: any[] = cap.actions;
    const byId = new Map(actions.map((a) => [a.id, a]));
    expect(actions.map((a) => a.seq)).toEqual(actions.map((_, i) => i + 1));
    const pastes = actions.filter((a) => a.type === 'paste');
    expect(pastes.map((a) => `${a.secret.field}:${a.target?.name}`)).toEqual([
      'username:username',
      'password:password',
      'username:username',
      'password:password',
      'totp:code',
    ]);
    expect(pastes[4].target.autocomplete).toBe('one-time-code');
    const qFill = actions.filter((a) => a.type === 'fill' && a.target?.name === 'q').pop();
    expect(qFill.value).toBe('gamma');
    expect(qFill.target.selectors[0]).toMatchObject({ kind: 'testid', playwright: '[data-testid="search-input"]', unique: true });
    expect(qFill.target.label).toBe('Search items');
    const nav = actions.find((a) => a.type === 'navigate' && a.to === `${site.url}/search`);
    expect(nav.cause).toBe('typed');
    // Each search request is tied to the action that caused it.
    expect(byId.get(searches[0]._action_id)).toMatchObject({ type: 'submit' });
    expect(byId.get(searches[1]._action_id)).toMatchObject({ type: 'click', target: { test_id: 'load-more' } });
    expect(byId.get(logins[1]._action_id)?.type).toMatch(/submit|key|click/);
    expect(cap.secrets).toHaveLength(5);
    expect(cap.secrets[1].entries).toContain(logins[0]._id);
    // Spool deleted once stored.
    expect(fs.existsSync(path.join(h.dataDir, 'capture', session.id))).toBe(false);
  });

  it('no secret value survives: recording, API responses, logs, data dir', async () => {
    const values = [SENT.username, SENT.password, encodeURIComponent(SENT.password), 'builder'];
    const codes = [-1, 0, 1].map((k) => TOTP.generate({ secret: Secret.fromBase32(BOB_TOTP_SEED), timestamp: Date.now() + k * 30_000 }));
    for (const r of responses) for (const v of values) expect(r.text.includes(v), v).toBe(false);
    const rec = responses.find((r) => r.json?.log)!.text;
    for (const c of codes) expect(rec.includes(`"code","value":"${c}"`)).toBe(false);
    for (const line of h.logs) for (const v of values) expect(line.includes(v), line.slice(0, 200)).toBe(false);
    // Nor is the live view's token stored or logged.
    const token = new URL(session.iframe_url).searchParams.get('token')!;
    for (const line of h.logs) expect(line.includes(token)).toBe(false);
    const files = filesUnder(h.dataDir);
    for (const f of files) expect(fs.readFileSync(f).toString('latin1').includes(token), f).toBe(false);
    expect(files.some((f) => f.endsWith('.har.json'))).toBe(true);
    for (const f of files) {
      const text = fs.readFileSync(f).toString('latin1');
      for (const v of [SENT.username, SENT.password]) expect(text.includes(v), f).toBe(false);
      if (f.endsWith('.har.json')) expect(text.includes('builder')).toBe(false);
    }
  });
});
