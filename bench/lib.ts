// Shared benchmark plumbing: start a target in its own process, load it with autocannon.
import { spawn, type ChildProcess } from 'node:child_process';
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

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function load(url: string, headers: Record<string, string>, seconds: number, connections = 50): Promise<LoadResult> {
  const r = await autocannon({ url, headers, duration: seconds, connections, pipelining: 1 });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}
