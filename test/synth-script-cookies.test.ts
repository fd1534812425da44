// A cookie the page's script set (`document.cookie = 'auth_token=' + token`) from a sign-in's JSON
// answer: no response set it, so the jar alone would never send it. Synthesis traces its value to
// that answer and the step sets it (`cookies`), so each run signs in and sends its own token; a
// value a cookie can't carry (a `;` that would smuggle attributes) ends the run instead.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_RUNTIME } from '../src/synth/script-runtime.js';
import { har } from './helpers/har-fragment.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, publish, run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

const PASSWORD = 'S3ntinel-pw-7731';
const ORDERS = [
  { id: 1, item: 'pear', qty: 3 },
  { id: 2, item: 'plum', qty: 5 },
  { id: 3, item: 'pear drops', qty: 1 },
];

describe.each(await backends())('a cookie set by the page from a sign-in answer (%s)', (backend) => {
  let h: Harness;
  let base = '';
  let secret = '';
  const tokens = new Set<string>();
  /** What the next sign-in hands out in place of a fresh token (a hostile site's answer). */
  let nextToken: string | null = null;
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/api/login' && req.method === 'POST') {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        const f = JSON.parse(b);
        if (f.user !== 'ann' || f.pass !== PASSWORD) return json(401, { error: 'wrong' });
        const token = nextToken ?? randomBytes(16).toString('hex');
        tokens.add(token);
        json(200, { ok: true, session: { token, user: 'ann' } });
      });
      return;
    }
    if (url.pathname === '/api/orders') {
      seen.push(req.headers.cookie ?? '');
      const tok = /(?:^|; )auth_token=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      if (!tok || !tokens.has(tok)) return json(401, { error: 'not signed in' });
      const q = url.searchParams.get('q') ?? '';
      return json(200, { orders: ORDERS.filter((o) => o.item.includes(q)) });
    }
    res.writeHead(404).end();
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    h = await startHarness(backend);
    secret = await loginSecret(h, 'ann', PASSWORD);
  });
  afterAll(async () => {
    await h?.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const recording = () => {
    const recorded = 'a8f5f167f44f4964e6c998dee827110c';
    return har(
      {
        method: 'POST',
        url: `${base}/api/login`,
        json: { user: 'ann', pass: PASSWORD },
        body: { ok: true, session: { token: recorded, user: 'ann' } },
      },
      {
        url: `${base}/api/orders?q=pear`,
        cookies: { auth_token: recorded },
        body: { orders: ORDERS.filter((o) => o.item.includes('pear')) },
      },
    );
  };

  it('each run signs in and sets the token its own sign-in answered with', async () => {
    const c = await synthesizeFrom(h, JSON.stringify(recording()), { hints: { arguments: { q: 'pear' }, secrets: { account: secret } } });
    expect(c.status, c.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    expect(def.steps.at(-1).cookies).toEqual({ auth_token: '{{vars.auth_token_cookie}}' });
    expect(JSON.stringify(def)).not.toContain('a8f5f167f44f4964e6c998dee827110c');
    const out = await run(h, { connector_id: c.json.id, arguments: { q: 'plum' }, secret_bindings: { account: secret } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({ orders: [{ id: 2, item: 'plum', qty: 5 }] });
    // (The token sent is one the server handed out during that run.)
    const sent = /auth_token=([0-9a-f]{32})/.exec(seen.at(-1)!)?.[1];
    expect(tokens.has(sent!)).toBe(true);
  });

  it('a script connector sets it the same way (ctx.http.setCookie), and the synthesized plan runs in the script runtime too', async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'script',
        source: `export default async function (ctx) {
          const s = ctx.secrets.account;
          const t = (await ctx.http.post(ctx.args.base + '/api/login', { json: { user: s.username, pass: s.password } })).json().session.token;
          const bad = await ctx.http.setCookie(ctx.args.base + '/api/orders', 'auth_token', 'x; Domain=evil.test');
          const ok = await ctx.http.setCookie(ctx.args.base + '/api/orders', 'auth_token', t);
          const r = await ctx.http.get(ctx.args.base + '/api/orders', { query: { q: ctx.args.q } });
          return { bad, ok, orders: r.json().orders };
        }`,
      },
      required_secrets: [{ name: 'account', type: 'login', supports_totp: false }],
    });
    const out = await run(h, { connector_id: c.id, arguments: { base, q: 'plum' }, secret_bindings: { account: secret } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({ bad: false, ok: true, orders: [{ id: 2, item: 'plum', qty: 5 }] });
    // (The synthesized plan's own interpreter, as a script connector carries it.)
    const rt = new Function(`${SCRIPT_RUNTIME}; return { step };`)() as { step: (...a: unknown[]) => Promise<unknown> };
    const set: [string, string, string][] = [];
    const ctx = {
      http: {
        setCookie: async (url: string, name: string, value: string) => {
          set.push([url, name, value]);
          return !value.includes(';');
        },
        request: async () => ({ status: 200, url: `${base}/api/orders`, headers: {}, text: '{}' }),
      },
      log: () => {},
      fail: (type: string, message: string) => {
        throw new Error(`${type}: ${message}`);
      },
    };
    const s = { id: 'orders', url: '/api/orders', cookies: { auth_token: '{{vars.tok}}' } };
    await rt.step(ctx, s, { vars: { tok: 'abc123' }, args: {} }, base);
    expect(set).toEqual([[`${base}/api/orders`, 'auth_token', 'abc123']]);
    await expect(rt.step(ctx, s, { vars: { tok: 'a; Path=/' }, args: {} }, base)).rejects.toThrow(
      /site_changed: orders: the value for cookie auth_token/,
    );
  });

  it("refuses to set a value that would smuggle cookie attributes (the site's answer is hostile)", async () => {
    const c = await synthesizeFrom(h, JSON.stringify(recording()), { hints: { arguments: { q: 'pear' }, secrets: { account: secret } } });
    expect(c.status, c.text).toBe(200);
    nextToken = 'x; Domain=127.0.0.1; Path=/admin';
    const before = seen.length;
    try {
      const out = await run(h, { connector_id: c.json.id, arguments: { q: 'plum' }, secret_bindings: { account: secret } });
      expect(out.status).toBe('connector_error');
      expect(out.error.type).toBe('site_changed');
      expect(out.error.message).toMatch(/cookie auth_token/);
    } finally {
      nextToken = null;
    }
    expect(seen.length).toBe(before);
  });
});
