// Issue 9, findings 1 (script half), 2 and 6, attacked through the real server: script connectors
// run in QuickJS (no Node.js: they can't signal the server, read files or open sockets), with
// memory and time limits; workers run as an unprivileged uid when the server is root; a worker may
// only ask for the RPCs its engine needs, with valid parameters; and whatever a (forged) worker
// says about its result, the parent measures it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { forgedWorker } from './helpers/forged-worker.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { logsOf, publish, run, waitRun } from './helpers/runs.js';

const script = (source: string, extra: Record<string, unknown> = {}) => ({
  definition: { format: 'connector-definition/v1', engine: 'script', source, ...extra },
});
const isRoot = process.getuid?.() === 0;

describe.each(await backends())('the script sandbox (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend, { RUN_CONCURRENCY: '2', SCRIPT_MEMORY_MB: '64' });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  const ok = async () => {
    const c = await publish(h, script(`export default async (ctx) => ({ alive: true, n: ctx.args.n })`));
    expect((await run(h, { connector_id: c.id, arguments: { n: 7 } })).result).toEqual({ alive: true, n: 7 });
  };

  it('a script that tries to kill the server, by any route, ends with a clear error and the server serves the next run', async () => {
    const attacks: Record<string, string> = {
      process: `process.kill(process.ppid, 'SIGKILL')`,
      globalThis: `globalThis.process.kill(globalThis.process.ppid, 'SIGKILL')`,
      functionThis: `Function('return this')().process.kill(1, 'SIGKILL')`,
      constructorChain: `(() => {}).constructor('return process')().kill(1, 'SIGKILL')`,
      importFs: `(await import('node:fs')).writeFileSync('/tmp/pwned', 'x')`,
      importChild: `(await import('child_process')).execSync('kill -9 ' + ctx.args.pid)`,
      require: `require('child_process').execSync('kill -9 ' + ctx.args.pid)`,
      fetch: `await fetch(ctx.args.api + '/v1beta/connectors')`,
      ipc: `process.send({ t: 'done', outcome: 'ok', json: '1', size: 1 })`,
    };
    for (const [name, code] of Object.entries(attacks)) {
      const c = await publish(h, script(`export default async (ctx) => { ${code}; return 'survived'; }`));
      const r = await run(h, { connector_id: c.id, arguments: { pid: process.pid, api: h.url } });
      expect(r.status, name).toBe('connector_error');
      expect(r.error.type, name).toBe('unhandled');
      expect(r.error.message, name).toMatch(/not defined|cannot read property|not a function|could not load module|undefined/);
    }
    expect(fs.existsSync('/tmp/pwned')).toBe(false);
    await ok();
  });

  it('a script gets nothing of the file system: /etc/passwd, DATA_DIR, master.key', async () => {
    const c = await publish(
      h,
      script(`export default async (ctx) => {
        const out = {};
        for (const p of ['/etc/passwd', ctx.args.dataDir + '/master.key', ctx.args.dataDir + '/connector.db', 'file:///etc/passwd']) {
          try { const m = await import(p); out[p] = JSON.stringify(m); } catch (e) { out[p] = e.name; }
        }
        try { const r = await ctx.http.get('file:///etc/passwd'); out.http = r.text; } catch (e) { out.http = e.name; }
        return out;
      }`),
    );
    const r = await run(h, { connector_id: c.id, arguments: { dataDir: h.dataDir } });
    const seen = JSON.stringify(r);
    expect(seen).not.toMatch(/root:x?:0:0/);
    // Each attempt fails: no module loader, and ctx.http speaks http(s) only.
    if (r.status === 'success') for (const v of Object.values(r.result)) expect(v).toMatch(/Error$|^ConnectorFailure$/);
    else expect(r.error.type).not.toBe('crash');
  });

  it('an endless loop (even one that catches the interrupt), a catastrophic regex and an endless microtask chain end timed_out', async () => {
    const loops = {
      busy: `for (;;) {}`,
      caught: `for (;;) { try { await (async () => { for (;;) {} })(); } catch (e) {} }`,
      regex: `/(a|a)*c/.test('a'.repeat(40))`,
      microtasks: `const f = () => { Promise.resolve().then(f); }; f(); await new Promise(() => {})`,
    };
    for (const [name, code] of Object.entries(loops)) {
      const c = await publish(h, script(`export default async () => { ${code} }`));
      const t0 = Date.now();
      const r = await run(h, { connector_id: c.id, max_timeout_s: 1 });
      expect(r.status, name).toBe('timed_out');
      expect(Date.now() - t0, name).toBeLessThan(6000);
    }
    await ok();
  });

  it('a huge allocation hits SCRIPT_MEMORY_MB: connector_error/crash saying so, and the server is fine', async () => {
    const rssBefore = process.memoryUsage().rss;
    for (const code of [
      `const a = []; for (;;) a.push(new Array(1e5).fill(1))`,
      `const a = []; for (;;) a.push('x'.repeat(1e6) + a.length)`,
      `const a = []; for (;;) a.push({ i: a.length })`,
    ]) {
      const c = await publish(h, script(`export default async () => { ${code} }`));
      const r = await run(h, { connector_id: c.id, max_timeout_s: 60 });
      expect(r, code).toMatchObject({ status: 'connector_error', error: { type: 'crash' } });
      expect(r.error.message).toMatch(/memory limit \(SCRIPT_MEMORY_MB=64\)/);
    }
    // The memory was the worker's, not the server's.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
    await ok();
  }, 120_000);

  it('deep recursion is a catchable stack overflow, not a dead worker', async () => {
    const c = await publish(
      h,
      script(`export default async () => {
        const f = (n) => f(n + 1) + 1;
        let a = []; for (let i = 0; i < 100000; i++) a = [a];
        const out = {};
        try { f(0); } catch (e) { out.recursion = e.message; }
        try { JSON.stringify(a); } catch (e) { out.json = e.message; }
        try { JSON.parse('['.repeat(100000)); } catch (e) { out.parse = e.message; }
        return out;
      }`),
    );
    const r = await run(h, { connector_id: c.id });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(r.result).toEqual({ recursion: 'stack overflow', json: 'stack overflow', parse: 'stack overflow' });
  });

  it('ctx.page does not exist without "browser": true; the documented ctx and web globals work', async () => {
    const c = await publish(
      h,
      script(`export default async (ctx) => {
        const out = { page: ctx.page };
        const u = new URL('/api/account?x=1', ctx.args.base);
        u.searchParams.set('q', 'a b&c');
        out.url = u.href;
        out.host = u.host;
        out.bytes = Array.from(new TextEncoder().encode('é'));
        out.text = new TextDecoder().decode(new Uint8Array([104, 105]));
        out.b64 = btoa('user:pass');
        await new Promise((r) => setTimeout(r, 20));
        const f = await ctx.files.save('bin.dat', new Uint8Array([0, 255, 1, 254]), 'application/octet-stream');
        out.size = f.size_bytes;
        console.log('from console');
        return out;
      }`),
    );
    const r = await run(h, { connector_id: c.id, arguments: { base: site.url } });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(r.result).toEqual({
      page: null,
      url: `${site.url}/api/account?x=1&q=a+b%26c`,
      host: new URL(site.url).host,
      bytes: [195, 169],
      text: 'hi',
      b64: 'dXNlcjpwYXNz',
      size: 4,
    });
    const files = (await h.api('GET', `/v1beta/files?run_id=${r.id}`)).json.data;
    const dl = await h.api('GET', `/v1beta/files/${files[0].id}/download_url`);
    expect([...new Uint8Array(await (await fetch(dl.json.url)).arrayBuffer())]).toEqual([0, 255, 1, 254]);
    expect(await logsOf(h, r.id)).toMatch(/from console/);
    const longName = await publish(h, script(`export default async (ctx) => ctx.files.save('n'.repeat(20000), 'x')`));
    expect((await run(h, { connector_id: longName.id })).error).toMatchObject({
      type: 'unhandled',
      exception: 'TypeError',
      message: expect.stringMatching(/^invalid parameters for files\.save \(\/name: /),
    });
    const bad = await publish(h, script(`export default async (ctx) => ctx.page.goto('file:///etc/passwd')`));
    expect((await run(h, { connector_id: bad.id })).error).toMatchObject({ type: 'unhandled', exception: 'TypeError' });
  });

  it('with "browser": true, a page call with bad arguments is a TypeError the script sees (checked before any RPC)', async () => {
    const c = await publish(h, script(`export default async (ctx) => { await ctx.page.waitFor('#x', 'bogus'); }`, { browser: true }));
    const r = await run(h, { connector_id: c.id });
    expect(r.error).toMatchObject({
      type: 'unhandled',
      exception: 'TypeError',
      message: expect.stringMatching(/^invalid parameters for page\.wait \(\/state: /),
    });
  });

  it('keeps the documented format: top-level await, timers, error class names, a missing default export', async () => {
    const cases: [string, Record<string, unknown>][] = [
      [`await new Promise((r) => setTimeout(r, 10)); const x = 5; export default async () => x`, { status: 'success', result: 5 }],
      [
        `export default () => { let n = 0; return new Promise((r) => { const i = setInterval(() => { if (++n === 3) { clearInterval(i); r(n); } }, 5); }); }`,
        { status: 'success', result: 3 },
      ],
      [
        `export default async () => { class MyErr extends Error {}; throw new MyErr('boom'); }`,
        { error: { type: 'unhandled', exception: 'MyErr', message: 'boom' } },
      ],
      [`export default async () => { throw 'str'; }`, { error: { type: 'unhandled', exception: 'string', message: 'str' } }],
      [`import fs from 'fs'; export default async () => 1`, { error: { type: 'unhandled', message: "could not load module 'fs'" } }],
      [`export default 5`, { error: { type: 'internal_error', message: 'the script has no default export function' } }],
    ];
    for (const [source, want] of cases) {
      const c = await publish(h, script(source));
      expect(await run(h, { connector_id: c.id }), source).toMatchObject(want);
    }
  });

  it('fail() keeps its type; a bogus type, a forged failure object or a never-settling promise do not confuse the host', async () => {
    let c = await publish(h, script(`export default async (ctx) => { try { ctx.fail('auth_required', 'x'); } catch (e) { throw e; } }`));
    expect((await run(h, { connector_id: c.id })).error).toMatchObject({ type: 'auth_required', message: 'x', retryable: false });
    c = await publish(h, script(`export default async (ctx) => ctx.fail('root', 'nope')`));
    expect((await run(h, { connector_id: c.id })).error).toMatchObject({
      type: 'unhandled',
      message: "fail() called with unknown type 'root': nope",
    });
    c = await publish(h, script(`export default async () => { const e = new Error('forged'); e.__csFailure = 99; throw e; }`));
    expect((await run(h, { connector_id: c.id })).error).toMatchObject({ type: 'unhandled' });
    c = await publish(h, script(`export default async () => { await new Promise(() => {}); }`));
    const r = await run(h, { connector_id: c.id, max_timeout_s: 30 });
    expect(r.error).toMatchObject({ type: 'unhandled', message: expect.stringMatching(/can never settle/) });
  });
});

describe('a forged worker (the parent trusts no worker message)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { RUN_CONCURRENCY: '1', RUN_MAX_RESULT_BYTES: '2000000' }, { workerEntry: forgedWorker() });
  });
  afterAll(async () => {
    await h?.close();
  });
  const scriptC = () => publish(h, script(`export default async () => 1`));

  it('a result it calls 10 bytes is measured by the parent: never a stored 150 MB success', async () => {
    const c = await scriptC();
    // Sync: above RUN_MAX_RESULT_BYTES (2 MB here) → result_too_large with the measured size.
    let r = await run(h, { connector_id: c.id, arguments: { mode: 'big', bytes: 3_000_000 } });
    expect(r).toMatchObject({ status: 'result_too_large', result: null, result_stored: false, result_size_bytes: 3_000_002 });
    // Async: above the 1,000,000 bytes a stored result may have → result_too_large, not success.
    r = await run(h, { connector_id: c.id, arguments: { mode: 'big', bytes: 1_500_000 }, async: true });
    expect(await waitRun(h, r.id)).toMatchObject({ status: 'result_too_large', result_stored: false, result_size_bytes: 1_500_002 });
  });

  it('150 MB with size 10 against the default limit (100 MB): result_too_large', async () => {
    const big = await startHarness('sqlite', { RUN_CONCURRENCY: '1' }, { workerEntry: forgedWorker() });
    try {
      const c = await publish(big, script(`export default async () => 1`));
      const r = await run(big, { connector_id: c.id, arguments: { mode: 'big', bytes: 150 * 1024 * 1024 }, async: true });
      const done = await waitRun(big, r.id, 60_000);
      expect(done).toMatchObject({ status: 'result_too_large', result: null, result_stored: false });
      expect(done.result_size_bytes).toBeGreaterThan(150 * 1024 * 1024);
    } finally {
      await big.close();
    }
  }, 90_000);

  it('malformed or unknown messages stop the worker and fail the run; the server lives on', async () => {
    const c = await scriptC();
    const messages = [
      null,
      'done',
      { t: 'weird' },
      { t: 'done', outcome: 'ok', json: 42 },
      { t: 'done', outcome: 'ok', json: '{"not json' },
      { t: 'done', outcome: 'error', error: { type: 'root', message: 'x', retryable: null, exception: null, details: null } },
      { t: 'logs', lines: 'not a list' },
      { t: 'secret', value: 'x'.repeat(20_000) },
    ];
    for (const message of messages) {
      const r = await run(h, { connector_id: c.id, arguments: { mode: 'raw', message } });
      expect(r, JSON.stringify(message)).toMatchObject({ status: 'connector_error', error: { type: 'crash' } });
      expect(r.error.message).toMatch(/the sandbox (was stopped: it sent a malformed|sent a result that is not JSON)/);
    }
    // A "too large" claim must be above the limit; below it the worker is lying.
    let r = await run(h, { connector_id: c.id, arguments: { mode: 'too_large', size: 5 } });
    expect(r.error.message).toMatch(/reported a result of 5 bytes as too large/);
    // Workers no longer report secret-derived values (the parent hands out and scrubs every TOTP
    // code itself): a worker that sends one is refused like any unknown message.
    r = await run(h, { connector_id: c.id, arguments: { mode: 'secrets', count: 1 } });
    expect(r).toMatchObject({ status: 'connector_error', error: { type: 'crash' } });
    expect(r.error.message).toMatch(/the sandbox was stopped: it sent a malformed/);
  });

  it('RPC by capability: a script without browser can not reach page.goto; an http run can not save files', async () => {
    const c = await scriptC();
    let r = await run(h, {
      connector_id: c.id,
      arguments: { mode: 'rpc', method: 'page.goto', params: { url: 'file:///etc/passwd', timeout: 1000 } },
    });
    expect(r).toMatchObject({
      status: 'connector_error',
      error: {
        type: 'crash',
        message: 'the sandbox was stopped: the sandbox asked for page.goto, which a script connector without "browser": true may not use',
      },
    });
    r = await run(h, { connector_id: c.id, arguments: { mode: 'rpc', method: 'browser.open', params: {} } });
    expect(r.error.message).toMatch(/browser\.open, which a script connector without "browser": true may not use/);
    r = await run(h, { connector_id: c.id, arguments: { mode: 'rpc', method: 'fs.read', params: { path: '/etc/passwd' } } });
    expect(r.error.message).toMatch(/unknown operation "fs.read"/);
    // The http engine asks the parent only for TOTP codes.
    const httpC = await publish(h, {
      definition: { format: 'connector-definition/v1', engine: 'http', steps: [{ id: 'a', url: 'http://127.0.0.1:9/' }], result: {} },
    });
    r = await run(h, {
      connector_id: httpC.id,
      arguments: { mode: 'rpc', method: 'files.save', params: { name: 'x', contentType: 'text/plain' }, bytes: 3 },
    });
    expect(r.error.message).toMatch(/files\.save, which a connector of engine http may not use/);
    r = await run(h, {
      connector_id: httpC.id,
      arguments: { mode: 'rpc', method: 'page.goto', params: { url: 'file:///etc/passwd', timeout: 1000 } },
    });
    expect(r.error.message).toMatch(/page\.goto, which a connector of engine http may not use/);
    expect((await h.api('GET', '/v1beta/files?source=RUN_OUTPUT')).json.data).toEqual([]);
  });

  it('totp.code: only a slot name, and only a code of a TOTP login the run holds', async () => {
    const httpC = await publish(h, {
      definition: { format: 'connector-definition/v1', engine: 'http', steps: [{ id: 'a', url: 'http://127.0.0.1:9/' }], result: {} },
    });
    // The seed never comes from the worker: a slot the run does not hold gets no code.
    for (const slot of ['account', '__proto__', 'constructor']) {
      const r = await run(h, { connector_id: httpC.id, arguments: { mode: 'rpc', method: 'totp.code', params: { slot } } });
      expect(r, slot).toMatchObject({
        status: 'success',
        result: { reply: { ok: false, error: { message: `secret slot '${slot}' is not a login with a TOTP seed` } } },
      });
    }
    let r = await run(h, {
      connector_id: httpC.id,
      arguments: { mode: 'rpc', method: 'totp.code', params: { slot: 'account', seed: 'JBSWY3DPEHPK3PXP' } },
    });
    expect(r.error.message).toMatch(/invalid parameters for totp\.code/);
    r = await run(h, { connector_id: httpC.id, arguments: { mode: 'rpc', method: 'totp.code', params: { slot: 'x'.repeat(201) } } });
    expect(r.error.message).toMatch(/invalid parameters for totp\.code \(\/slot: /);
  });

  it('RPC parameters are checked by the parent', async () => {
    const browserScript = await publish(h, script(`export default async () => 1`, { browser: true }));
    let r = await run(h, {
      connector_id: browserScript.id,
      arguments: { mode: 'rpc', method: 'page.goto', params: { url: 42, timeout: 1000 } },
    });
    expect(r.error.message).toMatch(/invalid parameters for page\.goto \(\/url: /);
    r = await run(h, {
      connector_id: browserScript.id,
      arguments: { mode: 'rpc', method: 'page.goto', params: { url: 'about:blank', timeout: 1000, extra: 1 } },
    });
    expect(r.error.message).toMatch(/invalid parameters for page\.goto/);
    // browser.open names a login slot and an origin; the parent reads the login from the run's own
    // secrets (a worker never hands it credentials), and only for an http(s) origin.
    r = await run(h, {
      connector_id: browserScript.id,
      arguments: {
        mode: 'rpc',
        method: 'browser.open',
        params: { credentials: { slot: 'account', origin: 'http://127.0.0.1:9', password: 'x' } },
      },
    });
    expect(r.error.message).toMatch(/invalid parameters for browser\.open/);
    r = await run(h, {
      connector_id: browserScript.id,
      arguments: { mode: 'rpc', method: 'browser.open', params: { credentials: { slot: 'account', origin: 'http://127.0.0.1:9' } } },
    });
    expect(JSON.stringify(r.result ?? r.error)).toContain("secret slot 'account' is not a login");
    const withLogin = await publish(h, {
      ...script(`export default async () => 1`, { browser: true }),
      required_secrets: [{ name: 'account', type: 'login' }],
    });
    r = await run(h, {
      connector_id: withLogin.id,
      arguments: { mode: 'rpc', method: 'browser.open', params: { credentials: { slot: 'account', origin: 'file:///etc/passwd' } } },
      secret_values: { account: { username: 'u', password: 'pw-sentinel-9' } },
    });
    expect(JSON.stringify(r.result ?? r.error)).toContain('basic_auth needs an http(s) origin');
    expect(JSON.stringify(r)).not.toContain('pw-sentinel-9');
    const c = await scriptC();
    r = await run(h, {
      connector_id: c.id,
      arguments: { mode: 'rpc', method: 'files.save', params: { name: 'x', contentType: 'text/plain', data: 'not bytes' } },
    });
    expect(r.error.message).toMatch(/invalid parameters for files\.save \(\/data: /);
    // A valid, allowed call is served.
    r = await run(h, {
      connector_id: c.id,
      arguments: { mode: 'rpc', method: 'files.save', params: { name: 'ok.bin', contentType: 'application/octet-stream' }, bytes: 3 },
    });
    expect(r).toMatchObject({ status: 'success', result: { reply: { ok: true, value: { name: 'ok.bin', size_bytes: 3 } } } });
  });

  it('workers that die at start do not respawn forever: the run fails with the reason, and the next run tries again', async () => {
    const broken = await startHarness('sqlite', { RUN_CONCURRENCY: '1' }, { workerEntry: '/nonexistent/worker.mjs' });
    try {
      const c = await publish(broken, script(`export default async () => 1`));
      for (let i = 0; i < 2; i++) {
        const r = await run(broken, { connector_id: c.id });
        expect(r).toMatchObject({ status: 'connector_error', error: { type: 'crash' } });
        expect(r.error.message).toMatch(/no sandbox could be started: sandbox workers exit at start \(exit code 1\)/);
      }
      // Readiness says so too, with the reason: this process can't execute runs.
      const ready = await broken.api('GET', '/readyz', undefined, null);
      expect(ready.status).toBe(503);
      expect(ready.json.checks.sandbox).toMatchObject({ ok: false });
      expect(ready.json.detail).toMatch(/sandbox: sandbox workers exit at start \(exit code 1\)/);
    } finally {
      await broken.close();
    }
  });

  it.skipIf(!isRoot)('workers run as the unprivileged sandbox user: they can not signal the server or list DATA_DIR', async () => {
    const c = await scriptC();
    const r = await run(h, { connector_id: c.id, arguments: { mode: 'probe', dataDir: h.dataDir } });
    expect(r.result).toEqual({ uid: 65534, gid: 65534, env: 0, kill_0: 'EPERM', kill_SIGWINCH: 'EPERM', dataDir: 'ERR_ACCESS_DENIED' });
    // Without the permission model too, that uid can't read the data dir (0700, the server's).
    const probe = spawnSync(process.execPath, ['-e', `require('fs').readFileSync(${JSON.stringify(path.join(h.dataDir, 'master.key'))})`], {
      uid: 65534,
      gid: 65534,
      cwd: '/',
      encoding: 'utf8',
    });
    expect(probe.status).not.toBe(0);
    expect(probe.stderr).toMatch(/EACCES/);
  });
});

describe('DATA_DIR is owner-only', () => {
  it('is created 0700, and a pre-existing group/world-readable one of ours is tightened (a shared one is left alone)', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-dd-'));
    try {
      for (const [dir, pre, other, mode] of [
        [path.join(root, 'new', 'data'), false, null, 0o700],
        [path.join(root, 'open'), true, null, 0o700],
        [path.join(root, 'home'), true, '.bashrc', 0o755],
      ] as const) {
        if (pre) fs.mkdirSync(dir, { mode: 0o755 });
        if (pre) fs.chmodSync(dir, 0o755);
        if (other) fs.writeFileSync(path.join(dir, other), '');
        const s = await createServices(loadConfig({ DATA_DIR: dir, PORT: '0' }));
        await s.close();
        expect(fs.statSync(dir).mode & 0o777, dir).toBe(mode);
        // Restarting over our own files keeps it tight.
        if (mode === 0o700) {
          fs.chmodSync(dir, 0o755);
          await (await createServices(loadConfig({ DATA_DIR: dir, PORT: '0' }))).close();
          expect(fs.statSync(dir).mode & 0o777, dir).toBe(0o700);
        }
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
