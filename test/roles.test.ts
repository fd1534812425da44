// Roles as real processes on one database: an API process that executes no run (`serve --role
// api`) and worker processes (`worker`). Runs created on the API execute on a worker (its log
// lines say so), sync callers get their result across processes, a worker killed with SIGKILL
// mid-run loses only that run (internal_error once its lease runs out, never left running), a
// new worker takes over, and a cancel on the API stops a run the worker executes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { LOG_FLUSH_MS } from '../src/lib/logger.js';
import { backends } from './helpers/harness.js';
import { callApi, listening, type Proc, scratchDatabase, startProcess as start, stopProcess as stop, until } from './helpers/processes.js';

describe.each(await backends())('api and worker processes (%s)', (backend) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-roles-'));
  let env: Record<string, string>;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let db: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
  let api: Proc;
  const workers: Proc[] = [];
  let url: string;
  let key: string;
  const call = (method: string, p: string, body?: unknown) => callApi(url, key, method, p, body);
  const executedBy = (w: Proc, runId: string) => w.lines().some((l) => l.msg === 'run finished' && l.run_id === runId);

  beforeAll(async () => {
    site = await startDemoSite();
    env = {
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      MASTER_KEY: crypto.randomBytes(32).toString('base64'),
      RUN_LEASE_S: '2',
      CAPTURE_WARM_CONTEXTS: '0',
      DATABASE_URL: '',
    };
    if (backend === 'postgres') {
      db = await scratchDatabase('cs_roles');
      env.DATABASE_URL = db.url;
    }
    api = start(['serve', '--role', 'api'], env);
    const l = await listening(api);
    expect(l.role).toBe('api');
    url = l.url;
    key = l.key!;
    workers.push(start(['worker'], env));
    await until('the worker', () => workers[0].lines().some((l) => l.msg === 'connector worker started'));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([api, ...workers].map(stop));
    await site?.close();
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const titleConnector = () =>
    call('POST', '/v1beta/connectors', {
      display_name: 'page title',
      purpose: 'the title of a search page',
      input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      output_schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        steps: [
          { id: 'page', url: `${site.url}/items?q={{args.query | urlencode}}`, extract: { title: { from: 'css', selector: 'title' } } },
        ],
        result: { title: '{{vars.title}}' },
      },
    });
  const slowConnector = () =>
    call('POST', '/v1beta/connectors', {
      display_name: 'slow',
      purpose: 'waits',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      definition: {
        format: 'connector-definition/v1',
        engine: 'browser',
        steps: [
          { action: 'navigate', url: `${site.url}/items` },
          { action: 'wait', ms: 120_000 },
        ],
        result: {},
      },
    });

  it('executes sync and async runs created on the API process on the worker', async () => {
    const c = await titleConnector();
    expect(c.status, c.text).toBe(200);
    const sync = await call('POST', '/v1beta/runs', { connector_id: c.json.id, arguments: { query: 'gamma' } });
    expect(sync.status, sync.text).toBe(200);
    expect(sync.json.status).toBe('success');
    expect(sync.json.result.title).toBeTruthy();
    const queued = await call('POST', '/v1beta/runs', { connector_id: c.json.id, arguments: { query: 'delta' }, async: true });
    expect(queued.status).toBe(202);
    const done = await until('the async run', async () => {
      const r = await call('GET', `/v1beta/runs/${queued.json.id}`);
      return r.json.status === 'success' && r.json;
    });
    expect(done.result.title).toBeTruthy();
    for (const id of [sync.json.id, queued.json.id]) await until(`the worker's line for ${id}`, () => executedBy(workers[0], id));
    // Log lines reach stdout within LOG_FLUSH_MS: wait that out before saying the API logged none.
    await new Promise((r) => setTimeout(r, 2 * LOG_FLUSH_MS));
    for (const id of [sync.json.id, queued.json.id]) {
      expect(api.lines().some((l) => l.run_id === id && l.msg === 'run started')).toBe(false);
    }
    // secret_values live in the memory of the process that received them: not on an API-only one.
    const sv = await call('POST', '/v1beta/runs', {
      connector_id: c.json.id,
      arguments: { query: 'x' },
      secret_values: { account: { type: 'login', username: 'u', password: 'p' } },
    });
    expect(sv.status).toBe(422);
  });

  it('loses only the run of a worker killed mid-run; a new worker takes over', async () => {
    const slow = await slowConnector();
    expect(slow.status, slow.text).toBe(200);
    const r = await call('POST', '/v1beta/runs', { connector_id: slow.json.id, arguments: {}, async: true });
    await until('the slow run running', async () => (await call('GET', `/v1beta/runs/${r.json.id}`)).json.status === 'running');
    workers[0].p.kill('SIGKILL');
    await new Promise((res) => workers[0].p.once('exit', res));
    workers.push(start(['worker'], env));
    const ended = await until('the lost run to end', async () => {
      const x = await call('GET', `/v1beta/runs/${r.json.id}`);
      return x.json.status !== 'running' && x.json;
    });
    expect(ended.status).toBe('internal_error');
    const logs = await call('GET', `/v1beta/runs/${r.json.id}/logs`);
    expect(logs.json.logs).toMatch(/its lease ran out/);

    const c = await titleConnector();
    const after = await call('POST', '/v1beta/runs', { connector_id: c.json.id, arguments: { query: 'epsilon' } });
    expect(after.json.status).toBe('success');
    await until('the new worker ran it', () => executedBy(workers[1], after.json.id), 60_000);
    // A worker with nothing to do stays up (on SQLite nothing held its event loop: it exited 0).
    expect(workers[1].p.exitCode).toBeNull();
  }, 90_000);

  it('cancels on the API process a run the worker executes', async () => {
    const slow = await slowConnector();
    const r = await call('POST', '/v1beta/runs', { connector_id: slow.json.id, arguments: {}, async: true });
    await until('the slow run running', async () => (await call('GET', `/v1beta/runs/${r.json.id}`)).json.status === 'running');
    const c = await call('POST', `/v1beta/runs/${r.json.id}/cancel`);
    expect(c.status, c.text).toBe(200);
    // The worker stops it within about a second; on a loaded machine the answer may come first.
    expect(['cancelled', 'running']).toContain(c.json.status);
    const ended = await until('the cancelled run', async () => {
      const x = await call('GET', `/v1beta/runs/${r.json.id}`);
      return x.json.status !== 'running' && x.json;
    });
    expect(ended.status).toBe('cancelled');
    const logs = await call('GET', `/v1beta/runs/${r.json.id}/logs`);
    expect(logs.json.logs).toMatch(/cancelled on request; the sandbox was stopped/);
  }, 90_000);
});
