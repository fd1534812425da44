// file:// and other non-web schemes through the real server (issue 9, finding 1, first half):
// a browser connector navigating to file:///etc/passwd or the DATA_DIR, a page that sends itself
// or an iframe there, a script connector's ctx.page.goto/evaluate, a capture session's start_url
// and live-view URL bar. No file content (sentinel in DATA_DIR, /etc/passwd) ever comes back in
// a result, an error, the run logs, a live page or a recording; the service's API isn't reached.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from './helpers/harness.js';
import { wsViewer } from './helpers/live-view.js';
import { logsOf, publish, run } from './helpers/runs.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const PASSWD = /root:x?:0:0/;

async function startSite() {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(u.searchParams.get('html') ?? '<!doctype html><title>plain</title><body>plain page</body>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url,
    page: (html: string) => `${url}/?html=${encodeURIComponent(html)}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

// Chromium-heavy: once, on SQLite (nothing here depends on the database).
describe('file:// and other non-web schemes', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startSite>>;
  let sentinel: string;
  let sentinelFile: string;
  beforeAll(async () => {
    site = await startSite();
    h = await startHarness('sqlite', { CAPTURE_WARM_CONTEXTS: '0' });
    // Stands for another user's upload or recording in the data dir.
    sentinel = `SENTINEL-${crypto.randomUUID()}`;
    sentinelFile = path.join(h.dataDir, 'other-users-file.txt');
    fs.writeFileSync(sentinelFile, sentinel);
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  /** Everything a run hands back: the run (result, error) and its logs. */
  const everything = async (r: any) => JSON.stringify(r) + (await logsOf(h, r.id));

  const navigateDef = (url: string, extra: object[] = []) => ({
    definition: {
      format: 'connector-definition/v1',
      engine: 'browser',
      steps: [
        { action: 'navigate', url },
        ...extra,
        { action: 'extract', values: { text: { from: 'css', selector: 'html', required: false }, url: { from: 'url' } } },
      ],
      result: { text: '{{vars.text}}', url: '{{vars.url}}' },
    },
  });

  it('a browser connector navigating to file:///etc/passwd or into DATA_DIR fails with the egress message and returns nothing', async () => {
    for (const url of [
      'file:///etc/passwd',
      `file://${h.dataDir}/`,
      `file://${sentinelFile}`,
      'FILE:///etc/passwd',
      'view-source:file:///etc/passwd',
      'chrome://version',
      'data:text/html,<h1>x</h1>',
    ]) {
      const r = await run(h, { connector_id: (await publish(h, navigateDef(url))).id });
      expect(r, url).toMatchObject({
        status: 'connector_error',
        result: null,
        error: {
          type: 'invalid_input',
          retryable: false,
          message: expect.stringMatching(/^egress denied: [a-z-]+: URLs are not allowed \(only http, https and about:blank\)$/),
        },
      });
      const all = await everything(r);
      expect(all).not.toMatch(PASSWD);
      expect(all).not.toContain(sentinel);
      expect(all).not.toMatch(/master\.key|connector\.db|other-users-file/);
    }
  });

  // Chromium's own refusal of renderer-initiated file: loads, kept as a regression test (a launch
  // flag such as --allow-file-access-from-files, or a browser update, must not open it).
  it('a page that sends itself, a popup or an iframe to file:// gets nothing back', async () => {
    const html = `<!doctype html><body><p id=p>start</p><iframe id=f src="file://${sentinelFile}"></iframe><a id=a href="file:///etc/passwd">x</a>
      <script>
        window.open('file:///etc/passwd');
        setTimeout(() => { document.getElementById('a').click(); }, 50);
        setTimeout(() => { location = 'file://${sentinelFile}'; }, 100);
        setTimeout(() => { const d = document.createElement('div'); d.id = 'done'; document.body.appendChild(d); }, 400);
      </script></body>`;
    const r = await run(h, {
      connector_id: (
        await publish(
          h,
          navigateDef(site.page(html), [
            { action: 'wait', ms: 800 },
            { action: 'wait', selector: '#done', state: 'attached' },
          ]),
        )
      ).id,
    });
    // The page stayed where it was (Chromium refuses the renderer's file: navigations) and only its own content came back.
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(r.result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?html=/);
    const all = await everything(r);
    expect(all).not.toMatch(PASSWD);
    expect(all).not.toContain(sentinel);
  });

  it("a script connector's ctx.page.goto/evaluate can't open or read a file", async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'script',
        browser: true,
        source: `export default async (ctx) => {
          const out = {};
          for (const u of ctx.args.urls) {
            try { await ctx.page.goto(u); out[u] = 'OPENED ' + (await ctx.page.content()).slice(0, 200); }
            catch (e) { out[u] = String(e && e.message); }
          }
          await ctx.page.goto(ctx.args.page);
          out.fetch = await ctx.page.evaluate("fetch('file:///etc/passwd').then(r => r.text(), e => 'fetch: ' + e)");
          out.xhr = await ctx.page.evaluate("new Promise(res => { try { const x = new XMLHttpRequest(); x.open('GET', 'file:///etc/passwd'); x.onload = () => res(x.responseText); x.onerror = () => res('xhr error'); x.send(); } catch (e) { res('xhr: ' + e); } })");
          await ctx.page.evaluate("location = 'file:///etc/passwd'");
          await new Promise((r) => setTimeout(r, 500));
          try { out.after = (await ctx.page.url()) + ' ' + (await ctx.page.content()).slice(0, 300); } catch (e) { out.after = String(e && e.message); }
          return out;
        }`,
      },
    });
    const urls = [
      'file:///etc/passwd',
      `file://${sentinelFile}`,
      'view-source:file:///etc/passwd',
      'chrome://version',
      'javascript:1',
      'about:blank',
    ];
    const r = await run(h, { connector_id: c.id, arguments: { urls, page: site.page('<!doctype html><body>plain page</body>') } });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    for (const u of urls.slice(0, -1)) expect(r.result[u], u).toMatch(/^egress denied: [a-z-]+: URLs are not allowed/);
    expect(r.result['about:blank']).toMatch(/^OPENED /);
    expect(r.result.fetch).toMatch(/^fetch: TypeError/);
    expect(r.result.xhr).toMatch(/^xhr/);
    expect(r.result.after).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?html=.*plain page/s);
    const all = await everything(r);
    expect(all).not.toMatch(PASSWD);
    expect(all).not.toContain(sentinel);
  });

  it('a capture session: start_url and the live view URL bar open neither files nor the API, and the recording holds neither', async () => {
    const nonce = crypto.randomUUID();
    const port = Number(new URL(h.url).port);
    const S = '/v1beta/capture_sessions';
    for (const bad of ['file:///etc/passwd', `http://127.0.0.1:${port}/v1beta/secrets`, 'http://169.254.169.254/']) {
      const r = await h.api('POST', S, { start_url: bad });
      expect(r.status, bad).toBe(422);
      expect(r.json.detail[0].loc, bad).toEqual(['body', 'start_url']);
    }
    expect((await h.api('POST', S, { start_url: `http://localhost:${port}/healthz` })).json.detail[0].msg).toMatch(
      /^Value error, egress denied: localhost:\d+ \(.+\) is this service's own API \(always denied\)$/,
    );

    // A page that reaches for the API on its own, then a person typing file: and API URLs.
    const html = `<!doctype html><title>start</title><body>start page<img src="http://127.0.0.1:${port}/v1beta/secrets?probe=${nonce}&k=img"><script>fetch('http://localhost:${port}/v1beta/secrets?probe=${nonce}&k=fetch').catch(() => {})</script></body>`;
    const created = await h.api('POST', S, { start_url: site.page(html) });
    expect(created.status, created.text).toBe(200);
    const live = (h.services.captureSessions as any).live.get(created.json.id).rt.live;
    await expect.poll(() => live.page.url(), { timeout: 15_000 }).toMatch(/^http:\/\/127\.0\.0\.1/);
    const viewer = await wsViewer(created.json.iframe_url);
    for (const to of ['file:///etc/passwd', `file://${sentinelFile}`, 'view-source:file:///etc/passwd', 'chrome://version']) {
      viewer.send({ t: 'navigate', url: to });
      await new Promise((r) => setTimeout(r, 400));
      expect(live.page.url(), to).toMatch(/^http:\/\/127\.0\.0\.1/);
    }
    // The API typed in the URL bar (http or https): refused before the browser acts, the viewer is told why.
    for (const scheme of ['http', 'https']) {
      viewer.send({ t: 'navigate', url: `${scheme}://127.0.0.1:${port}/v1beta/secrets?probe=${nonce}&k=typed` });
      await expect.poll(() => viewer.msgs.filter((m) => m.t === 'denied').length, { timeout: 10_000 }).toBe(scheme === 'http' ? 1 : 2);
      expect(viewer.msgs.filter((m) => m.t === 'denied').at(-1).detail).toBe(
        `egress denied: 127.0.0.1:${port} is this service's own API (always denied)`,
      );
      expect(live.page.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?html=/);
    }
    // A link on the page to the API: the page can follow it, the context's proxy refuses it with the reason.
    await live.page.evaluate(`location = 'http://localhost:${port}/v1beta/secrets?probe=${nonce}&k=link'`);
    await expect
      .poll(() => live.page.content(), { timeout: 10_000 })
      .toMatch(/egress denied: localhost:\d+ \(.+\) is this service's own API \(always denied\)/);
    viewer.ws.close();
    const done = await h.api('POST', `${S}/${created.json.id}/complete`);
    expect([200, 202], done.text).toContain(done.status);
    await expect.poll(async () => (await h.api('GET', `${S}/${created.json.id}`)).json.state, { timeout: 15_000 }).toBe('completed');
    const rec = await h.api('GET', `${S}/${created.json.id}/recording`);
    expect(rec.status).toBe(200);
    expect(rec.text).not.toMatch(PASSWD);
    expect(rec.text).not.toContain(sentinel);
    expect(h.logs.filter((l) => l.includes(nonce))).toEqual([]);
  });
});
