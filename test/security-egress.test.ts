// Egress attacks through the real server (issue 9, findings 12 and the egress policy): http and
// script connectors aiming at cloud metadata, the service's own API (by IP, by `localhost`, by
// odd IP spellings, through a redirect from an allowed site), its PostgreSQL; EGRESS_PRIVATE and
// EGRESS_DENY; browser runs whose pages reach for the API (subresources, fetch, iframes,
// websockets, redirects over http and https). A denial fails the run connector_error naming the
// rule, and the API never sees the request (its request log is searched for a per-test nonce).
import crypto from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, logsOf, publish, run } from './helpers/runs.js';
import { fixtureHar, synthesizeFrom } from './helpers/synth.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

/** An allowed site on loopback: /ok, /redirect?to=…, /page?html=…; counts what it served. */
async function startSite() {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/redirect') return res.writeHead(302, { location: u.searchParams.get('to') ?? '/' }).end();
    if (u.pathname === '/fake-denial')
      return res.writeHead(200, { 'content-type': 'text/plain', 'x-egress-denied': 'egress denied: made up by the site' }).end('fine');
    if (u.pathname === '/page') return res.writeHead(200, { 'content-type': 'text/html' }).end(u.searchParams.get('html') ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
  });
  new WebSocketServer({ server }).on('connection', (ws) => ws.send('site-ws'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

const script = (source: string, extra: Record<string, unknown> = {}) => ({
  definition: { format: 'connector-definition/v1', engine: 'script', source, ...extra },
});
const httpGet = (url: string) => ({
  definition: {
    format: 'connector-definition/v1',
    engine: 'http',
    steps: [{ id: 'get', url, extract: { body: { from: 'body', required: false } } }],
    result: { body: '{{vars.body}}' },
  },
});
/** A script that tries each URL and reports what happened, so one run shows every attempt. */
const probeScript = `export default async (ctx) => {
  const out = {};
  for (const u of ctx.args.urls) {
    try { const r = await ctx.http.get(u, { timeoutMs: 5000 }); out[u] = 'REACHED ' + r.status + ' ' + r.text.slice(0, 80); }
    catch (e) { out[u] = String(e && e.message); }
  }
  return out;
}`;

const apiSeen = (h: Harness, nonce: string) => h.logs.filter((l) => l.includes(nonce)).length;

describe.each(await backends())('egress: http and script connectors (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startSite>>;
  let port: number;
  beforeAll(async () => {
    site = await startSite();
    h = await startHarness(backend);
    port = Number(new URL(h.url).port);
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('an http connector never reaches cloud metadata: connector_error naming the rule, at once', async () => {
    const c = await publish(h, httpGet('http://169.254.169.254/latest/meta-data/iam/security-credentials/'));
    const t0 = Date.now();
    const r = await run(h, { connector_id: c.id });
    expect(r).toMatchObject({
      status: 'connector_error',
      error: {
        type: 'invalid_input',
        retryable: false,
        message: 'egress denied: 169.254.169.254:80 is link-local/cloud metadata (always denied)',
      },
    });
    expect(Date.now() - t0).toBeLessThan(5000); // refused before any connection attempt
    expect(await logsOf(h, r.id)).toMatch(
      /GET http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\/security-credentials\/ refused: egress denied/,
    );
  });

  it("an http connector can't call the service's own API: by IP, by localhost, or via a redirect from an allowed site", async () => {
    const nonce = crypto.randomUUID();
    const api = `${h.url}/v1beta/secrets?probe=${nonce}`;
    // Control: a request that does reach the API shows in its log (so 0 below means "never reached").
    const control = crypto.randomUUID();
    await fetch(`${h.url}/v1beta/secrets?probe=${control}`);
    expect(apiSeen(h, control)).toBeGreaterThan(0);
    const direct = await run(h, { connector_id: (await publish(h, httpGet(api))).id });
    expect(direct).toMatchObject({
      status: 'connector_error',
      error: { type: 'invalid_input', message: `egress denied: 127.0.0.1:${port} is this service's own API (always denied)` },
    });
    const byName = await run(h, { connector_id: (await publish(h, httpGet(`http://localhost:${port}/v1beta/secrets?probe=${nonce}`))).id });
    expect(byName.error.message).toMatch(
      new RegExp(`^egress denied: localhost:${port} \\((127\\.0\\.0\\.1|::1)\\) is this service's own API \\(always denied\\)$`),
    );
    const before = site.hits.length;
    const hop = await run(h, { connector_id: (await publish(h, httpGet(`${site.url}/redirect?to=${encodeURIComponent(api)}`))).id });
    expect(hop).toMatchObject({
      status: 'connector_error',
      error: { message: `egress denied: 127.0.0.1:${port} is this service's own API (always denied)` },
    });
    expect(site.hits.length).toBe(before + 1); // the allowed first hop happened, the second never did
    // Denied by the listening address the server registered once listening, not only by PUBLIC_BASE_URL.
    const pub = h.config.publicBaseUrl;
    h.config.publicBaseUrl = 'https://connectors.example.com';
    try {
      expect((await run(h, { connector_id: (await publish(h, httpGet(api))).id })).error.message).toBe(
        `egress denied: 127.0.0.1:${port} is this service's own API (always denied)`,
      );
    } finally {
      h.config.publicBaseUrl = pub;
    }
    expect(apiSeen(h, nonce)).toBe(0);
    // The allowed site itself still works.
    expect(await run(h, { connector_id: (await publish(h, httpGet(`${site.url}/ok`))).id })).toMatchObject({
      status: 'success',
      result: { body: '{"ok":true}' },
    });
  });

  it("a script's ctx.http is held to the same rules, whatever the spelling of the address", async () => {
    const nonce = crypto.randomUUID();
    const c = await publish(h, script(probeScript));
    const urls = [
      `http://127.0.0.1:${port}/v1beta/secrets?probe=${nonce}`,
      `http://localhost:${port}/v1beta/secrets?probe=${nonce}`,
      `http://2130706433:${port}/v1beta/secrets?probe=${nonce}`, // 127.0.0.1 in decimal
      `http://0x7f.0.0.1:${port}/v1beta/secrets?probe=${nonce}`,
      `http://[::ffff:127.0.0.1]:${port}/v1beta/secrets?probe=${nonce}`,
      `http://0.0.0.0:${port}/v1beta/secrets?probe=${nonce}`, // Linux connects 0.0.0.0 to the local host
      `http://localhost.:${port}/v1beta/secrets?probe=${nonce}`,
      `${site.url}/redirect?to=${encodeURIComponent(`http://localhost:${port}/v1beta/secrets?probe=${nonce}`)}`,
      `${site.url}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'file:///etc/passwd',
      `${site.url}/ok`,
    ];
    const r = await run(h, { connector_id: c.id, arguments: { urls } });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    for (const u of urls.slice(0, -1)) expect(r.result[u], u).toMatch(/^egress denied: /);
    expect(r.result[urls[0]]).toMatch(/own API \(always denied\)$/);
    expect(r.result[urls[5]]).toMatch(/unspecified address \(always denied\)$/);
    expect(r.result['file:///etc/passwd']).toBe('egress denied: file: URLs are not allowed (only http, https)');
    expect(r.result[`${site.url}/ok`]).toBe('REACHED 200 {"ok":true}');
    expect(apiSeen(h, nonce)).toBe(0);
    // Not caught: the run fails with the egress message.
    const bare = await publish(h, script(`export default async (ctx) => (await ctx.http.get('http://169.254.169.254/')).text`));
    expect(await run(h, { connector_id: bare.id })).toMatchObject({
      status: 'connector_error',
      error: {
        type: 'invalid_input',
        message: expect.stringMatching(/^egress denied: 169\.254\.169\.254:80 is link-local\/cloud metadata/),
      },
    });
  });

  it('synthesis never makes the server call itself: a recording of its own origin fails replay with the egress message', async () => {
    // Requests the server received other than the test's own API and upload calls.
    const foreign = () => h.logs.filter((l) => /"url":"\/(?!v1beta\/|storage\/)/.test(l)).length;
    const before = foreign();
    const alice = await loginSecret(h, 'alice', 'wonderland');
    const r = await synthesizeFrom(h, fixtureHar('a-search', h.url), {
      website: h.url,
      hints: { arguments: { query: 'gamma' }, secrets: { account: alice } },
    });
    expect(r.status, r.text).toBe(422);
    expect(r.text).toMatch(/egress denied: 127\.0\.0\.1:\d+ is this service's own API \(always denied\)/);
    expect(foreign()).toBe(before);
  });

  it.runIf(backend === 'postgres')("no connector reaches the service's PostgreSQL (DATABASE_URL's endpoint)", async () => {
    const pg = new URL(h.config.databaseUrl!);
    const c = await publish(h, script(probeScript));
    const urls = [
      `http://${pg.hostname}:${pg.port || 5432}/`,
      `http://localhost:${pg.port || 5432}/`,
      `https://${pg.hostname}:${pg.port || 5432}/`,
    ];
    const r = await run(h, { connector_id: c.id, arguments: { urls } });
    for (const u of urls) expect(r.result[u], u).toMatch(/^egress denied: .*:5432.* is this service's database \(always denied\)$/);
    const direct = await run(h, { connector_id: (await publish(h, httpGet(urls[0]))).id });
    expect(direct).toMatchObject({
      status: 'connector_error',
      error: { message: expect.stringContaining("this service's database (always denied)") },
    });
  });
});

describe('egress settings: EGRESS_PRIVATE=deny, EGRESS_ALLOW, EGRESS_DENY', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let other: Awaited<ReturnType<typeof startSite>>;
  const harnesses: Harness[] = [];
  beforeAll(async () => {
    site = await startSite();
    other = await startSite();
  });
  afterAll(async () => {
    for (const x of harnesses) await x.close();
    await site?.close();
    await other?.close();
  });

  it('EGRESS_PRIVATE=deny refuses a loopback site; EGRESS_ALLOW re-opens exactly one host:port', async () => {
    const h = await startHarness('sqlite', { EGRESS_PRIVATE: 'deny', EGRESS_ALLOW: `127.0.0.1:${site.port}` });
    harnesses.push(h);
    const c = await publish(h, script(probeScript));
    const r = await run(h, {
      connector_id: c.id,
      arguments: { urls: [`${site.url}/ok`, `${other.url}/ok`, `http://[::1]:${other.port}/ok`] },
    });
    expect(r.result).toEqual({
      [`${site.url}/ok`]: 'REACHED 200 {"ok":true}',
      [`${other.url}/ok`]: `egress denied: 127.0.0.1:${other.port} is a private/loopback address (loopback; EGRESS_PRIVATE=deny)`,
      [`http://[::1]:${other.port}/ok`]: `egress denied: [::1]:${other.port} is a private/loopback address (loopback; EGRESS_PRIVATE=deny)`,
    });
    // The browser's proxy applies the same settings.
    const nav = (url: string) => ({
      definition: { format: 'connector-definition/v1', engine: 'browser', steps: [{ action: 'navigate', url }], result: { ok: true } },
    });
    expect(await run(h, { connector_id: (await publish(h, nav(`${site.url}/ok`))).id })).toMatchObject({ status: 'success' });
    const img = `${site.url}/page?html=${encodeURIComponent(`<img src="${other.url}/pixel">`)}`;
    const withImg = await run(h, { connector_id: (await publish(h, nav(img))).id });
    expect(withImg.status).toBe('success');
    expect(await logsOf(h, withImg.id)).toContain(
      `refused: egress denied: 127.0.0.1:${other.port} is a private/loopback address (loopback; EGRESS_PRIVATE=deny)`,
    );
    expect(await run(h, { connector_id: (await publish(h, nav(`${other.url}/ok`))).id })).toMatchObject({
      status: 'connector_error',
      error: { message: `egress denied: 127.0.0.1:${other.port} is a private/loopback address (loopback; EGRESS_PRIVATE=deny)` },
    });
    expect(other.hits).toEqual([]);
    // The always-denied set stays shut even for an allow entry that covers it.
    const h2 = await startHarness('sqlite', { EGRESS_ALLOW: '0.0.0.0/0,::/0,169.254.169.254' });
    harnesses.push(h2);
    const c2 = await publish(h2, script(probeScript));
    const r2 = await run(h2, { connector_id: c2.id, arguments: { urls: ['http://169.254.169.254/', `${h2.url}/healthz`] } });
    expect(r2.result['http://169.254.169.254/']).toMatch(/always denied/);
    expect(r2.result[`${h2.url}/healthz`]).toMatch(/own API \(always denied\)/);
  });

  it('through an upstream proxy (PROXY_URLS) the rules still hold: nothing denied is even handed to the proxy', async () => {
    const relayed: string[] = [];
    const upstream = http.createServer((req, res) => {
      relayed.push(`${req.method} ${req.url}`);
      const u = new URL(req.url ?? '');
      const fwd = http.request(
        { host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      fwd.on('error', () => res.writeHead(502).end());
      req.pipe(fwd);
    });
    upstream.on('connect', (req, sock: net.Socket) => {
      relayed.push(`CONNECT ${req.url}`);
      sock.destroy();
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    try {
      const h = await startHarness('sqlite', { PROXY_URLS: `auto=http://127.0.0.1:${(upstream.address() as net.AddressInfo).port}` });
      harnesses.push(h);
      const port = Number(new URL(h.url).port);
      const c = await publish(h, script(probeScript));
      const urls = [
        'http://169.254.169.254/latest/meta-data/',
        'https://169.254.169.254/',
        `http://localhost:${port}/healthz`,
        `https://127.0.0.1:${port}/healthz`,
        `${site.url}/ok`,
      ];
      const r = await run(h, { connector_id: c.id, arguments: { urls } });
      for (const u of urls.slice(0, 4)) expect(r.result[u], u).toMatch(/^egress denied: .*\(always denied\)$/);
      expect(r.result[`${site.url}/ok`]).toBe('REACHED 200 {"ok":true}');
      // A browser run chains through the same proxy, after the same check.
      const nav = (url: string) => ({
        definition: { format: 'connector-definition/v1', engine: 'browser', steps: [{ action: 'navigate', url }], result: { ok: true } },
      });
      const b = await run(h, {
        connector_id: (await publish(h, nav(`${site.url}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${port}/healthz`)}`))).id,
      });
      expect(b).toMatchObject({
        status: 'connector_error',
        error: { message: `egress denied: 127.0.0.1:${port} is this service's own API (always denied)` },
      });
      expect(relayed).toEqual([
        `GET ${site.url}/ok`,
        `GET ${site.url}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${port}/healthz`)}`,
      ]);
    } finally {
      upstream.closeAllConnections();
      await new Promise((r) => upstream.close(r));
    }
  });

  it('EGRESS_DENY refuses a listed host:port and leaves the rest alone; a bad entry stops the server from starting', async () => {
    const h = await startHarness('sqlite', { EGRESS_DENY: `127.0.0.1:${other.port}` });
    harnesses.push(h);
    const c = await publish(h, httpGet(`${other.url}/ok`));
    expect(await run(h, { connector_id: c.id })).toMatchObject({
      status: 'connector_error',
      error: { message: `egress denied: 127.0.0.1:${other.port} matches EGRESS_DENY entry '127.0.0.1:${other.port}'` },
    });
    expect(await run(h, { connector_id: (await publish(h, httpGet(`${site.url}/ok`))).id })).toMatchObject({ status: 'success' });
    await expect(startHarness('sqlite', { EGRESS_DENY: '10.0.0.0/8,10.0.0.0/33' })).rejects.toThrow(
      /EGRESS_DENY: '10\.0\.0\.0\/33' is not a CIDR/,
    );
  });
});

// Chromium-heavy: once, on SQLite (the policy itself is covered on both databases above).
describe('egress: browser runs', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startSite>>;
  let port: number;
  beforeAll(async () => {
    site = await startSite();
    h = await startHarness('sqlite');
    port = Number(new URL(h.url).port);
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  const browserDef = (url: string, waitSelector = 'body') => ({
    definition: {
      format: 'connector-definition/v1',
      engine: 'browser',
      steps: [
        { action: 'navigate', url },
        { action: 'wait', selector: waitSelector, state: 'attached' },
        { action: 'extract', values: { text: { from: 'css', selector: 'body', required: false } } },
      ],
      result: { text: '{{vars.text}}' },
    },
  });

  it("a page's subresources, fetch, iframes and websockets never reach the service's API", async () => {
    const nonce = crypto.randomUUID();
    const api = `http://127.0.0.1:${port}/v1beta/secrets?probe=${nonce}`;
    const viaName = `http://localhost:${port}/v1beta/secrets?probe=${nonce}`;
    const html = `<!doctype html><body><div id=out>start</div>
      <img src="${api}&k=img"><iframe src="${viaName}&k=iframe"></iframe><script src="${api}&k=script"></script>
      <script>
        const out = [];
        const done = () => { const d = document.createElement('div'); d.id = 'done'; d.textContent = out.join(' | '); document.body.appendChild(d); };
        Promise.all([
          fetch('${api}&k=fetch').then(r => r.status + ':' + r.headers.get('x-egress-denied'), e => 'fetch failed ' + e),
          fetch('${site.url}/ok').then(r => r.text(), e => 'site failed ' + e),
          new Promise(res => { const w = new WebSocket('ws://127.0.0.1:${port}/v1beta/secrets?probe=${nonce}&k=ws'); w.onopen = () => res('ws OPEN'); w.onerror = () => res('ws refused'); }),
          new Promise(res => { const w = new WebSocket('${site.url.replace('http', 'ws')}/'); w.onmessage = (e) => res('ws ' + e.data); w.onerror = () => res('site ws refused'); }),
        ]).then(r => { out.push(...r); done(); });
      </script></body>`;
    const c = await publish(h, browserDef(`${site.url}/page?html=${encodeURIComponent(html)}`, '#done'));
    const r = await run(h, { connector_id: c.id });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    // The API refused at the proxy (a 403 without CORS headers: a failed fetch); the allowed
    // site and its websocket work.
    expect(r.result.text).toContain('fetch failed TypeError: Failed to fetch');
    expect(r.result.text).toContain('{"ok":true}');
    expect(r.result.text).toContain('ws refused');
    expect(r.result.text).toContain('ws site-ws');
    expect(apiSeen(h, nonce)).toBe(0);
    // The run log says what the page tried and was refused.
    expect(await logsOf(h, r.id)).toContain(
      `the page's request was refused: egress denied: 127.0.0.1:${port} is this service's own API (always denied)`,
    );
  });

  it('a navigate step to cloud metadata or the API fails the run with the egress message (direct, and redirected over http and https)', async () => {
    const nonce = crypto.randomUUID();
    const meta = await run(h, { connector_id: (await publish(h, browserDef('http://169.254.169.254/latest/meta-data/'))).id });
    expect(meta).toMatchObject({
      status: 'connector_error',
      error: {
        type: 'invalid_input',
        retryable: false,
        message: 'egress denied: 169.254.169.254:80 is link-local/cloud metadata (always denied)',
      },
    });
    const self = await run(h, {
      connector_id: (await publish(h, browserDef(`http://localhost:${port}/v1beta/secrets?probe=${nonce}`))).id,
    });
    expect(self.error.message).toMatch(/^egress denied: localhost:\d+ \(.+\) is this service's own API \(always denied\)$/);
    for (const to of [
      `http://127.0.0.1:${port}/v1beta/secrets?probe=${nonce}`,
      `https://127.0.0.1:${port}/v1beta/secrets?probe=${nonce}`,
    ]) {
      const hop = await run(h, { connector_id: (await publish(h, browserDef(`${site.url}/redirect?to=${encodeURIComponent(to)}`))).id });
      expect(hop, to).toMatchObject({
        status: 'connector_error',
        error: { type: 'invalid_input', message: `egress denied: 127.0.0.1:${port} is this service's own API (always denied)` },
      });
    }
    // A click that follows a link to the API (http: refused by the proxy with a 403; https: a refused CONNECT).
    for (const to of [
      `http://localhost:${port}/v1beta/secrets?probe=${nonce}`,
      `https://localhost:${port}/v1beta/secrets?probe=${nonce}`,
    ]) {
      const page = `${site.url}/page?html=${encodeURIComponent(`<!doctype html><body><a id=go href="${to}">go</a></body>`)}`;
      const def = {
        definition: {
          format: 'connector-definition/v1',
          engine: 'browser',
          steps: [
            { action: 'navigate', url: page },
            { action: 'click', selector: '#go' },
          ],
          result: { ok: true },
        },
      };
      const clicked = await run(h, { connector_id: (await publish(h, def)).id });
      expect(clicked, to).toMatchObject({
        status: 'connector_error',
        error: {
          type: 'invalid_input',
          message: expect.stringMatching(/^egress denied: localhost:\d+ \(.+\) is this service's own API \(always denied\)$/),
        },
      });
    }
    expect(apiSeen(h, nonce)).toBe(0);
    // The same connector shape against the allowed site works, and a site can't fake a denial.
    expect(await run(h, { connector_id: (await publish(h, browserDef(`${site.url}/ok`))).id })).toMatchObject({
      status: 'success',
      result: { text: '{"ok":true}' },
    });
    expect(await run(h, { connector_id: (await publish(h, browserDef(`${site.url}/fake-denial`))).id })).toMatchObject({
      status: 'success',
      result: { text: 'fine' },
    });
  });
});
