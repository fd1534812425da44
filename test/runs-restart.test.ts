// Restart recovery with a real process kill: a server is SIGKILLed while one run executes and
// others wait; the next start ends the orphaned run internal_error, finishes the queued ones, and
// ends a queued run whose secret_values died with the process internal_error too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { TERMINAL } from './helpers/runs.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-restart-'));
// Short leases: the next process finds the dead one's runs within seconds.
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: '0',
  LOG_LEVEL: 'info',
  DATABASE_URL: '',
  MASTER_KEY: '',
  RUN_CONCURRENCY: '1',
  RUN_LEASE_S: '2',
};

async function serve(): Promise<{ proc: ChildProcess; url: string; out: () => string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/start/cli.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) {
        clearInterval(t);
        resolve(m[1]);
      }
    }, 50);
    proc.once('exit', (c) => {
      clearInterval(t);
      reject(new Error(`serve exited ${c}: ${out}`));
    });
  });
  return { proc, url, out: () => out };
}

describe('restart recovery', () => {
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  const procs: ChildProcess[] = [];
  beforeAll(async () => {
    site = await startDemoSite();
  });
  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    await site?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('orphaned running → internal_error, queued → resumed, lost secret_values → internal_error', async () => {
    const a = await serve();
    procs.push(a.proc);
    const key = /API key \(shown once, store it now\): (\S+)/.exec(a.out())![1];
    const api = async (base: string, method: string, p: string, body?: unknown) => {
      const r = await fetch(base + p, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return r.json() as Promise<any>;
    };
    const publish = (ms: number, slots: unknown[] = []) =>
      api(a.url, 'POST', '/v1beta/connectors', {
        display_name: `slow ${ms}`,
        purpose: 'wait',
        input_schema: { type: 'object' },
        output_schema: {},
        required_secrets: slots,
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          steps: [{ id: 'wait', url: `${site.url}/api/slow?ms=${ms}`, extract: { w: { from: 'json', path: '$.waited_ms' } } }],
          result: { waited: '{{vars.w}}' },
        },
      });
    const slow = await publish(30_000);
    const quick = await publish(10);
    const withValue = await publish(10, [{ name: 'token', type: 'string' }]);
    const r1 = await api(a.url, 'POST', '/v1beta/runs', { connector_id: slow.id, async: true });
    for (let i = 0; i < 200; i++) {
      if ((await api(a.url, 'GET', `/v1beta/runs/${r1.id}`)).status === 'running') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const r2 = await api(a.url, 'POST', '/v1beta/runs', { connector_id: quick.id, async: true });
    const r3 = await api(a.url, 'POST', '/v1beta/runs', { connector_id: quick.id, async: true });
    const r4 = await api(a.url, 'POST', '/v1beta/runs', {
      connector_id: withValue.id,
      async: true,
      secret_values: { token: { value: 'ephemeral' } },
    });
    expect([r2.status, r3.status, r4.status]).toEqual(['pending', 'pending', 'pending']);
    expect((await api(a.url, 'GET', `/v1beta/runs/${r1.id}`)).status).toBe('running');

    a.proc.kill('SIGKILL');
    await new Promise((r) => a.proc.once('exit', r));

    const b = await serve();
    procs.push(b.proc);
    const final = async (id: string) => {
      for (let i = 0; i < 300; i++) {
        const r = await api(b.url, 'GET', `/v1beta/runs/${id}`);
        if (TERMINAL.includes(r.status)) return r;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error(`run ${id} never finished`);
    };
    expect(await final(r1.id)).toMatchObject({ status: 'internal_error', error: null, has_logs: true });
    expect((await api(b.url, 'GET', `/v1beta/runs/${r1.id}/logs`)).logs).toMatch(/server stopped while this run was executing/);
    expect(await final(r2.id)).toMatchObject({ status: 'success', result: { waited: 10 } });
    expect(await final(r3.id)).toMatchObject({ status: 'success', result: { waited: 10 } });
    expect(await final(r4.id)).toMatchObject({ status: 'internal_error' });
    expect((await api(b.url, 'GET', `/v1beta/runs/${r4.id}/logs`)).logs).toMatch(/secret_values \(never stored\) were lost/);
    b.proc.kill('SIGTERM');
    await new Promise((r) => b.proc.once('exit', r));
  }, 60_000);
});

describe('graceful shutdown', () => {
  /** A harness with one run slot and this shutdown grace, and a script connector that waits `ms`. */
  const withSlowConnector = async (graceS: number, ms: number) => {
    const { startHarness } = await import('./helpers/harness.js');
    const { publish } = await import('./helpers/runs.js');
    const h = await startHarness('sqlite', { RUN_CONCURRENCY: '1', RUN_SHUTDOWN_GRACE_S: String(graceS) });
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'script',
        source: `export default async () => { await new Promise((r) => setTimeout(r, ${ms})); return { done: true }; }`,
      },
    });
    return { h, c };
  };

  it('gives the run in flight its grace period: it finishes, its sync caller gets the result', async () => {
    const { h, c } = await withSlowConnector(20, 1500);
    const sync = h.api('POST', '/v1beta/runs', { connector_id: c.id });
    for (let i = 0; i < 400; i++) {
      const [r] = await h.services.db.selectFrom('runs').select('id').execute();
      if (r && h.services.runtime.pool.pidOf(r.id)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const queued = (await h.api('POST', '/v1beta/runs', { connector_id: c.id, async: true })).json;
    const t0 = Date.now();
    await h.services.stop().then(() => h.app.close());
    // It took the run's time, not the grace period's.
    expect(Date.now() - t0).toBeLessThan(10_000);
    const answered = await sync;
    expect(answered.json).toMatchObject({ status: 'success', result: { done: true } });
    // Nothing new was claimed meanwhile: the queued run waits for the next start.
    expect((await h.services.db.selectFrom('runs').select('status').where('id', '=', queued.id).executeTakeFirst())?.status).toBe(
      'pending',
    );
    await h.services.close();
  }, 30_000);

  it('after the grace period, ends the run in flight internal_error, leaves queued runs pending, and answers waiting sync calls', async () => {
    const { h, c } = await withSlowConnector(1, 30_000);
    const first = (await h.api('POST', '/v1beta/runs', { connector_id: c.id, async: true })).json;
    // Running in a sandbox (not just claimed): the pool knows its worker.
    for (let i = 0; i < 400 && !h.services.runtime.pool.pidOf(first.id); i++) await new Promise((r) => setTimeout(r, 25));
    expect(h.services.runtime.pool.pidOf(first.id)).toBeTypeOf('number');
    const sync = h.api('POST', '/v1beta/runs', { connector_id: c.id });
    await new Promise((r) => setTimeout(r, 200));
    // The server's shutdown order: loops first (runs end, sync callers answered), then HTTP.
    const closing = h.services.stop().then(() => h.app.close());
    const answered = await sync;
    await closing;
    expect(answered.status).toBe(200);
    expect(answered.json.status).toBe('pending');
    const rows = await h.services.db.selectFrom('runs').select(['id', 'status']).orderBy('created_at').execute();
    expect(rows.map((r) => r.status)).toEqual(['internal_error', 'pending']);
    const logs = await h.services.db.selectFrom('run_logs').select('logs').where('run_id', '=', first.id).executeTakeFirst();
    expect(logs?.logs).toMatch(/the server shut down while this run was executing/);
    await h.services.close();
  }, 30_000);
});

describe('graceful shutdown of a real process', () => {
  it('a second SIGTERM cuts the grace period short: the process exits at once, not after the grace or the run', async () => {
    const { callApi, listening, startProcess, stopProcess, until } = await import('./helpers/processes.js');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-grace-'));
    const env = { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', CAPTURE_WARM_CONTEXTS: '0', RUN_SHUTDOWN_GRACE_S: '600' };
    const proc = startProcess(['serve'], env);
    try {
      const { url, key } = await listening(proc);
      const call = (method: string, p: string, body?: unknown) => callApi(url, key!, method, p, body);
      const c = await call('POST', '/v1beta/connectors', {
        display_name: 'slow',
        purpose: 'waits',
        input_schema: { type: 'object' },
        output_schema: { type: 'object' },
        definition: {
          format: 'connector-definition/v1',
          engine: 'script',
          source: 'export default async () => { await new Promise((r) => setTimeout(r, 60000)); return {}; }',
        },
      });
      expect(c.status, c.text).toBe(200);
      const r = (await call('POST', '/v1beta/runs', { connector_id: c.json.id, async: true })).json;
      await until('the run executing', async () => (await call('GET', `/v1beta/runs/${r.id}`)).json.status === 'running', 30_000);
      // 'close', not 'exit': the last log lines (written as it exits) are read by then.
      const exited = new Promise((done) => proc.p.once('close', done));
      proc.p.kill('SIGTERM');
      await until('the first signal seen', () => proc.lines().some((l) => l.msg === 'shutting down'), 10_000);
      const t0 = Date.now();
      proc.p.kill('SIGTERM');
      await exited;
      // Not the 600 s grace, nor the run's 60 s.
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect(proc.lines().some((l) => l.msg === 'shutting down now')).toBe(true);
    } finally {
      await stopProcess(proc);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
