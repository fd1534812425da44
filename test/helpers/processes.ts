// The service as real child processes (`serve`, `serve --role api`, `worker`), for tests of
// several processes on one database: start, read their JSON log lines, wait, stop.
import crypto from 'node:crypto';
import { type ChildProcess, execFile as execFileCb, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { PG_URL } from './harness.js';

const execFile = promisify(execFileCb);

export const TSX = ['--import', 'tsx', 'src/start/cli.ts'];

export interface Proc {
  p: ChildProcess;
  out: () => string;
  lines: () => any[];
}

export function startProcess(args: string[], env: Record<string, string>): Proc {
  // Runs in flight when a test stops a process end at once (no shutdown grace), unless `env` says.
  const p = spawn(
    process.execPath,
    [...(process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []), ...TSX, ...args],
    {
      env: { ...process.env, RUN_SHUTDOWN_GRACE_S: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (out += d));
  return {
    p,
    out: () => out,
    // Complete lines only: a process's log writes gather many lines, and a read of the pipe may
    // end inside one.
    lines: () =>
      out
        .slice(0, out.lastIndexOf('\n') + 1)
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
  };
}

export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SIGTERM, then SIGKILL after 10 s. */
export async function stopProcess(x: Proc | undefined): Promise<void> {
  if (!x || x.p.exitCode !== null || x.p.signalCode !== null) return;
  const exited = new Promise((r) => x.p.once('exit', r));
  x.p.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (x.p.exitCode === null && x.p.signalCode === null) x.p.kill('SIGKILL');
}

export async function killProcess(x: Proc): Promise<void> {
  const exited = new Promise((r) => x.p.once('exit', r));
  x.p.kill('SIGKILL');
  await exited;
}

/** An API process's URL and, for the first process on a new database, the bootstrap API key. */
export async function listening(x: Proc): Promise<{ url: string; role: string; key: string | null }> {
  const l = await until('the API process', () => x.lines().find((m) => m.msg === 'connector service listening'), 60_000);
  return { url: l.url, role: l.role, key: /API key \(shown once, store it now\): (\S+)/.exec(x.out())?.[1] ?? null };
}

/** A fresh PostgreSQL database for one test file; drop() removes it. */
export async function scratchDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  return { url: PG_URL.replace(/\/[^/]+$/, `/${name}`), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export interface Answer {
  status: number;
  json: any;
  text: string;
}

/** JSON API calls to a process over HTTP with a bearer key (`base` + path). */
export async function callApi(base: string, key: string, method: string, p: string, body?: unknown): Promise<Answer> {
  const r = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined, text };
}

/** A new user and its API key, through the CLI on the database `env` names. */
export async function newUser(env: Record<string, string>, name: string): Promise<string> {
  const cli = async (...args: string[]) =>
    (await execFile(process.execPath, [...TSX, ...args], { env: { ...process.env, ...env } })).stdout;
  const user = JSON.parse(await cli('users', 'create', name));
  return /API key \(shown once, store it now\): (\S+)/.exec(await cli('keys', 'create', '--user', user.id))![1];
}
