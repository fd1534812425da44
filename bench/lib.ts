// Shared benchmark plumbing: start a target in its own process, load it with autocannon.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

export interface Target<T> {
  info: T;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Runs `node --import tsx <file>` and waits for the JSON line it prints when ready. */
export async function startTarget<T>(file: string, env: Record<string, string> = {}): Promise<Target<T>> {
  const proc = spawn(process.execPath, ['--import', 'tsx', file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = createInterface({ input: proc.stdout! });
  const info = await new Promise<T>((resolve, reject) => {
    rl.once('line', (l) => resolve(JSON.parse(l)));
    proc.once('exit', (c) => reject(new Error(`${file} exited with ${c}`)));
  });
  return {
    info,
    proc,
    stop: () =>
      new Promise((r) => {
        if (proc.exitCode !== null) return r();
        proc.once('exit', () => r());
        proc.kill('SIGTERM');
      }),
  };
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere.
 * Per request, it says what a target costs regardless of how busy the machine is.
 */
export function cpuSeconds(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const after = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(after[11]) + Number(after[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** PIDs of a process's direct children (Linux; empty elsewhere): a server's sandbox workers. */
export function childPids(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/))
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** CPU seconds of a process and, apart, of its children still alive (null off Linux). */
export function treeCpuSeconds(pid: number): { own: number; children: number } | null {
  const own = cpuSeconds(pid);
  if (own === null) return null;
  return { own, children: childPids(pid).reduce((n, c) => n + (cpuSeconds(c) ?? 0), 0) };
}

/** CPU seconds of every process with this command name (Linux; 0 elsewhere), e.g. `postgres`. */
export function namedCpuSeconds(comm: string): number {
  let total = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim() === comm) total += cpuSeconds(Number(d)) ?? 0;
    } catch {
      /* gone */
    }
  }
  return total;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function load(url: string, headers: Record<string, string>, seconds: number, connections = 50): Promise<LoadResult> {
  const r = await autocannon({ url, headers, duration: seconds, connections, pipelining: 1 });
  return {
    requests: r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
  };
}
