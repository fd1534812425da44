// A number typed as a whole number into an input that takes fractions (`step="0.1"`: a spam
// filter's reject score, a price) is a `number` argument: the connector recorded with 18 runs with
// 22.5. Before, the example's form alone decided (`integer`), and the run was refused with 422.
// Recorded by the service's own recorder in Chromium (the action log carries the input's step)
// from a page whose form a script builds (the recorded HTML has no such input).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { recordCaptured } from './helpers/acceptance.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { localSite } from './helpers/local-site.js';
import { run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

const PAGE = `<!doctype html><html><head><title>Thresholds</title></head><body>
<div id="app"></div>
<script>
const app = document.getElementById('app');
app.innerHTML = '<label>Reject above <input id="reject" type="number" step="0.1"></label>' +
  '<label>Retries <input id="retries" type="number"></label> <button id="save">Save</button> <p id="saved"></p>';
document.getElementById('save').addEventListener('click', async () => {
  const body = { reject: Number(document.getElementById('reject').value), retries: Number(document.getElementById('retries').value) };
  const r = await fetch('/api/thresholds', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  document.getElementById('saved').textContent = JSON.stringify(await r.json());
});
</script></body></html>`;

function thresholdSite() {
  const saved: unknown[] = [];
  const site = localSite((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (url.pathname === '/api/thresholds' && req.method === 'POST') {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        const got = JSON.parse(b);
        saved.push(got);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ saved: true, ...got }));
      });
      return;
    }
    res.writeHead(404).end();
  });
  return { saved, ...site };
}

describe('a whole number typed into an input that takes fractions (sqlite)', () => {
  let h: Harness;
  let browser: Browser;
  const site = thresholdSite();
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

  it('is a number argument (the run takes 22.5); one typed into a whole-step input stays an integer', async () => {
    const har = await recordCaptured(browser, h.dataDir, 'number-step', base, async (page) => {
      await page.goto(`${base}/`);
      await page.locator('#reject').fill('18');
      await page.locator('#retries').fill('12');
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/thresholds')), page.locator('#save').click()]);
    });
    const fills = JSON.parse(har).log._capture.actions.filter((a: any) => a.type === 'fill');
    expect(fills.map((a: any) => [a.target.id, a.target.step])).toEqual([
      ['reject', '0.1'],
      ['retries', null],
    ]);

    const c = await synthesizeFrom(h, har, {
      display_name: 'thresholds',
      purpose: 'set the thresholds',
      hints: { allow_side_effects: true },
    });
    expect(c.status, c.text).toBe(200);
    const props = c.json.input_schema.properties;
    const byExample = (v: number) => Object.keys(props).find((k) => props[k].examples?.[0] === v)!;
    const [reject, retries] = [byExample(18), byExample(12)];
    expect(props[reject]).toMatchObject({ type: 'number' });
    expect(props[retries]).toMatchObject({ type: 'integer' });

    const out = await run(h, { connector_id: c.json.id, arguments: { [reject]: 22.5, [retries]: 13 } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(site.saved.at(-1)).toEqual({ reject: 22.5, retries: 13 });
  }, 120_000);
});
