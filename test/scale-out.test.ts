// Scale-out on PostgreSQL with real processes: two API processes (`serve --role api`) and two
// workers. 1,000 async runs and a stream of sync runs go through both API processes while one
// worker and one API process are killed with SIGKILL mid-way and restarted. Every run's request
// carries its own tag, and the target counts the hits per tag:
//   - 0 lost: every run the API accepted ends, and every run that succeeded hit the target once;
//   - 0 executed twice: no tag is hit twice;
//   - 0 left running/pending once the dead worker's leases ran out (its runs end internal_error
//     with a log line saying why).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from './helpers/harness.js';
import {
  callApi,
  killProcess,
  listening,
  newUser,
  type Proc,
  scratchDatabase,
  startProcess,
  stopProcess,
  until,
} from './helpers/processes.js';

const RUNS = 1000;
const withPg = (await backends()).includes('postgres');

/**
 * The hooks of a test of real processes: a data dir, a scratch PostgreSQL database, a target
 * server, the base environment, and every process `start`ed (stopped after the tests).
 */
function useFleet(prefix: string, handler: http.RequestListener) {
  const f = {
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), `cs-${prefix}-`)),
    db: null as Awaited<ReturnType<typeof scratchDatabase>> | null,
    target: null as http.Server | null,
    targetUrl: '',
    env: {} as Record<string, string>,
    procs: [] as Proc[],
    start(args: string[], extra: Record<string, string> = {}): Proc {
      const p = startProcess(args, { ...f.env, ...extra });
      f.procs.push(p);
      return p;
    },
  };
  beforeAll(async () => {
    f.target = http.createServer(handler);
    await new Promise<void>((r) => f.target!.listen(0, '127.0.0.1', r));
    f.targetUrl = `http://127.0.0.1:${(f.target.address() as AddressInfo).port}`;
    f.db = await scratchDatabase(`cs_${prefix}`);
    f.env = {
      DATA_DIR: f.dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      MASTER_KEY: crypto.randomBytes(32).toString('base64'),
      CAPTURE_WARM_CONTEXTS: '0',
      DATABASE_URL: f.db.url,
    };
  }, 60_000);
  afterAll(async () => {
    await Promise.all(f.procs.map(stopProcess));
    await new Promise((r) => (f.target ? f.target.close(r) : r(undefined)));
    await f.db?.drop();
    fs.rmSync(f.dataDir, { recursive: true, force: true });
  }, 60_000);
  return f;
}

const workerUp = (w: Proc) => until('a worker', () => w.lines().some((l) => l.msg === 'connector worker started'), 60_000);

/** An http connector of one GET to `url`, published by the owner of `key`; its id. */
async function oneGet(base: string, key: string, url: string): Promise<string> {
  const c = await callApi(base, key, 'POST', '/v1beta/connectors', {
    display_name: 'one GET',
    purpose: 'one GET to the target',
    input_schema: { type: 'object' },
    output_schema: { type: 'object' },
    definition: { format: 'connector-definition/v1', engine: 'http', steps: [{ id: 'get', url }], result: {} },
  });
  expect(c.status, c.text).toBe(200);
  return c.json.id;
}

describe.skipIf(!withPg)('scale-out: 2 API processes, 2 workers, kill -9 mid-way (postgres)', () => {
  const hits = new Map<string, number>();
  // The target: a short wait (runs are in flight when a process dies), then the tag's count.
  const fleet = useFleet('scale', (req, res) => {
    const tag = new URL(req.url!, 'http://x').searchParams.get('tag') ?? '';
    hits.set(tag, (hits.get(tag) ?? 0) + 1);
    setTimeout(() => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ tag, n: hits.get(tag) }));
    }, 25);
  });
  let key: string;
  const start = async (args: string[]) =>
    fleet.start(args, {
      // Short, so the dead worker's runs end soon; long enough that a live worker starved of
      // CPU by the rest of the suite still renews its leases in time.
      RUN_LEASE_S: '4',
      RUN_CONCURRENCY: '8',
      RUN_MAX_CONCURRENCY_PER_USER: '16',
    });

  it('loses no run, executes none twice, leaves none running', async () => {
    // The first API process creates the schema and the bootstrap key; then the others start.
    const api1 = await start(['serve', '--role', 'api']);
    const first = await listening(api1);
    key = first.key!;
    const api2 = await start(['serve', '--role', 'api']);
    const [w1, w2] = [await start(['worker']), await start(['worker'])];
    const urls = [first.url, (await listening(api2)).url];
    await Promise.all([w1, w2].map(workerUp));

    const call = (base: string, method: string, p: string, body?: unknown) => callApi(base, key, method, p, body);
    const c = await call(urls[1], 'POST', '/v1beta/connectors', {
      display_name: 'hit',
      purpose: 'hits the target once with a tag',
      input_schema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
      output_schema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        steps: [
          { id: 'hit', url: `${fleet.targetUrl}/hit?tag={{args.tag | urlencode}}`, extract: { tag: { from: 'json', path: '$.tag' } } },
        ],
        result: { tag: '{{vars.tag}}' },
      },
    });
    expect(c.status, c.text).toBe(200);

    // Accepted runs by id → tag. A request to a process that is being killed may fail: such a run
    // was never accepted (no id came back), so it is not counted.
    const accepted = new Map<string, string>();
    const syncResults: { id: string; tag: string; status: string }[] = [];
    let refused = 0;
    const create = async (i: number, alive: string[]) => {
      const tag = `t${i}`;
      const base = alive[i % alive.length];
      try {
        const sync = i % 50 === 0;
        const r = await call(base, 'POST', '/v1beta/runs', { connector_id: c.json.id, arguments: { tag }, async: !sync });
        if (r.status === 202 || r.status === 200) {
          accepted.set(r.json.id, tag);
          if (sync) syncResults.push({ id: r.json.id, tag, status: r.json.status });
        } else refused++;
      } catch {
        refused++;
      }
    };
    const batch = async (from: number, to: number, alive: () => string[]) => {
      const queue = Array.from({ length: to - from }, (_, k) => from + k);
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let i = queue.shift(); i !== undefined; i = queue.shift()) await create(i, alive());
        }),
      );
    };

    // First half through both API processes; half-way, kill worker 1 and API process 1 while
    // runs are executing and requests are arriving.
    let alive = urls;
    const firstHalf = batch(0, RUNS / 2, () => alive);
    const client = new pg.Client({ connectionString: fleet.db!.url });
    await client.connect();
    await until('runs executing', async () => {
      const r = await client.query("SELECT count(*)::int AS n FROM runs WHERE status = 'running'");
      return accepted.size > RUNS / 4 && r.rows[0].n > 0;
    });
    alive = [urls[1]];
    await Promise.all([killProcess(w1), killProcess(api1)]);
    await firstHalf;

    // Restart both; the second half goes through both again.
    const api1b = await start(['serve', '--role', 'api']);
    const w1b = await start(['worker']);
    alive = [urls[1], (await listening(api1b)).url];
    await workerUp(w1b);
    await batch(RUNS / 2, RUNS, () => alive);
    expect(w1b.p.exitCode).toBeNull();

    // Everything ends: pending and running drain, the dead worker's runs once their lease ran out.
    try {
      const ids = [...accepted.keys()];
      const rows = await until(
        'every accepted run to end',
        async () => {
          const r = await client.query('SELECT id, status, error FROM runs WHERE id = ANY($1)', [ids]);
          return r.rows.every((x) => x.status !== 'pending' && x.status !== 'running') && r.rows;
        },
        120_000,
      );
      expect(rows.length).toBe(accepted.size);
      const byStatus = (s: string) => rows.filter((x) => x.status === s);
      const logsOf = async (id: string) => (await client.query('SELECT logs FROM run_logs WHERE run_id = $1', [id])).rows[0]?.logs;
      const failed = byStatus('internal_error');
      // Any other end is a fault: show its error and logs, not just a count.
      const odd = rows.filter((x) => x.status !== 'success' && x.status !== 'internal_error');
      for (const x of odd) x.logs = await logsOf(x.id);
      expect(odd).toEqual([]);
      // 0 executed twice.
      expect([...hits.entries()].filter(([, n]) => n > 1)).toEqual([]);
      // 0 lost: a run that succeeded hit the target once; only runs the killed worker was
      // executing (at most its concurrency) ended internal_error, each saying why.
      for (const x of byStatus('success')) expect(hits.get(accepted.get(x.id)!), x.id).toBe(1);
      for (const x of failed) {
        x.logs = await logsOf(x.id);
        expect(x.logs).toMatch(/lease ran out/);
      }
      expect(failed.length, JSON.stringify(failed)).toBeLessThanOrEqual(8);
      // Sync callers got the run's result across processes.
      expect(syncResults.length).toBeGreaterThan(5);
      for (const s of syncResults) expect(['success', 'internal_error'], s.id).toContain(s.status);
      expect(accepted.size + refused).toBe(RUNS);
      expect(accepted.size).toBeGreaterThan(RUNS * 0.9);
      console.log(
        `scale-out: ${accepted.size} accepted (${refused} refused while a process died), ${byStatus('success').length} success, ${failed.length} internal_error (the killed worker's), 0 twice`,
      );
    } finally {
      await client.end();
    }
  }, 300_000);
});

describe.skipIf(!withPg)('run notices between processes (postgres)', () => {
  const fleet = useFleet('notice', (_req, res) => res.end('{"ok":true}'));

  it('a worker that reads pending runs only every 10 minutes starts a run stored by an API process at once', async () => {
    const api = fleet.start(['serve', '--role', 'api'], { RUN_SCAN_MS: '600000' });
    const { url, key } = await listening(api);
    await workerUp(fleet.start(['worker'], { RUN_SCAN_MS: '600000' }));
    const call = (method: string, p: string, body?: unknown) => callApi(url, key!, method, p, body);
    const id = await oneGet(url, key!, `${fleet.targetUrl}/ok`);
    // The worker's first read (at its start) is over; only the API process's notice can wake it.
    await new Promise((r) => setTimeout(r, 1000));
    const t0 = Date.now();
    const sync = await call('POST', '/v1beta/runs', { connector_id: id, arguments: {} });
    expect(sync.json.status).toBe('success');
    const queued = await call('POST', '/v1beta/runs', { connector_id: id, arguments: {}, async: true });
    await until('the async run', async () => (await call('GET', `/v1beta/runs/${queued.json.id}`)).json.status === 'success', 30_000);
    expect(Date.now() - t0).toBeLessThan(60_000);
  }, 180_000);
});

describe.skipIf(!withPg)('the per-user limit across workers (postgres)', () => {
  // The target counts each user's requests in flight (the query names the user) and the most seen.
  const inFlight = new Map<string, number>();
  const most = new Map<string, number>();
  const fleet = useFleet('cap', (req, res) => {
    const who = new URL(req.url!, 'http://x').searchParams.get('who') ?? '';
    const n = (inFlight.get(who) ?? 0) + 1;
    inFlight.set(who, n);
    most.set(who, Math.max(most.get(who) ?? 0, n));
    setTimeout(() => {
      inFlight.set(who, inFlight.get(who)! - 1);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    }, 150);
  });

  it('one user has at most RUN_MAX_CONCURRENCY_PER_USER runs executing across two workers; another user is not held up', async () => {
    const limits = { RUN_CONCURRENCY: '8', RUN_MAX_CONCURRENCY_PER_USER: '2' };
    const { url, key } = await listening(fleet.start(['serve', '--role', 'api'], limits));
    const workers = [fleet.start(['worker'], limits), fleet.start(['worker'], limits)];
    const other = await newUser(fleet.env, 'other');
    await Promise.all(workers.map(workerUp));
    const connector = (k: string, who: string) => oneGet(url, k, `${fleet.targetUrl}/slow?who=${who}`);
    const [busy, quiet] = [await connector(key!, 'busy'), await connector(other, 'quiet')];
    const submit = async (k: string, id: string) =>
      (await callApi(url, k, 'POST', '/v1beta/runs', { connector_id: id, arguments: {}, async: true })).json.id;
    const backlog = await Promise.all(Array.from({ length: 24 }, () => submit(key!, busy)));
    const mine = await Promise.all(Array.from({ length: 4 }, () => submit(other, quiet)));
    const status = async (k: string, id: string) => (await callApi(url, k, 'GET', `/v1beta/runs/${id}`)).json.status;
    // The other user's runs end while the backlog is still being worked off.
    await until(
      'the other user’s runs',
      async () => (await Promise.all(mine.map((id) => status(other, id)))).every((s) => s === 'success'),
      60_000,
    );
    const left = (await Promise.all(backlog.map((id) => status(key!, id)))).filter((s) => s !== 'success').length;
    expect(left).toBeGreaterThan(0);
    await until(
      'the backlog',
      async () => (await Promise.all(backlog.map((id) => status(key!, id)))).every((s) => s === 'success'),
      90_000,
    );
    // Each worker alone allows 2, so without the limit across processes the target sees up to 4.
    expect(most.get('busy')).toBe(2);
    expect(most.get('quiet')).toBeLessThanOrEqual(2);
  }, 180_000);
});
