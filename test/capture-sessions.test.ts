// Capture sessions API with a real Chromium: states and conflicts, ownership, validation, paste
// errors, cookies and start_url in effect, use_proxy through a local recording proxy, the
// concurrency limit. Runs on SQLite and PostgreSQL (one app and one browser per backend).
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDemoSite, BOB_TOTP_SEED, type DemoSite } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';

// A real browser on a shared 2-core machine: generous limits, so load elsewhere doesn't fail us.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

/** A forward HTTP proxy on loopback that remembers every URL it carried. */
async function startRecordingProxy() {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const u = new URL(req.url ?? '');
    const up = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  server.on('connect', (_req, sock: net.Socket) => sock.destroy()); // no TLS tunnels needed here
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { seen, url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, close: () => new Promise((r) => server.close(r)) };
}

const waitState = async (h: Harness, id: string, state: string, timeout = 15_000) =>
  expect.poll(async () => (await h.api('GET', `/v1beta/capture_sessions/${id}`)).json.state, { timeout }).toBe(state);

describe.each(await backends())('capture sessions API (%s)', (backend) => {
  let h: Harness;
  let site: DemoSite;
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  let other: { userId: string; key: string };
  const S = '/v1beta/capture_sessions';

  beforeAll(async () => {
    site = await startDemoSite();
    proxy = await startRecordingProxy();
    // One user may hold both sessions here: this suite tests the process-wide limit.
    h = await startHarness(backend, {
      CAPTURE_MAX_SESSIONS: '2',
      CAPTURE_MAX_SESSIONS_PER_USER: '2',
      CAPTURE_WARM_CONTEXTS: '1',
      CAPTURE_PROXY_URL: proxy.url,
    });
    other = await h.newUser('intruder');
  });
  afterAll(async () => {
    await h?.close();
    await proxy?.close();
    await site?.close();
  });

  it('creates with an absent, null or empty body; lists newest first; gets by id', async () => {
    const a = await h.api('POST', S);
    const b = await h.api('POST', S, null);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.json).toMatchObject({
      state: 'active',
      browser_session_id: expect.any(String),
      iframe_url: expect.stringContaining('/live/'),
    });
    // The SPEC fields, plus the extension iframe_view_url (read-only live view, docs/live-view.md).
    expect(Object.keys(a.json).sort()).toEqual([
      'browser_session_id',
      'created_at',
      'id',
      'iframe_url',
      'iframe_view_url',
      'state',
      'updated_at',
    ]);
    // The limit is 2: a third session is refused at once, clearly.
    const t0 = Date.now();
    const c = await h.api('POST', S, {});
    expect(c.status).toBe(429);
    expect(c.json.detail).toMatch(/maximum 2/);
    expect(c.headers.get('retry-after')).toBe('5');
    expect(Date.now() - t0).toBeLessThan(2000);
    const list = await h.api('GET', S);
    expect(list.json.map((s: any) => s.id)).toEqual([b.json.id, a.json.id]);
    expect((await h.api('GET', `${S}/${a.json.id}`)).json).toEqual(a.json);
    // Abandon: 200 with the session, browser released; capacity comes back.
    for (const s of [a, b]) {
      const r = await h.api('POST', `${S}/${s.json.id}/abandon`);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        id: s.json.id,
        state: 'abandoned',
        browser_session_id: null,
        iframe_url: null,
        iframe_view_url: null,
      });
    }
    const d = await h.api('POST', S, {});
    expect(d.status).toBe(200);
    await h.api('POST', `${S}/${d.json.id}/abandon`);
  });

  it('a row left active without a browser in this process (server restart) reads as failed', async () => {
    const now = new Date().toISOString();
    await h.services.db
      .insertInto('capture_sessions')
      .values({
        id: 'orphan-1',
        user_id: h.userId,
        state: 'active',
        browser_session_id: 'gone',
        use_proxy: 0,
        start_url: null,
        recording_key: null,
        recording_size: null,
        end_reason: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const g = await h.api('GET', `${S}/orphan-1`);
    expect(g.json).toMatchObject({ state: 'failed', browser_session_id: null, iframe_url: null, iframe_view_url: null });
    expect((await h.api('POST', `${S}/orphan-1/complete`)).status).toBe(409);
    const row = await h.services.db
      .selectFrom('capture_sessions')
      .select(['state', 'end_reason'])
      .where('id', '=', 'orphan-1')
      .executeTakeFirst();
    expect(row).toEqual({ state: 'failed', end_reason: 'browser lost (server restarted)' });
  });

  it('rejects bad bodies with 422', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ use_proxy: 'yes' }, ['body', 'use_proxy']],
      [{ extra: 1 }, ['body', 'extra']],
      [{ start_url: 'file:///etc/passwd' }, ['body', 'start_url']],
      [{ cookies: [{ value: 'x' }] }, ['body', 'cookies', 0, 'name']],
      [{ cookies: [{ name: 'a', value: 'b', domain: 5 }] }, ['body', 'cookies', 0, 'domain']],
      [[1], ['body']],
    ];
    for (const [body, loc] of cases) {
      const r = await h.api('POST', S, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.json.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    expect((await h.api('GET', S)).json.filter((s: any) => s.state === 'active')).toEqual([]);
  });

  it('state conflicts are 409; another user sees 404 everywhere', async () => {
    const s = (await h.api('POST', S)).json;
    for (const [m, p] of [
      ['GET', `${S}/${s.id}`],
      ['POST', `${S}/${s.id}/complete`],
      ['POST', `${S}/${s.id}/abandon`],
      ['GET', `${S}/${s.id}/recording`],
    ]) {
      expect((await h.api(m, p, undefined, other.key)).status, p).toBe(404);
    }
    expect((await h.api('POST', `${S}/${s.id}/paste`, { field: 'username', secret_id: 'x' }, other.key)).status).toBe(404);
    expect((await h.api('GET', S, undefined, other.key)).json).toEqual([]);
    expect((await h.api('GET', `${S}/nope`)).status).toBe(404);
    expect((await h.api('GET', `${S}/${s.id}/recording`)).status).toBe(409);

    expect((await h.api('POST', `${S}/${s.id}/complete`)).status).toBe(202);
    expect((await h.api('POST', `${S}/${s.id}/complete`)).status).toBe(409);
    const ab = await h.api('POST', `${S}/${s.id}/abandon`);
    expect(ab.status).toBe(409);
    expect(ab.json.detail).toMatch(/only an active session/);
    await waitState(h, s.id, 'completed');
    expect((await h.api('POST', `${S}/${s.id}/abandon`)).status).toBe(409);
    const rec = await h.api('GET', `${S}/${s.id}/recording`);
    expect(rec.status).toBe(200);
    expect(rec.json.log.version).toBe('1.2');

    const t = (await h.api('POST', S)).json;
    expect((await h.api('POST', `${S}/${t.id}/abandon`)).status).toBe(200);
    expect((await h.api('POST', `${S}/${t.id}/complete`)).status).toBe(409);
    expect((await h.api('POST', `${S}/${t.id}/abandon`)).status).toBe(409);
    expect((await h.api('GET', `${S}/${t.id}/recording`)).json.detail).toMatch(/abandoned/);
  });

  it('paste: clear 4xx for unknown, foreign and string secrets, totp without seed, inactive session', async () => {
    const mine = (await h.api('POST', '/v1beta/secrets', { name: 'plain', secret_type: 'login', username: 'u', password: 'p' })).json.id;
    const str = (await h.api('POST', '/v1beta/secrets', { name: 'str', secret_type: 'string', value: 'v' })).json.id;
    const theirs = (
      await h.api(
        'POST',
        '/v1beta/secrets',
        { name: 'x', secret_type: 'login', username: 'u', password: 'p', totp_secret: BOB_TOTP_SEED },
        other.key,
      )
    ).json.id;
    const s = (await h.api('POST', S)).json;
    const paste = (body: unknown) => h.api('POST', `${S}/${s.id}/paste`, body);
    expect((await paste({ field: 'password', secret_id: 'nope' })).status).toBe(404);
    expect((await paste({ field: 'password', secret_id: theirs })).status).toBe(404);
    const r1 = await paste({ field: 'password', secret_id: str });
    expect([r1.status, r1.json.detail[0].loc]).toEqual([422, ['body', 'secret_id']]);
    const r2 = await paste({ field: 'totp', secret_id: mine });
    expect([r2.status, r2.json.detail[0].loc]).toEqual([422, ['body', 'field']]);
    expect((await paste({ field: 'pin', secret_id: mine })).status).toBe(422);
    expect((await paste({ field: 'password' })).status).toBe(422);
    expect((await paste({ field: 'password', secret_id: mine })).status).toBe(204);
    await h.api('POST', `${S}/${s.id}/abandon`);
    expect((await paste({ field: 'password', secret_id: mine })).status).toBe(409);
  });

  it('cookies are set before the page loads and start_url opens it', async () => {
    const s = await h.api('POST', S, {
      start_url: `${site.url}/login`,
      cookies: [
        { name: 'pref', value: 'dark', domain: '127.0.0.1', path: '/', secure: false, http_only: true },
        { name: 'lang', value: 'de' },
      ],
    });
    expect(s.status).toBe(200);
    await new Promise((r) => setTimeout(r, 800));
    expect((await h.api('POST', `${S}/${s.json.id}/complete`)).status).toBe(202);
    await waitState(h, s.json.id, 'completed');
    const log = (await h.api('GET', `${S}/${s.json.id}/recording`)).json.log;
    const doc = log.entries.find((e: any) => e.request.url === `${site.url}/login`);
    const cookie = doc.request.headers.find((x: any) => x.name.toLowerCase() === 'cookie').value;
    expect(cookie).toContain('pref=dark');
    expect(cookie).toContain('lang=de');
    expect(log._capture.start_url).toBe(`${site.url}/login`);
    expect(log._capture.initial_cookies).toEqual([
      { name: 'pref', domain: '127.0.0.1', path: '/' },
      { name: 'lang', domain: null, path: null },
    ]);
    expect(JSON.stringify(log._capture)).not.toContain('dark');
    expect(log._capture.actions[0]).toMatchObject({ type: 'navigate', cause: 'start', to: `${site.url}/login` });
  });

  it("a site's service worker answers none of the page's requests: they reach the site and the recording", async () => {
    // (A worker would answer the page's requests inside the browser — LAM's PWA worker does — and the
    // recording would hold its copies, not what the site said.)
    const hits: string[] = [];
    const pwa = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/sw.js')
        return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(`
          self.addEventListener('install', () => self.skipWaiting());
          self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
          self.addEventListener('fetch', (e) => e.respondWith(new Response('from the worker')));`);
      if (req.url === '/')
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>pwa</title><script>
          navigator.serviceWorker.register('/sw.js').catch(() => {});
          setTimeout(() => fetch('/after-worker'), 1500);
        </script>`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('from the site');
    });
    await new Promise<void>((r) => pwa.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(pwa.address() as net.AddressInfo).port}`;
      const s = await h.api('POST', S, { start_url: `${base}/` });
      expect(s.status).toBe(200);
      await expect.poll(() => hits.includes('/after-worker'), { timeout: 20_000 }).toBe(true);
      expect((await h.api('POST', `${S}/${s.json.id}/complete`)).status).toBe(202);
      await waitState(h, s.json.id, 'completed');
      const log = (await h.api('GET', `${S}/${s.json.id}/recording`)).json.log;
      const last = log.entries.find((e: any) => e.request.url.endsWith('/after-worker'));
      expect(last.response.content.text).toBe('from the site');
    } finally {
      await new Promise((r) => pwa.close(r));
    }
  });

  it('use_proxy routes the session through the configured proxy; without it nothing goes there', async () => {
    const before = proxy.seen.length;
    const plain = (await h.api('POST', S, { start_url: `${site.url}/login?via=direct` })).json;
    const s = await h.api('POST', S, { use_proxy: true, start_url: `${site.url}/login?via=proxy` });
    expect(s.status).toBe(200);
    await expect.poll(() => proxy.seen.some((u) => u.includes('/login?via=proxy')), { timeout: 20_000 }).toBe(true);
    expect(proxy.seen.slice(before).some((u) => u.includes('via=direct'))).toBe(false);
    // Abandon answers at once even when closing the context takes long (open proxied requests).
    for (const x of [plain, s.json]) {
      const t = Date.now();
      expect((await h.api('POST', `${S}/${x.id}/abandon`)).status).toBe(200);
      expect(Date.now() - t).toBeLessThan(5000);
    }
  });
});
