// Scale-out benchmark (issue 12): async runs completed per second
//   - embedded: one `serve` process on SQLite (today's single-machine default), and
//   - on PostgreSQL: one `serve --role api` process and 1, 2, 4 `worker` processes,
// each against direct GETs to the same target in the same run (the baseline). The runs are one
// GET each (an http connector); completion is read from the server's own created_at/finished_at.
//   npx tsx bench/workers.ts [runs=2000] [workers=1,2,4]   (BENCH_WARMUP=4000)
// BENCH_PROF=<dir> starts every serve/worker process with --cpu-prof into that directory
// (test/helpers/processes.ts); the sandbox processes are not profiled.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { namedCpuSeconds, startTarget, treeCpuSeconds } from './lib.js';
import { listening, type Proc, startProcess, stopProcess, until } from '../test/helpers/processes.js';

const M = Number(process.argv[2] ?? 2000);
// `0` measures the embedded configuration only. BENCH_WARMUP: runs before the measured ones.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 4000);
const COUNTS = (process.argv[3] ?? '1,2,4')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CONCURRENCY = process.env.RUN_CONCURRENCY ?? '8';

const target = await startTarget<{ port: number }>('bench/targets/echo-server.ts');
const targetUrl = `http://127.0.0.1:${target.info.port}`;

async function directRps(): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (performance.now() - t0 < 2000) {
        await (await fetch(`${targetUrl}/ping`)).arrayBuffer();
        n++;
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(sql).finally(() => c.end());
}

/** Where the CPU of the measured runs went, per run (µs), from /proc; null off Linux. */
interface CpuPerRun {
  /** The process that took the POSTs (`serve`, or `serve --role api`). */
  api: number;
  /** `worker` processes (PostgreSQL configurations). */
  workers: number;
  /** The sandbox processes of all of them. */
  sandbox: number;
  /** PostgreSQL's server processes on this machine (PostgreSQL configurations). */
  database: number;
}

/** Starts the processes, submits M async runs, waits for them; runs completed per second. */
async function measure(workers: number | 'embedded'): Promise<{ rps: number; cpu: CpuPerRun | null }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-workers-'));
  const dbName = `cs_bench_${crypto.randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'info',
    MASTER_KEY: crypto.randomBytes(32).toString('base64'),
    RUN_CONCURRENCY: CONCURRENCY,
    // Every run is one user's: the per-user limit (across the fleet) is set not to bind, so this
    // measures what the fleet can do, not that limit.
    RUN_MAX_CONCURRENCY_PER_USER: String(Number(CONCURRENCY) * (workers === 'embedded' ? 1 : workers)),
    CAPTURE_WARM_CONTEXTS: '0',
    DATABASE_URL: '',
  };
  if (workers !== 'embedded') {
    await admin(`CREATE DATABASE ${dbName}`);
    env.DATABASE_URL = PG_URL.replace(/\/[^/]+$/, `/${dbName}`);
  }
  const procs: Proc[] = [startProcess(workers === 'embedded' ? ['serve'] : ['serve', '--role', 'api'], env)];
  try {
    const { url, key } = await listening(procs[0]);
    for (let i = 0; i < (workers === 'embedded' ? 0 : workers); i++) procs.push(startProcess(['worker'], env));
    await Promise.all(
      procs.slice(1).map((w) => until('a worker', () => w.lines().some((l) => l.msg === 'connector worker started'), 60_000)),
    );
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const connector = async (name: string) =>
      (
        (await (
          await fetch(`${url}/v1beta/connectors`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              display_name: name,
              purpose: 'one GET',
              input_schema: { type: 'object' },
              output_schema: { type: 'object' },
              definition: { format: 'connector-definition/v1', engine: 'http', steps: [{ id: 'p', url: `${targetUrl}/ping` }], result: {} },
            }),
          })
        ).json()) as { id: string }
      ).id;
    /** Submits n async runs of a connector, waits for them; runs completed per second. */
    const burst = async (connectorId: string, n: number): Promise<number> => {
      const submitted = await autocannon({
        url: `${url}/v1beta/runs`,
        method: 'POST',
        headers,
        body: JSON.stringify({ connector_id: connectorId, async: true }),
        amount: n,
        connections: 32,
      });
      if (submitted.non2xx || submitted.errors) {
        const log = path.join(os.tmpdir(), `cs-bench-workers-${Date.now()}.log`);
        fs.writeFileSync(log, procs[0].out());
        throw new Error(`submissions failed: ${submitted.non2xx} non-2xx, ${submitted.errors} errors; the server's output is in ${log}`);
      }
      // Completion from the server's own timestamps (listed through the API, like a client would).
      // Runs start in submission order, so the newest are among the last to end: only the first
      // page (newest first) is polled, and the whole list is read once that page has ended. (Reading
      // every page four times a second was a load of its own on the server being measured.)
      const page = async (cursor: string | null): Promise<{ data: any[]; next_cursor: string | null }> =>
        (
          await fetch(`${url}/v1beta/runs?connector_id=${connectorId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers })
        ).json() as any;
      const ended = (r: { status: string }) => r.status !== 'pending' && r.status !== 'running';
      for (const t0 = Date.now(); ; ) {
        if ((await page(null)).data.every(ended)) {
          let first = Infinity;
          let last = 0;
          let done = 0;
          let cursor: string | null = null;
          do {
            const p = await page(cursor);
            for (const r of p.data) {
              if (!ended(r)) continue;
              if (r.status !== 'success') throw new Error(`run ${r.id} ended ${r.status}`);
              done++;
              first = Math.min(first, Date.parse(r.created_at));
              last = Math.max(last, Date.parse(r.finished_at));
            }
            cursor = p.next_cursor;
          } while (cursor);
          if (done === n) return n / ((last - first) / 1000);
        }
        if (Date.now() - t0 > 300_000) throw new Error(`the runs did not all end within 300 s`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    // A warm-up burst first (its own connector): it starts the worker pools (they start with the
    // first run) and lets V8 optimize the hot code in the server and in every sandbox worker (each
    // compiles its own), so the figure is a running server's rate, not its start-up. Measured here:
    // 1,000 warm-up runs gave ~60% of the rate after 4,000 or 10,000 (which agree).
    await burst(await connector('warm-up'), WARMUP);
    const id = await connector('ping');
    // CPU per run of each kind of process: unlike runs/s, it hardly depends on what else the
    // machine runs, so it compares two versions of the code run minutes apart.
    const cpu = () => procs.map((x) => treeCpuSeconds(x.p.pid!));
    const db = () => (workers === 'embedded' ? 0 : namedCpuSeconds('postgres'));
    const before = cpu();
    const dbBefore = db();
    const rps = await burst(id, M);
    const after = cpu();
    const dbSpent = db() - dbBefore;
    if (before.some((c) => !c) || after.some((c) => !c)) return { rps, cpu: null };
    const spent = (i: number, k: 'own' | 'children') => after[i]![k] - before[i]![k];
    const perRun = (s: number) => (s * 1e6) / M;
    return {
      rps,
      cpu: {
        api: perRun(spent(0, 'own')),
        workers: perRun(procs.slice(1).reduce((n, _, i) => n + spent(i + 1, 'own'), 0)),
        sandbox: perRun(procs.reduce((n, _, i) => n + spent(i, 'children'), 0)),
        database: perRun(dbSpent),
      },
    };
  } finally {
    await Promise.all(procs.map(stopProcess));
    if (workers !== 'embedded') await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

try {
  console.log(`async runs completed per second (${M} runs each, RUN_CONCURRENCY=${CONCURRENCY} per process, ${os.cpus().length} cores)`);
  await directRps(); // warms this process's client, or the first baseline comes out low
  for (const w of ['embedded' as const, ...COUNTS]) {
    const direct = await directRps();
    const { rps, cpu } = await measure(w);
    const label = w === 'embedded' ? 'embedded (serve, SQLite)' : `postgres: api + ${w} worker${w > 1 ? 's' : ''}`;
    const us = (n: number) => n.toFixed(0).padStart(4);
    const where = !cpu
      ? ''
      : `   CPU µs/run: api ${us(cpu.api)}${w === 'embedded' ? '' : `, workers ${us(cpu.workers)}`}, sandbox ${us(cpu.sandbox)}` +
        (w === 'embedded' ? '' : `, postgres ${us(cpu.database)}`);
    console.log(
      `  ${label.padEnd(30)} ${rps.toFixed(0).padStart(6)} runs/s   direct GETs ${direct.toFixed(0).padStart(6)}/s   ratio ${((100 * rps) / direct).toFixed(1)}%${where}`,
    );
  }
} finally {
  await target.stop();
}
