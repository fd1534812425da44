// The live view's pick mode, events and read-only mode, end to end with a real server and two real
// Chromiums (docs/live-view.md). A person on another loopback origin embeds iframe_url with
// parent_origin, turns pick mode on, clicks a value and shift-clicks a whole record of a small
// "deals" list (the clicks never reach the page); the embedding page receives ready / navigated /
// state / pick / ended, a second embedding without parent_origin receives nothing. The read-only
// URL (iframe_view_url, and mode=view on the control token) is attacked with raw WebSocket input,
// which the server drops. Synthesis from the session returns every deal (the bigger table on the
// page would win without the picks); a second session picks one value on a detail page through
// the WebSocket API only, and its connector returns that field.
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { openChromium } from '../src/browser/chromium.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { openLiveView, startEmbedder, wsViewer } from './helpers/live-view.js';
import { run } from './helpers/runs.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A catalog table of 12 rows and a list of 3 deals; "Brass Kettle" is in both. A click on a deal
// (its onclick) would leave the page: pick mode must keep it from the page.
const ROWS = Array.from(
  { length: 12 },
  (_, i) => `<tr><td>${i === 4 ? 'Brass Kettle' : `Widget ${i + 1}`}</td><td>${20 + i}</td><td>${i % 2 ? 'yes' : 'no'}</td></tr>`,
).join('');
const DEALS = [
  ['Brass Kettle', '-20%', '19.2'],
  ['Copper Pan', '-10%', '31.5'],
  ['Tin Cup', '-5%', '3.8'],
]
  .map(
    ([n, o, p], i) =>
      `<li class="deal" onclick="location.href='/clicked'"><a href="/d/${i + 1}">${n}</a> <span class="off">${o}</span> <span class="price">${p}</span></li>`,
  )
  .join('');
const PAGES: Record<string, string> = {
  '/shop': `<!doctype html><html><head><title>Shop</title><style>body{font:16px sans-serif} li{padding:6px}</style></head><body><main><h1>Shop</h1>
<section id="deals"><h2>Deals</h2><ul id="deals-list">${DEALS}</ul></section>
<table id="catalog"><thead><tr><th>Name</th><th>Price</th><th>Stock</th></tr></thead><tbody>${ROWS}</tbody></table></main></body></html>`,
  '/item': `<!doctype html><html><head><title>Gamma Gizmo</title></head><body><main><h1>Gamma Gizmo</h1>
<dl><dt>Price</dt><dd id="price">11.99</dd><dt>Category</dt><dd>kitchen</dd><dt>Stock</dt><dd>no</dd></dl>
<form><input type="password" id="pw" value="Hunter2-not-for-picks"></form></main></body></html>`,
  '/clicked': '<!doctype html><title>clicked</title><p>the click reached the page</p>',
};

async function startSite() {
  const server = http.createServer((req, res) => {
    const page = PAGES[new URL(req.url ?? '/', 'http://x').pathname];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

describe('live view pick mode, events and read-only mode (sqlite)', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let h: Harness;
  let browser: Browser;
  let embedder: Awaited<ReturnType<typeof startEmbedder>>;

  beforeAll(async () => {
    site = await startSite();
    h = await startHarness('sqlite', { CAPTURE_WARM_CONTEXTS: '0' });
    browser = await openChromium();
    embedder = await startEmbedder({ width: 1000, height: 700 });
  });
  afterAll(async () => {
    await browser?.close();
    await embedder?.close();
    await h?.close();
    await site?.close();
  });

  const waitCompleted = (id: string) =>
    expect.poll(async () => (await h.api('GET', `/v1beta/capture_sessions/${id}`)).json.state, { timeout: 15_000 }).toBe('completed');

  it('picks a value and a whole record in the embedded live view; events reach the parent_origin only; read-only sockets drop input; synthesis returns every picked record', async () => {
    const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: `${site.url}/shop` })).json;
    expect(s.iframe_view_url).toMatch(/\/live\/[^?]+\?token=[\w-]{43}&mode=view$/);
    expect(new URL(s.iframe_view_url).searchParams.get('token')).not.toBe(new URL(s.iframe_url).searchParams.get('token'));
    const control = await wsViewer(s.iframe_url); // watches what the session does
    await expect.poll(() => control.msgs.some((m) => m.url === `${site.url}/shop`), { timeout: 10_000 }).toBe(true);

    const d = await openLiveView(browser, embedder.url, `${s.iframe_url}&parent_origin=${encodeURIComponent(embedder.url)}`);
    const msgs = () => d.host.evaluate(() => (globalThis as any).__msgs as { origin: string; data: any }[]);
    const types = async () => (await msgs()).map((m) => m.data.type);
    await expect.poll(types).toEqual(expect.arrayContaining(['state', 'ready']));
    const first = await msgs();
    expect(
      first.every(
        (m) => m.origin === new URL(s.iframe_url).origin && m.data.source === 'connector-live-view' && m.data.session_id === s.id,
      ),
    ).toBe(true);
    expect(first.find((m) => m.data.type === 'ready')!.data).toMatchObject({ mode: 'control', url: `${site.url}/shop` });
    expect(first.find((m) => m.data.type === 'state')!.data.state).toBe('live');
    // The same live view embedded without parent_origin posts nothing.
    const quiet = await openLiveView(browser, embedder.url, s.iframe_url);

    const ref = await (await browser.newContext({ viewport: d.viewport })).newPage();
    await ref.goto(`${site.url}/shop`);
    const screen = (await d.live.locator('#screen').boundingBox())!;
    const at = async (sel: string) => {
      const b = (await ref.locator(sel).boundingBox())!;
      return { x: screen.x + b.x + b.width / 2, y: screen.y + b.y + b.height / 2 };
    };
    const live = (k: string) => d.live.evaluate((key) => (globalThis as any).__live[key], k);

    await d.live.click('#pick');
    await expect.poll(() => live('picking')).toBe(true);
    // Hovering highlights the element under the pointer (and its record).
    const price2 = await at('#deals-list li:nth-of-type(2) .price');
    await d.host.mouse.move(price2.x, price2.y);
    await d.live.waitForFunction(
      () =>
        getComputedStyle(document.getElementById('hl')!).display === 'block' &&
        getComputedStyle(document.getElementById('hlrec')!).display === 'block',
    );
    await d.host.mouse.click(price2.x, price2.y); // one value
    await expect.poll(() => live('picks')).toBe(1);
    const off1 = await at('#deals-list li:nth-of-type(1) .off');
    await d.host.keyboard.down('Shift');
    await d.host.mouse.click(off1.x, off1.y); // shift: the whole record
    await d.host.keyboard.up('Shift');
    await expect.poll(() => live('picks')).toBe(2);
    // The embedding page switches pick mode off (a command from its own origin).
    await d.host.evaluate(() => document.querySelector('iframe')!.contentWindow!.postMessage({ type: 'pick', on: false }, '*'));
    await expect.poll(() => live('picking')).toBe(false);

    const picks = (await msgs()).filter((m) => m.data.type === 'pick').map((m) => m.data);
    expect(picks).toEqual([
      expect.objectContaining({
        scope: 'value',
        text: '31.5',
        tag: 'span',
        record_selector: '#deals-list > li:nth-of-type(2)',
        list_selector: '#deals-list',
      }),
      expect.objectContaining({ scope: 'record', text: 'Brass Kettle -20% 19.2', tag: 'li', list_selector: '#deals-list' }),
    ]);
    expect(control.msgs.filter((m) => m.t === 'picked')).toHaveLength(2);

    // Read-only: the view token, and mode=view on the control token. Raw input is dropped by the server.
    const page = await fetch(s.iframe_view_url);
    expect(await page.text()).toMatch(/<body class="view">[\s\S]*id="url"[^>]*readonly/);
    for (const u of [s.iframe_view_url, `${s.iframe_url}&mode=view`, s.iframe_view_url.replace('&mode=view', '')]) {
      const v = await wsViewer(u);
      await expect.poll(() => v.msgs[0]?.mode).toBe('view');
      const li = await at('#deals-list li:nth-of-type(3)');
      const x = li.x - screen.x;
      const y = li.y - screen.y;
      v.send({ t: 'mouse', type: 'down', x, y, button: 'left', clickCount: 1 });
      v.send({ t: 'mouse', type: 'up', x, y, button: 'left', clickCount: 1 });
      v.send({ t: 'navigate', url: `${site.url}/item` });
      v.send({ t: 'pick', on: true });
      v.send({ t: 'pick_at', selector: '#deals-list li:nth-of-type(3)', record: true });
      v.send({ t: 'key', type: 'down', key: 'End' });
      v.send({ t: 'resize', width: 400, height: 300 });
      await sleep(400);
      v.ws.close();
    }
    // Only the person's doings: pick mode on and off, two picks; no navigation, no resize.
    expect(control.msgs.filter((m) => m.t === 'url' && m.url !== `${site.url}/shop`)).toEqual([]);
    expect(control.msgs.filter((m) => m.t === 'pick').map((m) => m.on)).toEqual([true, false]);
    expect(control.msgs.filter((m) => m.t === 'picked')).toHaveLength(2);
    expect(control.msgs.filter((m) => m.t === 'viewport' && m.viewport.width === 400)).toEqual([]);
    expect(await quiet.host.evaluate(() => (globalThis as any).__msgs)).toEqual([]);

    expect((await h.api('POST', `/v1beta/capture_sessions/${s.id}/complete`)).status).toBe(202);
    await expect.poll(async () => (await msgs()).find((m) => m.data.type === 'ended')?.data.state, { timeout: 10_000 }).toBe('completing');
    await waitCompleted(s.id);
    control.ws.close();
    await d.host.context().close();
    await quiet.host.context().close();
    await ref.context().close();

    const actions = (await h.api('GET', `/v1beta/capture_sessions/${s.id}/recording`)).json.log._capture.actions;
    expect(actions.map((a: any) => a.type)).toEqual(['navigate', 'pick', 'pick']); // no click, no key, no typed navigation
    const [value, record] = actions.slice(1);
    expect(value).toMatchObject({
      scope: 'value',
      text: '31.5',
      tag: 'span',
      record: { css: '#deals-list > li:nth-of-type(2)', index: 1, values: ['Copper Pan', '-10%', '31.5'] },
      list: { css: '#deals-list', count: 3 },
      target: { tag: 'span', selectors: expect.arrayContaining([expect.objectContaining({ kind: 'css', unique: true })]) },
    });
    expect(record).toMatchObject({
      scope: 'record',
      text: 'Brass Kettle -20% 19.2',
      record: { index: 0, values: ['Brass Kettle', '-20%', '19.2'] },
      target: { tag: 'li' },
    });

    const c = await h.api('POST', '/v1beta/connectors', { display_name: 'deals', purpose: 'the shop deals', capture_session_id: s.id });
    expect(c.status, c.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    expect(def.meta.decisions.picks).toMatchObject({ count: 2, records: 1, values: 1, result_values: ['31.5', 'Brass Kettle'] });
    expect(def.meta.decisions.result.rule).toMatch(/#deals-list/);
    const out = await run(h, { connector_id: c.json.id, arguments: {} });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.items).toEqual([
      expect.objectContaining({ title: 'Brass Kettle', price: 19.2 }),
      expect.objectContaining({ title: 'Copper Pan', price: 31.5 }),
      expect.objectContaining({ title: 'Tin Cup', price: 3.8 }),
    ]);
  });

  it('through the WebSocket API only: a value picked on a detail page is the connector result; a password field is picked without its value', async () => {
    const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: `${site.url}/item` })).json;
    const v = await wsViewer(s.iframe_url);
    await expect.poll(() => v.msgs.some((m) => m.url === `${site.url}/item`), { timeout: 10_000 }).toBe(true);
    // A pick at commit time may find no document yet ({"id":null}): ask again, one reply at a time.
    const pickOnce = async (selector: string) => {
      for (let i = 0; i < 20; i++) {
        const before = v.msgs.filter((m) => m.t === 'picked').length;
        v.send({ t: 'pick_at', selector });
        await expect.poll(() => v.msgs.filter((m) => m.t === 'picked').length).toBe(before + 1);
        const last = v.msgs.filter((m) => m.t === 'picked').at(-1);
        if (last.id) return last;
        await sleep(200);
      }
      throw new Error(`nothing picked at ${selector}`);
    };
    const price = await pickOnce('#price');
    const pw = await pickOnce('#pw');
    expect(price).toMatchObject({ scope: 'value', text: '11.99', tag: 'dd', selector: 'css=#price', record_selector: null });
    expect(pw).toMatchObject({ tag: 'input', text: null });
    v.ws.close();
    expect((await h.api('POST', `/v1beta/capture_sessions/${s.id}/complete`)).status).toBe(202);
    await waitCompleted(s.id);
    const actions = (await h.api('GET', `/v1beta/capture_sessions/${s.id}/recording`)).json.log._capture.actions;
    const pickActions = actions.filter((a: any) => a.type === 'pick');
    expect(pickActions).toHaveLength(2);
    expect(JSON.stringify(pickActions)).not.toContain('Hunter2');

    const c = await h.api('POST', '/v1beta/connectors', { display_name: 'item', purpose: 'an item page', capture_session_id: s.id });
    expect(c.status, c.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    expect(def.meta.decisions.result.rule).toMatch(/^detail block/);
    const out = await run(h, { connector_id: c.json.id, arguments: {} });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toMatchObject({ title: 'Gamma Gizmo', price: 11.99 });
  });
});
