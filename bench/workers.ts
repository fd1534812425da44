// Scale-out benchmark (issue 12): async runs completed per second
//   - embedded: one `serve` process on SQLite (today's single-machine default), and
//   - on PostgreSQL: one `serve --role api` process and 1, 2, 4 `worker` processes,
// each against direct GETs to the same target in the same run (the baseline). The runs are one
// GET each (an http connector); completion is read from the server's own created_at/finished_at.
//   npx tsx bench/workers.ts [runs=2000] [workers=1,2,4]   (BENCH_WARMUP=4000)
// BENCH_TARGET_DELAY_MS=<ms> makes the target answer that much later, as a website does: runs then
// wait on the network, not on this machine's cores, and the figure is the fleet's run capacity
// (run slots / latency at best), which is what more workers add on a machine with few cores.
// BENCH_WARM_CONTEXTS=<n> keeps n warm capture contexts (default 0; the service's default is 2).
// BENCH_PROF=<dir> starts every serve/worker process with --cpu-prof into that directory
// (test/helpers/processes.ts); the sandbox processes are not profiled.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { cpuSeconds, namedCpuSeconds, startTarget, treeCpuSeconds } from './lib.js';
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
// BENCH_USERS: how many users share the runs (each with its own key, connector and share of the
// submissions); one by default. Each user's claims are serialized on PostgreSQL (the per-user limit
// holds across workers), so one user's runs measure that, many users' the fleet.
const USERS = Math.max(1, Number(process.env.BENCH_USERS ?? 1));

const DELAY_MS = Number(process.env.BENCH_TARGET_DELAY_MS ?? 0);
const target = await startTarget<{ port: number }>('bench/targets/echo-server.ts', { TARGET_DELAY_MS: String(DELAY_MS) });
const targetUrl = `http://127.0.0.1:${target.info.port}`;

/** CPU seconds this bench process has used so far (the client side of both loads). */
const selfCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * Direct GETs per second from 32 loops: the median of three 1.5 s windows (one window's figure
 * varied 3x from run to run on a shared 2-core VM), and the machine's CPU per GET in that window
 * (this client + the target, µs; null off Linux).
 */
async function directRps(): Promise<{ rps: number; cpuUs: number | null }> {
  const windows: { rps: number; cpuUs: number | null }[] = [];
  for (let w = 0; w < 3; w++) {
    const cpu0 = selfCpuSeconds();
    const target0 = cpuSeconds(target.proc.pid!);
    const t0 = performance.now();
    let n = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (performance.now() - t0 < 1500) {
          await (await fetch(`${targetUrl}/ping`)).arrayBuffer();
          n++;
        }
      }),
    );
    const target1 = cpuSeconds(target.proc.pid!);
    const spent = target0 === null || target1 === null ? null : selfCpuSeconds() - cpu0 + target1 - target0;
    windows.push({ rps: n / ((performance.now() - t0) / 1000), cpuUs: spent === null ? null : (spent * 1e6) / n });
  }
  return windows.sort((a, b) => a.rps - b.rps)[1]!;
}

/** A new user's API key, made with the CLI on the same database. */
async function newUserKey(env: Record<string, string>, name: string): Promise<string> {
  const run = async (args: string[]) => {
    const p = startProcess(args, env);
    await new Promise((r) => p.p.once('exit', r));
    if (p.p.exitCode !== 0) throw new Error(`${args.join(' ')} failed: ${p.out()}`);
    return p.out();
  };
  const user = (await run(['users', 'create', name]))
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { id?: string; name?: string; msg?: string })
    .find((o) => o.name === name && o.id && !o.msg);
  if (!user) throw new Error(`users create ${name} printed no user`);
  return /API key \(shown once, store it now\): (\S+)/.exec(await run(['keys', 'create', '--user', user.id!]))![1]!;
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
  /** The target's, and this process's (the client: submissions and polling). */
  client: number;
  /**
   * For scale: the API process's CPU per authenticated GET /v1beta/runs/{id} (one indexed read),
   * the least a request to it costs; a run is one such request plus its writes and its execution.
   */
  apiRead: number;
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
    // No warm capture browser by default (its Chromium's CPU is not a run's); BENCH_WARM_CONTEXTS=2
    // measures the service as `npm start` runs it.
    CAPTURE_WARM_CONTEXTS: process.env.BENCH_WARM_CONTEXTS ?? '0',
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
    // The users whose runs these are: the first start's user, and BENCH_USERS - 1 more made with the CLI.
    const keys = [key!];
    for (let u = 1; u < USERS; u++) keys.push(await newUserKey(env, `bench-${u}`));
    const headersOf = (k: string) => ({ authorization: `Bearer ${k}`, 'content-type': 'application/json' });
    const connector = async (k: string, name: string) =>
      (
        (await (
          await fetch(`${url}/v1beta/connectors`, {
            method: 'POST',
            headers: headersOf(k),
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
    /** A connector of each user. */
    const connectors = (name: string) => Promise.all(keys.map(async (k) => ({ headers: headersOf(k), id: await connector(k, name) })));
    /** Submits n async runs, shared among the users' connectors, waits for them; runs completed per second. */
    const burst = async (cs: { headers: Record<string, string>; id: string }[], n: number): Promise<number> => {
      const each = Math.ceil(n / cs.length);
      const results = await Promise.all(
        cs.map((c) =>
          autocannon({
            url: `${url}/v1beta/runs`,
            method: 'POST',
            headers: c.headers,
            body: JSON.stringify({ connector_id: c.id, async: true }),
            amount: each,
            connections: Math.max(1, Math.round(32 / cs.length)),
          }),
        ),
      );
      const non2xx = results.reduce((a, r) => a + r.non2xx, 0);
      const errors = results.reduce((a, r) => a + r.errors, 0);
      if (non2xx || errors) {
        const log = path.join(os.tmpdir(), `cs-bench-workers-${Date.now()}.log`);
        fs.writeFileSync(log, procs[0].out());
        throw new Error(`submissions failed: ${non2xx} non-2xx, ${errors} errors; the server's output is in ${log}`);
      }
      // Completion from the server's own timestamps (listed through the API, like a client would).
      // Runs start in submission order, so the newest are among the last to end: only the first
      // page (newest first) is polled, and the whole list is read once that page has ended. (Reading
      // every page four times a second was a load of its own on the server being measured.)
      const page = async (c: (typeof cs)[number], cursor: string | null): Promise<{ data: any[]; next_cursor: string | null }> =>
        (
          await fetch(`${url}/v1beta/runs?connector_id=${c.id}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: c.headers })
        ).json() as any;
      const ended = (r: { status: string }) => r.status !== 'pending' && r.status !== 'running';
      let first = Infinity;
      let last = 0;
      for (const c of cs) {
        for (const t0 = Date.now(); ; ) {
          if ((await page(c, null)).data.every(ended)) {
            let done = 0;
            let cursor: string | null = null;
            do {
              const p = await page(c, cursor);
              for (const r of p.data) {
                if (!ended(r)) continue;
                if (r.status !== 'success') throw new Error(`run ${r.id} ended ${r.status}`);
                done++;
                first = Math.min(first, Date.parse(r.created_at));
                last = Math.max(last, Date.parse(r.finished_at));
              }
              cursor = p.next_cursor;
            } while (cursor);
            if (done === each) break;
          }
          if (Date.now() - t0 > 300_000) throw new Error(`the runs did not all end within 300 s`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      return (each * cs.length) / ((last - first) / 1000);
    };
    // A warm-up burst first (its own connectors): it starts the worker pools (they start with the
    // first run) and lets V8 optimize the hot code in the server and in every sandbox worker (each
    // compiles its own), so the figure is a running server's rate, not its start-up. Measured here:
    // 1,000 warm-up runs gave ~60% of the rate after 4,000 or 10,000 (which agree).
    await burst(await connectors('warm-up'), WARMUP);
    const measured = await connectors('ping');
    // CPU per run of each kind of process: unlike runs/s, it hardly depends on what else the
    // machine runs, so it compares two versions of the code run minutes apart.
    const cpu = () => procs.map((x) => treeCpuSeconds(x.p.pid!));
    const db = () => (workers === 'embedded' ? 0 : namedCpuSeconds('postgres'));
    const client = () => selfCpuSeconds() + (cpuSeconds(target.proc.pid!) ?? 0);
    const before = cpu();
    const dbBefore = db();
    const clientBefore = client();
    const rps = await burst(measured, M);
    const after = cpu();
    const dbSpent = db() - dbBefore;
    const clientSpent = client() - clientBefore;
    if (before.some((c) => !c) || after.some((c) => !c)) return { rps, cpu: null };
    const spent = (i: number, k: 'own' | 'children') => after[i]![k] - before[i]![k];
    const runs = (await (
      await fetch(`${url}/v1beta/runs?connector_id=${measured[0]!.id}&limit=1`, { headers: measured[0]!.headers })
    ).json()) as { data: { id: string }[] };
    const reads = 4000;
    const apiBefore = cpu()[0]!.own;
    const read = await autocannon({
      url: `${url}/v1beta/runs/${runs.data[0]!.id}`,
      headers: measured[0]!.headers,
      amount: reads,
      connections: 32,
    });
    if (read.non2xx || read.errors) throw new Error(`reading a run failed: ${read.non2xx} non-2xx, ${read.errors} errors`);
    const apiRead = ((cpu()[0]!.own - apiBefore) * 1e6) / reads;
    const perRun = (s: number) => (s * 1e6) / (Math.ceil(M / USERS) * USERS);
    return {
      rps,
      cpu: {
        api: perRun(spent(0, 'own')),
        workers: perRun(procs.slice(1).reduce((n, _, i) => n + spent(i + 1, 'own'), 0)),
        sandbox: perRun(procs.reduce((n, _, i) => n + spent(i, 'children'), 0)),
        database: perRun(dbSpent),
        client: perRun(clientSpent),
        apiRead,
      },
    };
  } finally {
    await Promise.all(procs.map(stopProcess));
    if (workers !== 'embedded') await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

try {
  console.log(
    `async runs completed per second (${M} runs each, RUN_CONCURRENCY=${CONCURRENCY} per process, ${os.cpus().length} cores` +
      `${DELAY_MS ? `, target latency ${DELAY_MS} ms` : ''})`,
  );
  await directRps(); // warms this process's client, or the first baseline comes out low
  for (const w of ['embedded' as const, ...COUNTS]) {
    const { rps: direct, cpuUs: directCpu } = await directRps();
    const { rps, cpu } = await measure(w);
    const label = w === 'embedded' ? 'embedded (serve, SQLite)' : `postgres: api + ${w} worker${w > 1 ? 's' : ''}`;
    const us = (n: number) => n.toFixed(0).padStart(4);
    const where = !cpu
      ? ''
      : `   CPU µs/run: api ${us(cpu.api)}${w === 'embedded' ? '' : `, workers ${us(cpu.workers)}`}, sandbox ${us(cpu.sandbox)}` +
        (w === 'embedded' ? '' : `, postgres ${us(cpu.database)}`) +
        `, target+client ${us(cpu.client)}`;
    // The machine's CPU per run against per direct GET: on a machine whose cores are all busy in
    // both loads, the best ratio runs/s can reach is that quotient (what the cores allow).
    const total = cpu && cpu.api + cpu.workers + cpu.sandbox + cpu.database + cpu.client;
    const ceiling =
      total && directCpu
        ? `\n  ${''.padEnd(30)} machine CPU µs: ${us(total)} per run, ${us(directCpu)} per direct GET (cores allow ratio ≤ ${((100 * directCpu) / total).toFixed(0)}%); api per GET of a run ${us(cpu.apiRead)}`
        : '';
    // With a slow target, the best a configuration can do is its run slots / the latency.
    const slots = Number(CONCURRENCY) * (w === 'embedded' ? 1 : w);
    const capacity = DELAY_MS ? `   of slots/latency ${((100 * rps) / ((slots * 1000) / DELAY_MS)).toFixed(0)}%` : '';
    console.log(
      `  ${label.padEnd(30)} ${rps.toFixed(0).padStart(6)} runs/s   direct GETs ${direct.toFixed(0).padStart(6)}/s   ratio ${((100 * rps) / direct).toFixed(1)}%${capacity}${where}${ceiling}`,
    );
  }
} finally {
  await target.stop();
}
