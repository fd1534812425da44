// A create flow whose name is a single word (a wiki page "Plum"), recorded in Chromium on a small
// site shaped like Fossil's wiki editor: a login form with a per-render token, then a JSON save
// call that answers 403 when the page already exists. The validation replay must not meet the
// page its own recording made; a run that does gets the site's reason, after one clean re-login.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, logsOf, run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

function wikiSite() {
  const pages = new Map<string, string>();
  /** Session → the password it logged in with (a careless site echoes it in its errors). */
  const sessions = new Map<string, string>();
  const tokens = new Set<string>();
  const cookieOf = (req: http.IncomingMessage) => /(?:^|; )sess=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  const html = (res: http.ServerResponse, body: string) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><title>Wiki</title></head><body>${body}</body></html>`);
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const read = (req: http.IncomingMessage) =>
    new Promise<string>((resolve) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => resolve(b));
    });
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const session = cookieOf(req);
    const logged = !!session && sessions.has(session);
    if (url.pathname === '/login' && req.method === 'GET') {
      // Logged in already: no form (as Fossil's /login shows its logout form instead).
      if (logged) return html(res, '<p>You are logged in as ann.</p>');
      const tok = randomUUID();
      tokens.add(tok);
      return html(
        res,
        `<form method="post" action="/login"><input name="u"><input name="p" type="password"><input type="hidden" name="tok" value="${tok}"><button>Log in</button></form>`,
      );
    }
    if (url.pathname === '/login' && req.method === 'POST') {
      const f = new URLSearchParams(await read(req));
      if (f.get('u') !== 'ann' || f.get('p') !== 'plum-pass-1' || !tokens.delete(f.get('tok') ?? '')) return html(res, '<p>Wrong.</p>');
      const s = randomUUID();
      sessions.set(s, f.get('p')!);
      res.writeHead(302, { location: '/', 'set-cookie': `sess=${s}; Path=/; HttpOnly` });
      return res.end();
    }
    if (url.pathname === '/' && logged) {
      return html(
        res,
        `<input id="name" aria-label="Page name"><textarea id="content" aria-label="Content"></textarea><button id="save">Save</button><p id="out"></p>
<script>document.getElementById('save').onclick = async () => {
  const r = await fetch('/api/save', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ page: document.getElementById('name').value, content: document.getElementById('content').value }) });
  document.getElementById('out').textContent = (await r.json()).name || 'error';
};</script>`,
      );
    }
    if (url.pathname === '/api/save' && req.method === 'POST') {
      if (!logged) return json(res, 403, { error: 'not logged in' });
      const b = JSON.parse(await read(req));
      if (pages.has(b.page))
        return json(res, 403, { error: `page ${b.page} exists already`, login: { user: 'ann', password: sessions.get(session!) } });
      pages.set(b.page, b.content);
      return json(res, 200, { name: b.page, content: b.content });
    }
    res.writeHead(302, { location: '/login' });
    res.end();
  });
  return { server, pages };
}

describe.each(await backends())('a created name that is one word (%s)', (backend) => {
  let h: Harness;
  const site = wikiSite();
  let base = '';
  let har = '';
  let secret = '';
  let connectorId = '';
  beforeAll(async () => {
    await new Promise<void>((r) => site.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
    h = await startHarness(backend);
    secret = await loginSecret(h, 'ann', 'plum-pass-1');
    // Recorded as a user does: Playwright's recordHar.
    const file = `${h.dataDir}/plum.har`;
    const browser = await openChromium();
    try {
      const ctx = await browser.newContext({ recordHar: { path: file, content: 'embed' } });
      const page = await ctx.newPage();
      await page.goto(`${base}/login`);
      await page.fill('input[name=u]', 'ann');
      await page.fill('input[name=p]', 'plum-pass-1');
      await Promise.all([page.waitForURL(`${base}/`), page.click('button')]);
      await page.fill('#name', 'Plum');
      await page.fill('#content', 'Plums are purple.');
      await page.click('#save');
      await page.waitForFunction(() => document.getElementById('out')?.textContent === 'Plum');
      await ctx.close();
    } finally {
      await browser.close();
    }
    har = (await import('node:fs')).readFileSync(file, 'utf8');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    site.server.closeAllConnections();
    await new Promise((r) => site.server.close(r));
  });

  it('validation replays with a fresh name once the recorded one is refused, and publishes', async () => {
    expect([...site.pages.keys()]).toEqual(['Plum']);
    const r = await synthesizeFrom(h, har, {
      hints: { arguments: { name: 'Plum', content: 'Plums are purple.' }, secrets: { account: secret }, allow_side_effects: true },
    });
    expect(r.status, r.text).toBe(200);
    connectorId = r.json.id;
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.validation.reason).toMatch(/fresh values for .*\bname\b/);
    const made = [...site.pages.keys()].filter((k) => k !== 'Plum');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^Plum[0-9a-f]{4}$/);
  });

  it('a run with a new name creates it; with a taken one it says why, after one re-login from a clean session', async () => {
    const ok = await run(h, {
      connector_id: connectorId,
      arguments: { name: 'Greengage', content: 'Green plums.' },
      secret_bindings: { account: secret },
    });
    expect(ok.status, JSON.stringify(ok.error)).toBe('success');
    expect(site.pages.get('Greengage')).toBe('Green plums.');
    const taken = await run(h, {
      connector_id: connectorId,
      arguments: { name: 'Greengage', content: 'Again.' },
      secret_bindings: { account: secret },
    });
    expect(taken.status).toBe('connector_error');
    // The login chain ran again and logged in (the old session's cookie would have shown no form).
    expect(taken.error).toMatchObject({ type: 'auth_required', message: expect.stringMatching(/also after logging in again/) });
    expect(taken.error.details.body).toContain('page Greengage exists already');
    // The site's answer goes with the error, but never the secret it echoes (scrubbed in the host).
    expect(JSON.stringify(taken)).not.toContain('plum-pass-1');
    expect(await logsOf(h, taken.id)).not.toContain('plum-pass-1');
    expect((await logsOf(h, taken.id)).match(/POST [^\n]*\/login → 302/g)).toHaveLength(2);
    expect(site.pages.get('Greengage')).toBe('Green plums.');
  });
});
