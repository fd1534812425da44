// A pool of warm sandboxed worker processes (Node permission model: read access to the worker
// bundle only, no child processes, no worker threads, an empty environment, a heap limit).
// One job per worker at a time; secrets travel only over the IPC channel. A worker is killed
// on timeout, replaced when it dies, and recycled after a script run (user code may leave state).
import { spawn, type ChildProcess } from 'node:child_process';
import type { Job } from './engines/context.js';
import type { RunErrorView } from './engines/failure.js';
import { sandboxBundle } from './bundle.js';

export type Outcome =
  | { kind: 'ok'; json: string; size: number }
  | { kind: 'too_large'; size: number }
  | { kind: 'error'; error: RunErrorView }
  | { kind: 'timeout' }
  | { kind: 'crash'; detail: string };

/**
 * Thrown by a host hook (an RPC the server refuses on policy, e.g. the output quota) to end the
 * run at once with this error: the worker is stopped, whatever the connector would do next.
 */
export class RunAbort extends Error {
  constructor(readonly error: RunErrorView) {
    super(error.message);
  }
}

export interface JobHooks {
  /** One log line as the worker sent it (unchecked: the receiver bounds it). */
  log(at: unknown, line: unknown): void;
  /** The worker's own count of log lines it dropped over the cap. */
  logsDropped(n: unknown): void;
  secret(value: string): void;
  rpc(method: string, params: Record<string, any>): Promise<unknown>;
}

interface Worker {
  proc: ChildProcess;
  ready: Promise<void>;
  busy: boolean;
  stderr: string;
  exited: boolean;
  runId: string | null;
}

export class WorkerPool {
  private workers: Worker[] = [];
  private waiting: { resolve: (w: Worker) => void; reject: (e: Error) => void }[] = [];
  private closed = false;
  private starting: Promise<void> | null = null;

  constructor(private readonly opts: { size: number; memoryMb: number; maxResultBytes: number; logMaxBytes: number; outputMaxFileBytes: number }) {}

  async start(): Promise<void> {
    await prepareSandbox();
    if (this.closed) return;
    for (let i = 0; i < this.opts.size; i++) this.workers.push(this.spawn());
    await Promise.all(this.workers.map((w) => w.ready.catch(() => {})));
  }

  /** Adds a worker; it takes jobs only once it said it is ready. */
  private add(): void {
    const w = this.spawn();
    this.workers.push(w);
  }

  /** PIDs of workers running a given run (tests kill them to prove crash handling). */
  pidOf(runId: string): number | undefined {
    return this.workers.find((w) => w.runId === runId)?.proc.pid;
  }

  private spawn(): Worker {
    const bundle = sandboxBundleSync!;
    const proc = spawn(
      process.execPath,
      ['--experimental-permission', `--allow-fs-read=${bundle}`, '--disable-warning=ExperimentalWarning', `--max-old-space-size=${this.opts.memoryMb}`, bundle],
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {}, serialization: 'advanced' },
    );
    const w: Worker = { proc, busy: true, stderr: '', exited: false, runId: null, ready: Promise.resolve() };
    w.ready = new Promise<void>((resolve, reject) => {
      const onMsg = (m: { t: string }) => {
        if (m.t === 'ready') {
          proc.off('message', onMsg);
          resolve();
        }
      };
      proc.on('message', onMsg);
      proc.once('exit', () => reject(new Error('worker exited before it was ready')));
    });
    w.ready.then(
      () => this.release(w),
      () => {},
    );
    proc.stderr!.on('data', (c: Buffer) => {
      w.stderr = (w.stderr + c.toString('utf8')).slice(-4000);
    });
    proc.once('exit', () => {
      w.exited = true;
      this.workers = this.workers.filter((x) => x !== w);
      if (!this.closed && this.workers.length < this.opts.size) this.add();
    });
    return w;
  }

  /** An idle, ready worker (busy is true from spawn until ready, and while a job runs). */
  private acquire(): Promise<Worker> {
    const idle = this.workers.find((w) => !w.busy && !w.exited);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(w: Worker): void {
    if (w.exited || this.closed) return;
    const next = this.waiting.shift();
    if (next) {
      w.busy = true;
      next.resolve(w);
    } else w.busy = false;
  }

  private kill(w: Worker): void {
    if (!w.exited) w.proc.kill('SIGKILL');
  }

  async execute(job: Job, timeoutMs: number, hooks: JobHooks): Promise<Outcome> {
    if (this.closed) return { kind: 'crash', detail: 'the worker pool is shut down' };
    // Warm workers are started on the first run, not when the app starts.
    await (this.starting ??= this.start());
    if (this.closed) return { kind: 'crash', detail: 'the worker pool is shut down' };
    let w: Worker;
    try {
      w = await this.acquire();
    } catch (e) {
      return { kind: 'crash', detail: `no sandbox could be started: ${(e as Error).message}` };
    }
    w.runId = job.runId;
    w.stderr = '';
    const recycle = job.definition.engine === 'script';
    let aborted = false;
    const outcome = await new Promise<Outcome>((resolve) => {
      let done = false;
      const finish = (o: Outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        w.proc.off('message', onMsg);
        w.proc.off('exit', onExit);
        resolve(o);
      };
      const timer = setTimeout(() => {
        finish({ kind: 'timeout' });
        this.kill(w);
      }, timeoutMs);
      const onExit = (code: number | null, signal: string | null) =>
        finish({ kind: 'crash', detail: `the sandbox process died (${signal ?? `exit code ${code}`})${w.stderr ? `: ${w.stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}` });
      const onMsg = (m: any) => {
        switch (m.t) {
          case 'logs':
            relayLogs(m, hooks);
            return;
          case 'secret':
            return hooks.secret(m.value);
          case 'rpc':
            return void hooks.rpc(m.method, m.params).then(
              (value) => !done && w.proc.connected && w.proc.send({ t: 'rpc-reply', id: m.id, ok: true, value }),
              (e: Error) => {
                if (e instanceof RunAbort && !done) {
                  aborted = true;
                  return finish({ kind: 'error', error: e.error });
                }
                if (!done && w.proc.connected) w.proc.send({ t: 'rpc-reply', id: m.id, ok: false, error: { name: e?.name ?? 'Error', message: String(e?.message ?? e) } });
              },
            );
          case 'done':
            relayLogs({ lines: m.logs, dropped: m.logsDropped }, hooks);
            return finish(m.outcome === 'ok' ? { kind: 'ok', json: m.json, size: m.size } : m.outcome === 'too_large' ? { kind: 'too_large', size: m.size } : { kind: 'error', error: m.error });
        }
      };
      w.proc.on('message', onMsg);
      w.proc.once('exit', onExit);
      try {
        w.proc.send({ t: 'run', job, maxResultBytes: this.opts.maxResultBytes, logMaxBytes: this.opts.logMaxBytes, outputMaxFileBytes: this.opts.outputMaxFileBytes });
      } catch (e) {
        finish({ kind: 'crash', detail: `could not reach the sandbox: ${(e as Error).message}` });
      }
    });
    w.runId = null;
    if (outcome.kind === 'timeout' || outcome.kind === 'crash' || aborted || w.exited) {
      this.kill(w); // its exit handler spawns a replacement
    } else if (recycle) {
      this.kill(w);
    } else this.release(w);
    return outcome;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.starting?.catch(() => {});
    for (const wt of this.waiting.splice(0)) wt.reject(new Error('the worker pool is shut down'));
    const all = [...this.workers];
    await Promise.all(
      all.map(
        (w) =>
          new Promise<void>((r) => {
            if (w.exited) return r();
            w.proc.once('exit', () => r());
            this.kill(w);
          }),
      ),
    );
  }
}

/** A worker's log lines, whatever shape it sent them in, to the run's (bounded) log. */
function relayLogs(m: { lines?: unknown; dropped?: unknown }, hooks: JobHooks): void {
  if (Array.isArray(m.lines)) for (const l of m.lines) hooks.log(l?.at, l?.line);
  hooks.logsDropped(m.dropped);
}

let sandboxBundleSync: string | null = null;
/** Resolves the bundle path once before the pool spawns synchronously. */
export async function prepareSandbox(): Promise<void> {
  sandboxBundleSync = (await sandboxBundle()).file;
}
