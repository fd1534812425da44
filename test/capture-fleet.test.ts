// Capture sessions across processes, as real processes on one PostgreSQL: two API processes
// (`serve --role api`) and a worker. A session created on API 1 is driven entirely through API 2
// (live view WebSocket relayed to API 1, pasted secrets, navigation, complete), synthesized into a
// connector on API 2 and run. The limits count sessions of every process. Forged internal
// requests (unsigned, expired, wrong key, for another process) are refused. Then API 1 is killed
// with SIGKILL while it holds a session and API 2 holds another: API 1's ends failed once its
// lease runs out, API 2's stays usable, and a process starting meanwhile touches neither.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import WebSocket from 'ws';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { openChromium } from '../src/browser/chromium.js';
import { backends, PG_URL, startHarness, type Harness } from './helpers/harness.js';
import { liveWsUrl, wsDriver, wsViewer } from './helpers/live-view.js';
import {
  callApi,
  listening as listeningOn,
  newUser,
  type Proc,
  startProcess as start,
  stopProcess as stop,
  until,
} from './helpers/processes.js';

const S = '/v1beta/capture_sessions';
const LEASE_S = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pgReady = (await backends()).includes('postgres');

describe.skipIf(!pgReady)('capture sessions across API processes (postgres)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-fleet-'));
  const dbName = `cs_fleet_${crypto.randomBytes(4).toString('hex')}`;
  const masterKey = crypto.randomBytes(32);
  // The next master key: API 1 and 2 hold it after the current one; a process started mid-rotation has it first.
  const nextKey = crypto.randomBytes(32).toString('base64');
  let env: Record<string, string>;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let browser: Browser;
  let ref: Page;
  let db: pg.Client;
  const procs: Proc[] = [];
  let api1: Proc;
  let api2: Proc;
  let url1: string;
  let url2: string;
  let key: string;
  let alice: string;

  const call = (base: string, method: string, p: string, body?: unknown, k = key) => callApi(base, k, method, p, body);
  const listening = async (x: Proc) => (await listeningOn(x)).url;
  const row = async (id: string) =>
    (await db.query('select state, end_reason, owner_id, owner_url from capture_sessions where id = $1', [id])).rows[0];
  const liveHere = async (base: string) =>
    Number(/^connector_capture_sessions_live (\d+)/m.exec(await (await fetch(`${base}/metrics`)).text())?.[1]);

  beforeAll(async () => {
    site = await startDemoSite();
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`CREATE DATABASE ${dbName}`);
    await c.end();
    env = {
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      MASTER_KEY: `1:${masterKey.toString('base64')},2:${nextKey}`,
      DATABASE_URL: PG_URL.replace(/\/[^/]+$/, `/${dbName}`),
      CAPTURE_LEASE_S: String(LEASE_S),
      RUN_LEASE_S: '2',
      CAPTURE_WARM_CONTEXTS: '0',
      CAPTURE_MAX_SESSIONS: '3',
      CAPTURE_MAX_SESSIONS_PER_USER: '2',
    };
    api1 = start(['serve', '--role', 'api'], env);
    procs.push(api1);
    const first = await listeningOn(api1);
    url1 = first.url;
    key = first.key!;
    api2 = start(['serve', '--role', 'api'], env);
    const worker = start(['worker'], env);
    procs.push(api2, worker);
    url2 = await listening(api2);
    await until('the worker', () => worker.lines().some((l) => l.msg === 'connector worker started'));
    db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
    browser = await openChromium();
    ref = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const s = await call(url1, 'POST', '/v1beta/secrets', {
      name: 'alice',
      secret_type: 'login',
      username: 'alice',
      password: 'wonderland',
    });
    expect(s.status, s.text).toBe(200);
    alice = s.json.id;
  }, 240_000);

  afterAll(async () => {
    await Promise.all(procs.map(stop));
    await browser?.close();
    await db?.end();
    await site?.close();
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('counts the limits across processes', async () => {
    const a = await call(url1, 'POST', S, {});
    const b = await call(url1, 'POST', S, {});
    expect([a.status, b.status], a.text + b.text).toEqual([200, 200]);
    // API 2 holds no session of this user in memory: the per-user limit is read from the database.
    const c = await call(url2, 'POST', S, {});
    expect(c.status, c.text).toBe(429);
    expect(c.json.detail).toMatch(/per-user limit is 2/);
    // Another user on API 2 takes the third place of CAPTURE_MAX_SESSIONS=3; a fourth is refused on API 1.
    const k2 = await newUser(env, 'second');
    const k3 = await newUser(env, 'third');
    const d = await call(url2, 'POST', S, {}, k2);
    expect(d.status, d.text).toBe(200);
    const e = await call(url1, 'POST', S, {}, k3);
    expect(e.status, e.text).toBe(429);
    expect(e.json.detail).toMatch(/maximum 3/);
    // Abandoned through the process that does not hold them.
    for (const [s, base, k] of [
      [a, url2, key],
      [b, url2, key],
      [d, url1, k2],
    ] as const) {
      const r = await call(base, 'POST', `${S}/${s.json.id}/abandon`, undefined, k);
      expect(r.status, r.text).toBe(200);
      expect(r.json.state).toBe('abandoned');
    }
    expect(await liveHere(url1)).toBe(0);
    expect((await call(url2, 'POST', S, {}, k3)).status).toBe(200);
    const last = (await call(url2, 'GET', S, undefined, k3)).json[0];
    expect((await call(url1, 'POST', `${S}/${last.id}/abandon`, undefined, k3)).status).toBe(200);
    // Creates racing on both processes at once never pass the per-user limit together (each process
    // alone would allow 2: 4 in all). Racing for the last place, both may be refused: at least one wins.
    const race = await Promise.all([url1, url2, url1, url2, url1, url2].map((u) => call(u, 'POST', S, {})));
    const won = race.filter((r) => r.status === 200);
    expect(won.length).toBeGreaterThanOrEqual(1);
    expect(won.length).toBeLessThanOrEqual(2);
    for (const r of race.filter((x) => x.status !== 200))
      expect([r.status, r.json.detail]).toEqual([429, expect.stringMatching(/per-user limit is 2/)]);
    const held = await db.query(
      "select count(*)::int as n from capture_sessions where state in ('starting', 'active') and user_id = (select user_id from capture_sessions where id = $1)",
      [won[0].json.id],
    );
    expect(held.rows[0].n).toBe(won.length);
    for (const r of won) expect((await call(url2, 'POST', `${S}/${r.json.id}/abandon`)).status).toBe(200);
  }, 180_000);

  it('drives a session created on API 1 through API 2, then synthesizes and runs a connector from it', async () => {
    const created = await call(url1, 'POST', S, { start_url: `${site.url}/login` });
    expect(created.status, created.text).toBe(200);
    const id = created.json.id;
    expect((await row(id)).owner_url).toBe(url1);
    // API 2 answers from the database, with a live view URL of its own.
    const got = await call(url2, 'GET', `${S}/${id}`);
    expect(got.json).toMatchObject({ id, state: 'active' });
    expect(got.json.iframe_url.startsWith(`${url2}/live/${id}?token=`)).toBe(true);
    expect(new URL(got.json.iframe_url).searchParams.get('token')).toBe(new URL(created.json.iframe_url).searchParams.get('token'));
    // The live view page and its sockets through API 2: frames come from API 1's browser.
    expect((await fetch(got.json.iframe_url)).status).toBe(200);
    const watcher = await wsViewer(got.json.iframe_view_url);
    const d = await wsDriver(got.json.iframe_url, ref);
    await until('frames through API 2', () => watcher.frames() > 0, 15_000);
    expect(watcher.msgs.find((m) => m.t === 'hello')).toMatchObject({ mode: 'view' });
    expect(await liveHere(url1)).toBe(1);
    expect(await liveHere(url2)).toBe(0);
    // A wrong token is a 404 on either process.
    const bad = got.json.iframe_url.replace(/token=[^&]+/, `token=${'x'.repeat(43)}`);
    expect((await fetch(bad)).status).toBe(404);

    await until('the login page', () => d.url().includes('/login'), 15_000);
    await ref.goto(`${site.url}/login`);
    const paste = async (field: string) => {
      const r = await call(url2, 'POST', `${S}/${id}/paste`, { field, secret_id: alice });
      expect(r.status, r.text).toBe(204);
    };
    await d.click('#username');
    await paste('username');
    await d.click('#password');
    await paste('password');
    // Errors of the owner come back as they are: a string secret is a 422 on the field.
    const str = await call(url1, 'POST', '/v1beta/secrets', { name: 's', secret_type: 'string', value: 'v' });
    const p422 = await call(url2, 'POST', `${S}/${id}/paste`, { field: 'password', secret_id: str.json.id });
    expect(p422.status, p422.text).toBe(422);
    expect(JSON.stringify(p422.json)).toMatch(/string secret/);
    await d.press('Enter');
    await until('signed in', () => d.url().includes('/items'), 15_000);
    // The reference rendering (coordinates only) signs in too, to see the same pages.
    await ref.fill('#username', 'alice');
    await ref.fill('#password', 'wonderland');
    await ref.press('#password', 'Enter');
    await ref.waitForURL('**/items');
    d.navigate(`${site.url}/search`);
    await until('the search page', () => d.url().includes('/search'), 15_000);
    await ref.goto(`${site.url}/search`);
    await sleep(300);
    await d.click('#q');
    d.text('gamma');
    await d.press('Enter');
    await sleep(1200);
    expect(watcher.frames()).toBeGreaterThan(1);

    const done = await call(url2, 'POST', `${S}/${id}/complete`);
    expect(done.status, done.text).toBe(202);
    expect(done.json.state).toBe('completing');
    await until('the viewer told the end', () => watcher.closed(), 15_000);
    await until('completed', async () => (await call(url2, 'GET', `${S}/${id}`)).json.state === 'completed', 30_000);
    const rec = await call(url2, 'GET', `${S}/${id}/recording`);
    expect(rec.status).toBe(200);
    expect(rec.text).not.toContain('wonderland');

    const c = await call(url2, 'POST', '/v1beta/connectors', {
      display_name: 'search',
      purpose: 'search the shop',
      capture_session_id: id,
    });
    expect(c.status, c.text).toBe(200);
    expect(Object.keys(c.json.input_schema.properties)).toEqual(['q']);
    const out = await call(url2, 'POST', '/v1beta/runs', {
      connector_id: c.json.id,
      arguments: { q: 'epsilon' },
      secret_bindings: { [c.json.required_secrets[0].name]: alice },
    });
    expect(out.status, out.text).toBe(200);
    expect(out.json.status, out.text).toBe('success');
    expect(JSON.stringify(out.json.result)).toMatch(/Epsilon /);
    expect(JSON.stringify(out.json.result)).not.toMatch(/Gamma /);
  }, 180_000);

  it('refuses forged internal requests', async () => {
    const s = await call(url1, 'POST', S, {});
    expect(s.status, s.text).toBe(200);
    const owner = (await row(s.json.id)).owner_id as string;
    const p = `/internal/capture_sessions/${s.json.id}/abandon`;
    const uid = (await db.query('select user_id from capture_sessions where id = $1', [s.json.id])).rows[0].user_id;
    const body = JSON.stringify({ user_id: uid });
    const hkdf = (k: Buffer) => Buffer.from(crypto.hkdfSync('sha256', k, Buffer.alloc(0), 'connector-service:capture-forward', 32));
    const sign = (k: Buffer, target: string, ts: number, method = 'POST', pq = p, b = body) => {
      const nonce = crypto.randomBytes(12).toString('base64url');
      const parts = ['v1', String(ts), nonce, target, method, pq, crypto.createHash('sha256').update(b).digest('hex')];
      return {
        'x-capture-forward-signature': `v1.${ts}.${nonce}.${crypto.createHmac('sha256', hkdf(k)).update(parts.join('\n')).digest('base64url')}`,
        'x-capture-forward-target': target,
      };
    };
    const post = (headers: Record<string, string>, b = body) =>
      fetch(url1 + p, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: b });
    const now = Date.now();
    for (const [what, headers, b] of [
      ['unsigned', {}, body],
      ['expired', sign(masterKey, owner, now - 120_000), body],
      ['wrong key', sign(crypto.randomBytes(32), owner, now), body],
      ['another process', sign(masterKey, 'someone-else', now), body],
      ['another body', sign(masterKey, owner, now), JSON.stringify({ user_id: 'other' })],
    ] as const) {
      const r = await post(headers, b);
      expect(r.status, what).toBe(404);
    }
    // The live socket of the owner, unsigned or with a stale signature: refused at the upgrade.
    const liveP = `/internal/capture_sessions/${s.json.id}/live?mode=control`;
    for (const headers of [{}, sign(masterKey, owner, now - 120_000, 'GET', liveP, '')]) {
      const status = await new Promise<number>((res) => {
        const ws = new WebSocket(url1.replace(/^http/, 'ws') + liveP, { headers });
        ws.on('unexpected-response', (_q, r) => res(r.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          res(101);
        });
        ws.on('error', () => res(-1));
      });
      expect(status).toBe(404);
    }
    expect((await call(url1, 'GET', `${S}/${s.json.id}`)).json.state).toBe('active');
    // The same request signed right is carried out (so the refusals above are the signature's doing),
    // once: sent again as it was (a replay of what was seen on the wire), it is refused.
    const signed = sign(masterKey, owner, Date.now());
    const r = await post(signed);
    expect(r.status).toBe(200);
    expect(((await r.json()) as any).ok.state).toBe('abandoned');
    expect((await post(signed)).status).toBe(404);
  }, 60_000);

  it('a fleet mid-rotation: a process whose current master key is the next one and the others open and drive each other’s sessions', async () => {
    const api3 = start(['serve', '--role', 'api'], { ...env, MASTER_KEY: `2:${nextKey},1:${masterKey.toString('base64')}` });
    procs.push(api3);
    const url3 = await listening(api3);
    const tokenOf = (u: string) => new URL(u).searchParams.get('token');
    try {
      // Made on API 1 (old key): the live view opens through API 3, whose own URL has a new-key token.
      const a = await call(url1, 'POST', S, { start_url: `${site.url}/login` });
      expect(a.status, a.text).toBe(200);
      const seen3 = await call(url3, 'GET', `${S}/${a.json.id}`);
      expect(tokenOf(seen3.json.iframe_url)).not.toBe(tokenOf(a.json.iframe_url));
      expect((await fetch(a.json.iframe_url.replace(url1, url3))).status).toBe(200);
      expect((await fetch(seen3.json.iframe_url.replace(url3, url1))).status).toBe(200);
      // API 3 signs with the next key; API 1 accepts the forwarded call.
      const ab = await call(url3, 'POST', `${S}/${a.json.id}/abandon`);
      expect(ab.status, ab.text).toBe(200);
      expect(ab.json.state).toBe('abandoned');
      // Made on API 3 (next key): opened and ended through API 1, which signs with the old key.
      const b = await call(url3, 'POST', S, { start_url: `${site.url}/login` });
      expect(b.status, b.text).toBe(200);
      expect((await fetch(b.json.iframe_url.replace(url3, url1))).status).toBe(200);
      const ab2 = await call(url1, 'POST', `${S}/${b.json.id}/abandon`);
      expect(ab2.status, ab2.text).toBe(200);
      expect(ab2.json.state).toBe('abandoned');
    } finally {
      await stop(api3);
    }
  }, 120_000);

  it('a killed process takes only its own sessions to failed, once the lease ran out', async () => {
    const a = await call(url1, 'POST', S, { start_url: `${site.url}/login` });
    const b = await call(url2, 'POST', S, { start_url: `${site.url}/login` });
    expect([a.status, b.status], a.text + b.text).toEqual([200, 200]);
    api1.p.kill('SIGKILL');
    await new Promise((r) => api1.p.once('exit', r));
    const killedAt = Date.now();
    // A process starting now must not end API 2's session (nor, before its lease ran out, API 1's).
    const api3 = start(['serve', '--role', 'api'], env);
    procs.push(api3);
    const url3 = await listening(api3);
    const failed = await until(
      "API 1's session failed",
      async () => {
        const g = await call(url2, 'GET', `${S}/${a.json.id}`);
        return g.json.state !== 'active' && g.json;
      },
      30_000,
    );
    expect(failed.state).toBe('failed');
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual((LEASE_S - 1) * 1000);
    expect((await row(a.json.id)).end_reason).toMatch(/its lease ran out/);
    // Found by a live process's beat, not only by reads: API 3 sees it too.
    expect((await call(url3, 'GET', `${S}/${a.json.id}`)).json.state).toBe('failed');
    await sleep(LEASE_S * 1000 * 1.5);
    const bRow = await call(url3, 'GET', `${S}/${b.json.id}`);
    expect(bRow.json.state).toBe('active');
    // API 2's session is still usable, also through API 3: frames, paste, abandon.
    const v = await wsViewer(bRow.json.iframe_view_url);
    await until('frames of the surviving session', () => v.frames() > 0, 15_000);
    expect(liveWsUrl(bRow.json.iframe_url).startsWith(url3.replace(/^http/, 'ws'))).toBe(true);
    const p = await call(url3, 'POST', `${S}/${b.json.id}/paste`, { field: 'username', secret_id: alice });
    expect(p.status, p.text).toBe(204);
    const ab = await call(url3, 'POST', `${S}/${b.json.id}/abandon`);
    expect(ab.status, ab.text).toBe(200);
    expect(ab.json.state).toBe('abandoned');
    v.ws.close();
  }, 240_000);
});

// The same rules in one process on SQLite, with rows standing in for other processes.
describe('capture session leases (sqlite, in process)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { CAPTURE_LEASE_S: '2' });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });
  const at = (ms: number) => new Date(Date.now() + ms).toISOString();
  const put = (id: string, state: 'active' | 'starting', owner: string, lease: string, url = 'http://127.0.0.1:9') => {
    const now = new Date().toISOString();
    return h.services.db
      .insertInto('capture_sessions')
      .values({
        id,
        user_id: h.userId,
        state,
        browser_session_id: 'b',
        use_proxy: 0,
        start_url: null,
        recording_key: null,
        recording_size: null,
        end_reason: null,
        owner_id: owner,
        owner_url: url,
        lease_until: lease,
        created_at: now,
        updated_at: now,
      })
      .execute();
  };
  const get = (id: string) =>
    h.services.db.selectFrom('capture_sessions').select(['state', 'end_reason', 'lease_until']).where('id', '=', id).executeTakeFirst();

  it("leaves another live process's session alone, fails a dead one's, renews its own", async () => {
    await put('live-elsewhere', 'active', 'p-live', at(60_000));
    await put('dead-elsewhere', 'active', 'p-dead', at(-1000));
    await put('dead-starting', 'starting', 'p-dead', at(-1000));
    // Read here: still active, with a live view URL; an action needs its (unreachable) owner: 503, nothing ends.
    const g = await h.api('GET', `${S}/live-elsewhere`);
    expect(g.json).toMatchObject({ state: 'active', iframe_url: expect.stringContaining('/live/live-elsewhere?token=') });
    const c = await h.api('POST', `${S}/live-elsewhere/complete`);
    expect(c.status, c.text).toBe(503);
    expect((await h.api('GET', S)).json.map((s: any) => s.id)).not.toContain('dead-starting');
    // Its live view is relayed to the owner, which does not answer: the socket closes, the session stays.
    const ws = new WebSocket(liveWsUrl(g.json.iframe_url));
    const code = await new Promise<number>((r) => ws.on('close', (n) => r(n)));
    expect(code).toBe(1011);

    const mine = await h.api('POST', S, {});
    expect(mine.status, mine.text).toBe(200);
    const before = (await get(mine.json.id))!.lease_until!;
    await sleep(20);
    await h.services.captureSessions.heartbeat();
    expect((await get(mine.json.id))!.lease_until! > before).toBe(true);
    expect(await get('live-elsewhere')).toMatchObject({ state: 'active', end_reason: null });
    expect(await get('dead-elsewhere')).toMatchObject({ state: 'failed', end_reason: expect.stringMatching(/its lease ran out/) });
    expect(await get('dead-starting')).toBeUndefined();
    // What an earlier run of this process left at its own address ends at start, lease or not.
    await put('left-here', 'active', 'p-earlier', at(60_000), h.config.internalUrl);
    await h.services.captureSessions.listening();
    expect(await get('left-here')).toMatchObject({ state: 'failed', end_reason: 'browser lost (server restarted)' });
    expect(await get('live-elsewhere')).toMatchObject({ state: 'active' });
    expect((await h.api('POST', `${S}/${mine.json.id}/abandon`)).status).toBe(200);
  }, 60_000);
});
