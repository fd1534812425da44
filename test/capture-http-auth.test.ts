// A site behind HTTP Basic auth (a print server's admin, a router, Monit, Tomcat's manager), opened
// in a capture session. A browser would show its sign-in dialog; the live view has none, so the
// page shows the site's 401 — and a stored login pasted then answers the challenge (by secret id:
// the value never reaches the viewer), as the dialog would. The recording holds placeholders only
// (the Authorization header's token too); synthesis with nothing hinted makes the pasted login the
// connector's, which then runs with a bound login and a NEW argument. Before, a paste on the 401
// page typed the password into nothing, and such a site could not be recorded in a session at all.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { localSite } from './helpers/local-site.js';
import { completeCapture, wsDriver } from './helpers/live-view.js';
import { loginSecret, logsOf, run } from './helpers/runs.js';

const USER = 'grower';
const SENTINEL = 'Sentinel-Basic-pw-7Q2x';
const TOKEN = Buffer.from(`${USER}:${SENTINEL}`).toString('base64');
const CRATES = ['Bramley', 'Cox', 'Discovery', 'Egremont Russet'];

const PAGE = (q: string) => `<!doctype html><html><head><title>Crates</title></head><body>
<form action="/crates" method="get"><input id="q" name="q" value="${q}" style="font-size:20px;width:300px"> <button>Find</button></form>
<table><thead><tr><th>Variety</th><th>Crates</th></tr></thead><tbody>
${CRATES.filter((c) => c.toLowerCase().includes(q.toLowerCase()))
  .map((c, i) => `<tr><td>${c}</td><td>${10 + i * 7}</td></tr>`)
  .join('')}
</tbody></table></body></html>`;

function basicSite() {
  const seen = { challenged: 0, authorized: 0, asked: [] as string[] };
  const site = localSite((req, res) => {
    if (req.headers.authorization !== `Basic ${TOKEN}`) {
      seen.challenged++;
      return void res
        .writeHead(401, { 'www-authenticate': 'Basic realm="Orchard store"', 'content-type': 'text/html' })
        .end('<h1>401 Unauthorized</h1>');
    }
    seen.authorized++;
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/' || url.pathname === '/crates') {
      const q = url.searchParams.get('q') ?? '';
      if (q) seen.asked.push(q);
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE(q));
    }
    res.writeHead(404).end();
  });
  return { seen, ...site };
}

describe('a site behind HTTP Basic auth, recorded in a capture session (sqlite)', () => {
  let h: Harness;
  let browser: Browser;
  const site = basicSite();
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

  it('is signed in by a pasted login answering the challenge; the connector runs with the bound login and a new query', async () => {
    const secret = await loginSecret(h, USER, SENTINEL);
    // (The reference rendering, for coordinates only, signs in as a browser's dialog would.)
    const ref = await (
      await browser.newContext({ viewport: { width: 1280, height: 800 }, httpCredentials: { username: USER, password: SENTINEL } })
    ).newPage();
    try {
      await ref.goto(`${base}/`);
      const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: `${base}/` })).json;
      const d = await wsDriver(s.iframe_url, ref);
      await expect.poll(() => site.seen.challenged, { timeout: 15_000 }).toBeGreaterThan(0);
      // (A person sees the 401 page before pasting: the answer has reached the browser by then.)
      await new Promise((r) => setTimeout(r, 1000));
      const before = site.seen.authorized;
      const paste = await h.api('POST', `/v1beta/capture_sessions/${s.id}/paste`, { field: 'password', secret_id: secret });
      expect(paste.status, paste.text).toBe(204);
      await expect.poll(() => site.seen.authorized, { timeout: 10_000 }).toBeGreaterThan(before);

      await d.click('#q');
      d.text('bram');
      await d.press('Enter');
      await expect.poll(() => site.seen.asked, { timeout: 10_000 }).toContain('bram');
      const rec = await completeCapture(h, s.id);

      // The recording: placeholders where the login was, in the header's Basic token too.
      const text = JSON.stringify(rec);
      for (const v of [SENTINEL, TOKEN, encodeURIComponent(SENTINEL)]) expect(text).not.toContain(v);
      expect(rec.log._capture.actions.filter((a: any) => a.type === 'paste').map((a: any) => a.secret.field)).toEqual([
        'username',
        'password',
      ]);

      const c = await h.api('POST', '/v1beta/connectors', { display_name: 'crates', purpose: 'find crates', capture_session_id: s.id });
      expect(c.status, c.text).toBe(200);
      expect(c.json.required_secrets.map((x: any) => [x.name, x.type])).toEqual([['account', 'login']]);
      const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
      const defText = JSON.stringify(def);
      for (const v of [SENTINEL, TOKEN, USER]) expect(defText).not.toContain(v);
      expect(defText).toMatch(/secrets\.account\.basic|"basic_auth":"account"/);

      const props = Object.keys(c.json.input_schema.properties);
      expect(props).toHaveLength(1);
      const out = await run(h, { connector_id: c.json.id, arguments: { [props[0]!]: 'cox' }, secret_bindings: { account: secret } });
      expect(out.status, JSON.stringify(out.error)).toBe('success');
      const result = JSON.stringify(out.result);
      expect(result).toContain('Cox');
      expect(result).not.toContain('Bramley');
      const logs = await logsOf(h, out.id);
      for (const v of [SENTINEL, TOKEN]) expect(logs).not.toContain(v);
    } finally {
      await ref.context().close();
    }
  }, 120_000);
});
