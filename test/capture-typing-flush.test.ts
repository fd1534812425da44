// A search box that searches as the person types (no form, no Enter, no button: each keystroke
// asks the site after a short pause — Unleash's flag table, most single-page apps). The page
// reports a field's text on change, blur or Enter; a box that still has the focus when recording
// stops has reported nothing. The recorder now asks each page for what was typed when it stops
// (before, a capture session blurred the focused field — running the page's own blur handlers
// after the person had finished — and a recording made by the recorder alone lost the text).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { recordCaptured } from './helpers/acceptance.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { localSite } from './helpers/local-site.js';
import { completeCapture, wsDriver } from './helpers/live-view.js';
import { run } from './helpers/runs.js';

const VARIETIES = ['Pear Conference', 'Pear Comice', 'Plum Victoria', 'Plum Opal', 'Apple Bramley'];

const PAGE = `<!doctype html><html><head><title>Varieties</title></head><body>
<input id="find" type="search" placeholder="Find a variety" autocomplete="off" style="font-size:20px;width:400px">
<ul id="hits"></ul>
<script>
const box = document.getElementById('find');
let timer = null;
box.addEventListener('input', () => {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    const r = await fetch('/api/varieties?' + new URLSearchParams({ q: box.value }));
    const data = await r.json();
    document.getElementById('hits').replaceChildren(...data.hits.map((h) => Object.assign(document.createElement('li'), { textContent: h.name })));
  }, 250);
});
</script></body></html>`;

function varietySite() {
  const asked: string[] = [];
  const site = localSite((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (url.pathname === '/api/varieties') {
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      asked.push(q);
      const hits = VARIETIES.filter((v) => v.toLowerCase().includes(q)).map((name, i) => ({ id: i + 1, name }));
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ hits, total: hits.length }));
    }
    res.writeHead(404).end();
  });
  return { asked, ...site };
}

describe('text typed into a search-as-you-type box, the session completed with the focus still there (sqlite)', () => {
  let h: Harness;
  let browser: Browser;
  const site = varietySite();
  let base: string;
  beforeAll(async () => {
    base = await site.start();
    h = await startHarness('sqlite');
    browser = await openChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await site.close();
  });

  it('is in the recording as a fill, and the connector takes it as its argument', async () => {
    const ref = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    try {
      await ref.goto(`${base}/`);
      const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: `${base}/` })).json;
      const d = await wsDriver(s.iframe_url, ref);
      await expect.poll(d.url, { timeout: 15_000 }).toContain(base);
      await d.click('#find');
      d.text('pear');
      // The page searched by itself; nothing else happens (no Enter, no click elsewhere).
      await expect.poll(() => site.asked.includes('pear'), { timeout: 10_000 }).toBe(true);
      const rec = await completeCapture(h, s.id);
      const fills = rec.log._capture.actions.filter((a: any) => a.type === 'fill');
      expect(fills.map((a: any) => [a.target?.placeholder, a.value])).toEqual([['Find a variety', 'pear']]);

      const c = await h.api('POST', '/v1beta/connectors', {
        display_name: 'varieties',
        purpose: 'find varieties',
        capture_session_id: s.id,
      });
      expect(c.status, c.text).toBe(200);
      const props = Object.keys(c.json.input_schema.properties);
      expect(props).toHaveLength(1);
      const out = await run(h, { connector_id: c.json.id, arguments: { [props[0]!]: 'plum' } });
      expect(out.status, JSON.stringify(out.error)).toBe('success');
      const text = JSON.stringify(out.result);
      expect(text).toContain('Plum Victoria');
      expect(text).not.toContain('Pear Comice');
    } finally {
      await ref.context().close();
    }
  }, 120_000);

  it("is in a recording made by the service's recorder outside a session too (stopped with the box focused)", async () => {
    const har = JSON.parse(
      await recordCaptured(browser, h.dataDir, 'typing-flush', base, async (page) => {
        await page.goto(`${base}/`);
        await page.locator('#find').pressSequentially('plum', { delay: 40 });
        await page.waitForResponse((r) => r.url().includes('q=plum'));
      }),
    );
    const fills = har.log._capture.actions.filter((a: any) => a.type === 'fill');
    expect(fills.map((a: any) => a.value)).toEqual(['plum']);
  }, 60_000);
});
