// A site behind HTTP Digest authentication (RFC 7616: Nagios as Debian ships it, routers, cameras,
// older admin tools). The browser answers the challenge in its network stack, out of the
// recording's sight; the connector answers it with the hinted login (`basic_auth`), computing a
// new answer for every request: its method and URI, a count per nonce, a fresh client nonce. The
// site here checks each answer itself (and Chromium's answers show its check is right), counts
// replays, and calls a nonce stale after a few requests. The password never appears anywhere.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { recordLive } from './helpers/acceptance.js';
import { completeCapture, wsDriver } from './helpers/live-view.js';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { loginSecret, logsOf, publish, run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

const tag = crypto.randomBytes(5).toString('hex');
const USER = `ops-${tag}`;
const PASS = `S3nt:nel pw+/${tag}`;
const REALM = 'greenhouse';
const leaks = (text: string) =>
  [PASS, encodeURIComponent(PASS), JSON.stringify(PASS).slice(1, -1), Buffer.from(PASS).toString('base64')].filter((f) => text.includes(f));

const PLANTS = ['Apple tree', 'Apple mint', 'Pear tree', 'Plum tree', 'Cherry plum', 'Quince'];
const PAGE = `<!doctype html><title>Greenhouse console</title><input id=q placeholder="Search plants"><ul id=out></ul><script>
document.getElementById('q').addEventListener('keydown', async (e) => {
  if (e.key !== 'Enter') return;
  const r = await fetch('/api/plants?q=' + encodeURIComponent(e.target.value)).then((r) => r.json());
  document.getElementById('out').innerHTML = r.plants.map((p) => '<li>' + p.name + '</li>').join('');
});
</script>`;

const H = (alg: string, s: string) =>
  crypto
    .createHash(alg === 'SHA-256' ? 'sha256' : 'md5')
    .update(s)
    .digest('hex');

/** The site's own check of a Digest answer (RFC 7616 §3.4, qop=auth). */
function digestSite(opts: { algorithms: string[]; usesPerNonce: number }) {
  const nonces = new Map<string, { uses: number; lastNc: number }>();
  const log = { accepted: [] as { agent: string; algorithm: string; nc: string }[], refused: [] as string[], replays: 0, stale: 0 };
  const challenge = (res: http.ServerResponse, stale = false) => {
    const nonce = crypto.randomBytes(12).toString('base64');
    nonces.set(nonce, { uses: 0, lastNc: 0 });
    res.writeHead(401, {
      'www-authenticate': opts.algorithms.map(
        (a) => `Digest realm="${REALM}", qop="auth", algorithm=${a}, nonce="${nonce}", opaque="op-${tag}"${stale ? ', stale=true' : ''}`,
      ),
      'content-type': 'text/plain',
    });
    res.end('sign in');
  };
  const check = (req: http.IncomingMessage): 'ok' | 'stale' | 'refused' => {
    const h = req.headers.authorization ?? '';
    if (!/^Digest /.test(h)) return 'refused';
    const p = Object.fromEntries([...h.matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)].map((m) => [m[1], m[2] ?? m[3]]));
    const alg = p.algorithm ?? 'MD5';
    const n = nonces.get(p.nonce);
    if (!opts.algorithms.includes(alg) || p.username !== USER || p.realm !== REALM || p.uri !== req.url || p.qop !== 'auth' || !n)
      return 'refused';
    const ha1 = H(alg, `${USER}:${REALM}:${PASS}`);
    const ha2 = H(alg, `${req.method}:${p.uri}`);
    if (p.response !== H(alg, `${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:auth:${ha2}`)) return 'refused';
    const nc = Number.parseInt(p.nc, 16);
    if (nc <= n.lastNc) {
      log.replays++;
      return 'refused';
    }
    n.lastNc = nc;
    if (++n.uses > opts.usesPerNonce) {
      log.stale++;
      return 'stale';
    }
    log.accepted.push({ agent: String(req.headers['user-agent']), algorithm: alg, nc: p.nc });
    return 'ok';
  };
  const server = http.createServer((req, res) => {
    const verdict = check(req);
    if (verdict !== 'ok') {
      if (verdict === 'refused' && req.headers.authorization) log.refused.push(req.url!);
      return challenge(res, verdict === 'stale');
    }
    const u = new URL(req.url!, 'http://x');
    // (A redirect on the same origin: the next request needs an answer for its own URI.)
    if (u.pathname === '/go') {
      res.writeHead(302, { location: `/api/plants?q=${encodeURIComponent(u.searchParams.get('q') ?? '')}` }).end();
      return;
    }
    if (u.pathname === '/api/plants') {
      const q = (u.searchParams.get('q') ?? '').toLowerCase();
      const plants = PLANTS.filter((p) => p.toLowerCase().includes(q)).map((name, i) => ({ id: i + 1, name }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ plants }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  return { server, log };
}

describe.each(await backends())('a site behind HTTP Digest authentication (%s)', (backend) => {
  let h: Harness;
  let browser: Browser;
  const sites: http.Server[] = [];
  const start = async (opts: { algorithms: string[]; usesPerNonce: number }) => {
    const s = digestSite(opts);
    await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
    sites.push(s.server);
    return { ...s, base: `http://127.0.0.1:${(s.server.address() as AddressInfo).port}` };
  };
  beforeAll(async () => {
    h = await startHarness(backend);
    browser = await openChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    for (const s of sites) s.close();
  });

  it('recorded through the browser, synthesized with the hinted login, and run with new arguments: every request answered anew', async () => {
    const site = await start({ algorithms: ['SHA-256', 'MD5'], usesPerNonce: 100 });
    const har = await recordLive(
      browser,
      h.dataDir,
      'digest',
      site.base,
      async (page, b) => {
        await page.goto(b);
        await page.fill('#q', 'apple');
        await Promise.all([page.waitForResponse((r) => r.url().includes('/api/plants')), page.press('#q', 'Enter')]);
      },
      { httpCredentials: { username: USER, password: PASS } },
    );
    // Chromium's own answers pass the site's check: the check is RFC 7616's.
    expect(site.log.accepted.filter((a) => !a.agent.startsWith('ConnectorService')).length).toBeGreaterThanOrEqual(2);
    expect(site.log.refused).toEqual([]);
    expect(leaks(har)).toEqual([]);
    // The HAR holds Chromium's answers (hashes): without a named login there is nothing to answer with.
    expect(har).toMatch(/"Digest username=/);
    const unnamed = await synthesizeFrom(h, har, { hints: { arguments: { query: 'apple' } } });
    expect(unnamed.status).toBe(422);
    expect(unnamed.text).toContain('HTTP Digest credentials');
    expect(leaks(unnamed.text)).toEqual([]);
    const account = await loginSecret(h, USER, PASS);
    const r = await synthesizeFrom(h, har, { hints: { arguments: { query: 'apple' }, secrets: { account } } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json;
    expect(def.definition.basic_auth).toBe('account');
    // (No recorded answer is kept: each is good for one method, URI and count.)
    expect(JSON.stringify(def.definition.steps)).not.toMatch(/authorization|Digest /i);
    expect(def.definition.meta.validation).toMatchObject({ replayed: true });
    expect(leaks(JSON.stringify(def) + r.text)).toEqual([]);

    site.log.accepted.length = 0;
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'plum' }, secret_bindings: { account } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(JSON.stringify(out.result)).toContain('Cherry plum');
    expect(JSON.stringify(out.result)).not.toContain('Apple');
    // The strongest algorithm offered, and a count that rises with each request on the nonce.
    expect(site.log.accepted.map((a) => a.algorithm)).toEqual(site.log.accepted.map(() => 'SHA-256'));
    expect(site.log.accepted.map((a) => a.nc)).toEqual(site.log.accepted.map((_, i) => (i + 1).toString(16).padStart(8, '0')));
    expect(site.log.replays).toBe(0);
    const logs = await logsOf(h, out.id);
    expect(logs).toContain("HTTP Digest (SHA-256) credentials; answering with login 'account'");
    expect(leaks(JSON.stringify(out) + logs)).toEqual([]);

    const wrong = await loginSecret(h, USER, `${PASS}-old`);
    const bad = await run(h, { connector_id: r.json.id, arguments: { query: 'pear' }, secret_bindings: { account: wrong } });
    expect(bad.status).toBe('connector_error');
    expect(bad.error).toMatchObject({ type: 'auth_required', message: expect.stringContaining('refused the HTTP Digest credentials') });
    expect(leaks(JSON.stringify(bad) + (await logsOf(h, bad.id)))).toEqual([]);
  });

  it('a redirect on the same origin gets an answer of its own (the URI it asks for), not the one before', async () => {
    const site = await start({ algorithms: ['SHA-256'], usesPerNonce: 100 });
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        base_url: site.base,
        basic_auth: 'acct',
        steps: [{ id: 'go', url: '/go', query: { q: 'pear' }, extract: { plants: { from: 'json', path: '$.plants[*].name', all: true } } }],
        result: { plants: '{{vars.plants}}' },
      },
      required_secrets: [{ name: 'acct', type: 'login' }],
    });
    const out = await run(h, { connector_id: c.id, arguments: {}, secret_values: { acct: { username: USER, password: PASS } } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({ plants: ['Pear tree'] });
    // (The site checks each answer's `uri` against the request's: the redirect's was its own.)
    expect(site.log.refused).toEqual([]);
    expect(site.log.accepted.map((a) => a.nc)).toEqual(['00000001', '00000002']);
  });

  it('a nonce the site calls stale is renewed, and the run goes on (MD5, the only algorithm offered)', async () => {
    const site = await start({ algorithms: ['MD5'], usesPerNonce: 2 });
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        base_url: site.base,
        basic_auth: 'acct',
        steps: ['apple', 'pear', 'plum', 'quince', 'mint'].map((q) => ({
          id: q,
          url: '/api/plants',
          query: { q },
          extract: { [q]: { from: 'json', path: '$.plants[*].name', all: true } },
        })),
        result: { apple: '{{vars.apple}}', mint: '{{vars.mint}}' },
      },
      required_secrets: [{ name: 'acct', type: 'login' }],
    });
    const out = await run(h, { connector_id: c.id, arguments: {}, secret_values: { acct: { username: USER, password: PASS } } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({ apple: ['Apple tree', 'Apple mint'], mint: ['Apple mint'] });
    expect(site.log.stale).toBe(2);
    expect(site.log.accepted).toHaveLength(5);
    expect(site.log.accepted.every((a) => a.algorithm === 'MD5')).toBe(true);
    const logs = await logsOf(h, out.id);
    expect(logs).toContain("the site's Digest nonce expired; answering its new one");
    expect(leaks(JSON.stringify(out) + logs)).toEqual([]);
  });

  it("a browser connector's browser answers the challenge (basic_auth), for the first page's origin only", async () => {
    const site = await start({ algorithms: ['SHA-256'], usesPerNonce: 1000 });
    // (Synthesis writes basic_auth into a browser plan as into an HTTP one: test/unit/synth/browser-plan.test.ts.)
    const search = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'browser',
        basic_auth: 'account',
        steps: [
          { action: 'navigate', url: site.base },
          { action: 'type', selector: '#q', text: '{{args.query}}' },
          { action: 'press', key: 'Enter', selector: '#q' },
          { action: 'wait', selector: '#out li' },
          { action: 'extract', values: { plants: { from: 'css', selector: '#out li', all: true } } },
        ],
        result: { plants: '{{vars.plants}}' },
      },
      input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      required_secrets: [{ name: 'account', type: 'login' }],
    });
    const account = await loginSecret(h, USER, PASS);
    const out = await run(h, { connector_id: search.id, arguments: { query: 'plum' }, secret_bindings: { account } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({ plants: ['Plum tree', 'Cherry plum'] });
    // (Chromium's own Digest answers, checked by the site.)
    expect(site.log.accepted.length).toBeGreaterThanOrEqual(2);
    expect(site.log.refused).toEqual([]);
    expect(leaks(JSON.stringify(out) + (await logsOf(h, out.id)))).toEqual([]);

    const wrong = await loginSecret(h, USER, `${PASS}-old`);
    const bad = await run(h, { connector_id: search.id, arguments: { query: 'pear' }, secret_bindings: { account: wrong } });
    expect(bad.status).toBe('connector_error');
    expect(bad.error).toMatchObject({
      type: 'auth_required',
      message: expect.stringContaining("refused the HTTP credentials of login 'account'"),
    });
    expect(leaks(JSON.stringify(bad) + (await logsOf(h, bad.id)))).toEqual([]);

    // Another origin that asks for credentials gets none: the run ends there, refused, and that
    // site never saw an answer.
    const other = await start({ algorithms: ['SHA-256'], usesPerNonce: 1000 });
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'browser',
        basic_auth: 'acct',
        steps: [
          { action: 'navigate', url: site.base },
          { action: 'navigate', url: `${other.base}/` },
        ],
        result: { ok: true },
      },
      required_secrets: [{ name: 'acct', type: 'login' }],
    });
    const sent: string[] = [];
    other.server.prependListener('request', (req: http.IncomingMessage) => sent.push(req.headers.authorization ?? ''));
    const two = await run(h, { connector_id: c.id, arguments: {}, secret_values: { acct: { username: USER, password: PASS } } });
    expect(two.status, JSON.stringify(two.error)).toBe('connector_error');
    expect(two.error).toMatchObject({
      type: 'auth_required',
      message: expect.stringContaining('HTTP credentials the connector has none for'),
    });
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.filter((a) => a !== '')).toEqual([]);
    expect(other.log.accepted).toEqual([]);
  });

  it('recorded in a capture session: the login pasted at the 401 answers the challenge; synthesized with nothing hinted', async () => {
    const site = await start({ algorithms: ['SHA-256', 'MD5'], usesPerNonce: 100 });
    const account = await loginSecret(h, USER, PASS);
    const ref = await (
      await browser.newContext({ viewport: { width: 1280, height: 800 }, httpCredentials: { username: USER, password: PASS } })
    ).newPage();
    try {
      await ref.goto(site.base);
      const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: site.base })).json;
      const d = await wsDriver(s.iframe_url, ref);
      // (The live view shows the 401 once Chromium gave up on it: the person pastes then.)
      await expect.poll(d.url, { timeout: 15_000 }).toMatch(/chrome-error|127\.0\.0\.1/);
      await new Promise((r) => setTimeout(r, 1000));
      const pasted = await h.api('POST', `/v1beta/capture_sessions/${s.id}/paste`, { field: 'username', secret_id: account });
      expect(pasted.status, pasted.text).toBe(204);
      await expect.poll(() => site.log.accepted.length, { timeout: 10_000 }).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 500));
      await d.click('#q');
      d.text('apple');
      await d.press('Enter');
      await expect.poll(() => site.log.accepted.length, { timeout: 10_000 }).toBeGreaterThan(1);
      const rec = await completeCapture(h, s.id);
      expect(leaks(JSON.stringify(rec))).toEqual([]);
      expect(JSON.stringify(rec)).not.toContain(USER);

      const c = await h.api('POST', '/v1beta/connectors', {
        display_name: `digest ${tag}`,
        purpose: 'find plants',
        capture_session_id: s.id,
      });
      expect(c.status, c.text).toBe(200);
      const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
      expect(def.basic_auth).toBe('account');
      expect(leaks(JSON.stringify(def))).toEqual([]);
      const props = Object.keys(c.json.input_schema.properties);
      expect(props).toHaveLength(1);
      const out = await run(h, { connector_id: c.json.id, arguments: { [props[0]!]: 'plum' }, secret_bindings: { account } });
      expect(out.status, JSON.stringify(out.error)).toBe('success');
      expect(JSON.stringify(out.result)).toContain('Cherry plum');
      expect(JSON.stringify(out.result)).not.toContain('Apple');
      expect(leaks(JSON.stringify(out) + (await logsOf(h, out.id)))).toEqual([]);
    } finally {
      await ref.context().close();
    }
  });

  it('a browser connector with basic_auth and no page to open is refused at publish time', async () => {
    const bad = await h.api('POST', '/v1beta/connectors', {
      display_name: `no page ${tag}`,
      purpose: 'test',
      input_schema: { type: 'object' },
      output_schema: {},
      definition: {
        format: 'connector-definition/v1',
        engine: 'browser',
        basic_auth: 'acct',
        steps: [{ action: 'wait', ms: 10 }],
        result: { ok: true },
      },
      required_secrets: [{ name: 'acct', type: 'login' }],
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('basic_auth needs a navigate step');
  });
});
