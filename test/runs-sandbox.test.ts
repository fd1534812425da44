// Script connectors and the sandbox: context API (http, log, totp, files, fail), confinement
// (no files, no child processes, no environment), exceptions, a killed sandbox, timeouts,
// both result-size rules with real large results, and a client that disconnects from a sync run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, BOB_TOTP_SEED } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, logsOf, publish, run, waitRun } from './helpers/runs.js';

const script = (source: string, extra: Record<string, unknown> = {}) => ({
  definition: { format: 'connector-definition/v1', engine: 'script', source },
  ...extra,
});

describe.each(await backends())('script connectors and the sandbox (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend, { RUN_CONCURRENCY: '2', SANDBOX_MEMORY_MB: '256', SCRIPT_MEMORY_MB: '64' });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('gives scripts args, secrets, totp, http with a cookie jar, log and files', async () => {
    const c = await publish(
      h,
      script(
        `export default async function (ctx) {
          const login = await ctx.http.get(ctx.args.base + '/login');
          const csrf = /name="csrf_token" value="([^"]+)"/.exec(login.text)[1];
          const s = ctx.secrets.account;
          const r1 = await ctx.http.post(ctx.args.base + '/login', { form: { csrf_token: csrf, username: s.username, password: s.password } });
          const csrf2 = /name="csrf_token" value="([^"]+)"/.exec(r1.text)[1];
          await ctx.http.post(ctx.args.base + '/login/totp', { form: { csrf_token: csrf2, code: ctx.totp('account') } });
          const acct = (await ctx.http.get(ctx.args.base + '/api/account')).json();
          const csv = await ctx.http.get(ctx.args.base + '/export.csv', { query: { q: 'gamma' } });
          const f = await ctx.files.save('gamma.csv', csv.text, 'text/csv');
          ctx.log('saved', f.name, 'for', acct.plan);
          return { plan: acct.plan, balance: acct.balance, file_id: f.id, run: ctx.run.id };
        }`,
        { required_secrets: [{ name: 'account', type: 'login', supports_totp: true }] },
      ),
    );
    const bob = await loginSecret(h, 'bob', 'builder', BOB_TOTP_SEED);
    const r = await run(h, { connector_id: c.id, arguments: { base: site.url }, secret_bindings: { account: bob } });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(r.result).toMatchObject({ plan: 'pro', balance: 1024, run: r.id });
    const files = (await h.api('GET', `/v1beta/files?run_id=${r.id}`)).json.data;
    expect(files).toEqual([
      expect.objectContaining({ id: r.result.file_id, source: 'RUN_OUTPUT', run_id: r.id, name: 'gamma.csv', content_type: 'text/csv' }),
    ]);
    const dl = await h.api('GET', `/v1beta/files/${files[0].id}/download_url`);
    const csv = await (await fetch(dl.json.url)).text();
    expect(csv.trim().split('\r\n')).toHaveLength(9);
    expect((await h.api('GET', `/v1beta/files?source=RUN_OUTPUT&connector_id=${c.id}`)).json.data).toHaveLength(1);
    expect(await logsOf(h, r.id)).toMatch(/saved gamma\.csv for pro/);
  });

  it('fail() and thrown exceptions become RunErrors', async () => {
    const failing = await publish(
      h,
      script(
        `export default async (ctx) => ctx.fail('invalid_input', 'no such order', { retryable: false, details: { order: ctx.args.order } })`,
      ),
    );
    let r = await run(h, { connector_id: failing.id, arguments: { order: 42 } });
    expect(r).toMatchObject({
      status: 'connector_error',
      error: { type: 'invalid_input', message: 'no such order', retryable: false, exception: null, details: { order: 42 } },
    });
    const throwing = await publish(h, script(`export default async () => { null.x; }`));
    r = await run(h, { connector_id: throwing.id });
    expect(r.error).toMatchObject({ type: 'unhandled', exception: 'TypeError', retryable: null });
    expect(r.error.message).toMatch(/cannot read property 'x' of null/);
  });

  it('confines scripts: no Node.js, no modules, no files, no network, no environment', async () => {
    // Scripts run in QuickJS (WebAssembly): none of Node's globals exist and nothing can be imported.
    const c = await publish(
      h,
      script(`export default async (ctx) => {
        const g = Function('return this')();
        const out = {};
        for (const k of ['process', 'require', 'fetch', 'Buffer', 'module', 'XMLHttpRequest', 'WebSocket', 'std', 'os']) out[k] = typeof g[k];
        try { await import('node:fs'); out.import = 'LOADED'; } catch (e) { out.import = e.name; }
        return out;
      }`),
    );
    const r = await run(h, { connector_id: c.id });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(r.result).toEqual({
      process: 'undefined',
      require: 'undefined',
      fetch: 'undefined',
      Buffer: 'undefined',
      module: 'undefined',
      XMLHttpRequest: 'undefined',
      WebSocket: 'undefined',
      std: 'undefined',
      os: 'undefined',
      import: expect.stringMatching(/Error/),
    });
  });

  it('a sandbox killed mid-run ends connector_error/crash, and the pool recovers', async () => {
    const c = await publish(h, script(`export default async () => { await new Promise((r) => setTimeout(r, 20000)); return {}; }`));
    const r = await run(h, { connector_id: c.id, async: true });
    let pid: number | undefined;
    for (let i = 0; i < 200 && !pid; i++) {
      pid = h.services.runtime.pool.pidOf(r.id);
      if (!pid) await new Promise((res) => setTimeout(res, 25));
    }
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    const done = await waitRun(h, r.id);
    expect(done).toMatchObject({ status: 'connector_error', error: { type: 'crash' } });
    expect(done.error.message).toMatch(/SIGKILL/);
    const after = await run(h, { connector_id: (await publish(h, script(`export default async () => ({ ok: true })`))).id });
    expect(after.result).toEqual({ ok: true });
  });

  it('a heap blow-up is a crash too', async () => {
    const c = await publish(h, script(`export default async () => { const a = []; for (;;) a.push(new Array(1e6).fill(1)); }`));
    const r = await run(h, { connector_id: c.id, max_timeout_s: 60 });
    expect(r).toMatchObject({
      status: 'connector_error',
      error: { type: 'crash', message: 'the script exceeded its memory limit (SCRIPT_MEMORY_MB=64)' },
    });
  }, 60_000);

  it('times out: the attempt is killed and the run ends timed_out', async () => {
    const hang = await publish(h, script(`export default async () => { for (;;) {} }`));
    const t0 = Date.now();
    const r = await run(h, { connector_id: hang.id, max_timeout_s: 1 });
    expect(r).toMatchObject({ status: 'timed_out', error: null, result: null });
    expect(Date.now() - t0).toBeLessThan(5000);
    const slow = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        steps: [{ id: 'slow', url: `${site.url}/api/slow`, query: { ms: '5000' } }],
        result: {},
      },
    });
    expect((await run(h, { connector_id: slow.id, max_timeout_s: 1 })).status).toBe('timed_out');
    expect(await logsOf(h, r.id)).toMatch(/timed out after 1 s/);
  });

  it('applies both result-size rules to real large results', async () => {
    const bulk = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        steps: [{ id: 'bulk', url: `${site.url}/api/bulk`, query: { kb: '{{args.kb}}' }, extract: { doc: { from: 'json', path: '$' } } }],
        result: '{{vars.doc}}',
      },
      output_schema: { type: 'object', required: ['records'] },
    });
    // Sync above 1,000,000 bytes: returned once, not stored.
    const sync = await h.api('POST', '/v1beta/runs', { connector_id: bulk.id, arguments: { kb: 1200 } });
    expect(sync.status).toBe(200);
    expect(sync.json).toMatchObject({ status: 'success', result_stored: false });
    expect(sync.json.result_size_bytes).toBeGreaterThan(1_000_000);
    expect(sync.json.result.records.length).toBeGreaterThan(1000);
    expect(sync.json.result_size_bytes).toBe(Buffer.byteLength(JSON.stringify(sync.json.result)));
    const later = (await h.api('GET', `/v1beta/runs/${sync.json.id}`)).json;
    expect(later).toMatchObject({ status: 'success', result: null, result_stored: false, result_size_bytes: sync.json.result_size_bytes });
    // Async above 1,000,000: result_too_large.
    const a = await run(h, { connector_id: bulk.id, arguments: { kb: 1200 }, async: true });
    expect(await waitRun(h, a.id)).toMatchObject({ status: 'result_too_large', result: null, result_stored: false, error: null });
    // Just under the limit: stored.
    const small = await run(h, { connector_id: bulk.id, arguments: { kb: 900 }, async: true });
    const s = await waitRun(h, small.id);
    expect(s).toMatchObject({ status: 'success', result_stored: true });
    expect(s.result_size_bytes).toBeLessThanOrEqual(1_000_000);
  });

  it('caps the stored logs (RUN_LOG_MAX_BYTES) and says so', async () => {
    const c = await publish(
      h,
      script(`export default async (ctx) => { for (let i = 0; i < 3000; i++) ctx.log('line ' + i + ' ' + 'x'.repeat(500)); return {}; }`),
    );
    const r = await run(h, { connector_id: c.id });
    expect(r).toMatchObject({ status: 'success', has_logs: true });
    const logs = await logsOf(h, r.id);
    expect(Buffer.byteLength(logs)).toBeLessThanOrEqual(1_000_100);
    expect(logs).toMatch(/^\S+Z line 0 x+$/m);
    expect(logs).toMatch(/… \d+ more log lines dropped \(RUN_LOG_MAX_BYTES=1000000\)$/);
  });

  it('a client that disconnects from a sync run does not cancel it', async () => {
    const c = await publish(
      h,
      script(`export default async (ctx) => { await new Promise((r) => setTimeout(r, 700)); return { done: true }; }`),
    );
    const ac = new AbortController();
    const pending = fetch(`${h.url}/v1beta/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ connector_id: c.id }),
      signal: ac.signal,
    }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 200));
    ac.abort();
    expect(await pending).toBeInstanceOf(Error);
    const list = (await h.api('GET', `/v1beta/runs?connector_id=${c.id}`)).json.data;
    expect(list).toHaveLength(1);
    expect(await waitRun(h, list[0].id)).toMatchObject({ status: 'success', result: { done: true } });
  });
});

describe('the execution limit (RUN_MAX_RESULT_BYTES)', () => {
  it('a sync result above it ends result_too_large', async () => {
    const site = await startDemoSite();
    const h = await startHarness('sqlite', { RUN_MAX_RESULT_BYTES: '2000000' });
    try {
      const bulk = await publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          steps: [{ id: 'bulk', url: `${site.url}/api/bulk?kb=3000`, extract: { doc: { from: 'json', path: '$' } } }],
          result: '{{vars.doc}}',
        },
      });
      const r = await run(h, { connector_id: bulk.id });
      expect(r).toMatchObject({ status: 'result_too_large', result: null, error: null });
      expect(r.result_size_bytes).toBeGreaterThan(2_000_000);
    } finally {
      await h.close();
      await site.close();
    }
  });
});
