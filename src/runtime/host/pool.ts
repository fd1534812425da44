// A pool of warm sandboxed worker processes (Node permission model: read access to the worker
// bundle and the QuickJS wasm only, no child processes, no worker threads, an empty environment, a
// heap limit; an unprivileged uid/gid when the server runs as root). One job per worker at a time;
// secrets travel only over the IPC channel. Every message from a worker is checked
// (worker-messages.ts) and every RPC it asks for must be one its run's engine needs, with valid
// parameters (rpc-policy.ts); anything else kills the worker and fails the run. A worker is killed
// on timeout and replaced when it dies.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Job } from '../worker/engines/context.js';
import type { RunErrorView } from '../shared/failure.js';
import { permissionFlag } from './node-permission.js';
import { sandboxV8Flags } from './sandbox-v8-flags.js';
import { sandboxBundle } from './bundle.js';
import { allowedRpcs, refuseRpc } from '../shared/rpc-policy.js';
import type { SandboxUser } from './sandbox-user.js';
import { parseWorkerMessage } from '../shared/worker-messages.js';

const SANDBOX_V8_FLAGS = sandboxV8Flags();

export interface RunProgress {
  step: number;
  of: number | null;
  label: string;
}

export type Outcome =
  | { kind: 'ok'; json: string; size: number }
  | { kind: 'too_large'; size: number }
  | { kind: 'error'; error: RunErrorView }
  | { kind: 'timeout' }
  | { kind: 'cancelled' }
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
  rpc(method: string, params: Record<string, any>): Promise<unknown>;
  /** The run's latest "step n of m" (validated shape; the label is not scrubbed yet). */
  progress?(p: RunProgress): void;
  /** Aborting it stops the worker at once: the outcome is `cancelled`. */
  signal?: AbortSignal;
}

interface Worker {
  proc: ChildProcess;
  ready: Promise<void>;
  busy: boolean;
  stderr: string;
  exited: boolean;
  runId: string | null;
}

const MAX_FAILED_STARTS = 5;

export class WorkerPool {
  private workers: Worker[] = [];
  private waiting: { resolve: (w: Worker) => void; reject: (e: Error) => void }[] = [];
  private closed = false;
  private starting: Promise<void> | null = null;

  constructor(
    private readonly opts: {
      size: number;
      memoryMb: number;
      maxResultBytes: number;
      logMaxBytes: number;
      outputMaxFileBytes: number;
      scriptMemoryMb: number;
      user: SandboxUser | null;
      /** The worker program; default the built sandbox bundle (the attack tests start a forged one). */
      entry?: string;
    },
  ) {}

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
    const b = sandboxBundleSync!;
    const entry = this.opts.entry ?? b.file;
    const proc = spawn(
      process.execPath,
      [
        permissionFlag(),
        `--allow-fs-read=${entry}`,
        `--allow-fs-read=${b.wasm}`,
        '--disable-warning=ExperimentalWarning',
        `--max-old-space-size=${this.opts.memoryMb}`,
        // A larger native stack so QuickJS's own stack limit (sandbox/quickjs.ts) trips first.
        '--stack-size=3900',
        ...SANDBOX_V8_FLAGS,
        entry,
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {}, serialization: 'advanced', cwd: b.dir, ...(this.opts.user ?? {}) },
    );
    const w: Worker = { proc, busy: true, stderr: '', exited: false, runId: null, ready: Promise.resolve() };
    w.ready = new Promise<void>((resolve, reject) => {
      const onMsg = (m: unknown) => {
        if ((m as { t?: unknown } | null)?.t === 'ready') {
          proc.off('message', onMsg);
          resolve();
        }
      };
      proc.on('message', onMsg);
      proc.once('exit', () => reject(new Error('worker exited before it was ready')));
      proc.once('error', () => reject(new Error('worker could not be started')));
    });
    let ready = false;
    w.ready.then(
      () => {
        ready = true;
        this.failedStarts = 0;
        this.startFailure = null;
        this.release(w);
      },
      () => {},
    );
    proc.stderr!.on('data', (c: Buffer) => {
      w.stderr = (w.stderr + c.toString('utf8')).slice(-4000);
    });
    const ended = (code: number | string | null, signal: string | null) => {
      if (w.exited) return;
      w.exited = true;
      this.workers = this.workers.filter((x) => x !== w);
      // Workers that die before they are ready (an unreadable bundle for the sandbox uid, a bad
      // flag) must not respawn forever: after a few in a row, waiting runs fail with the reason.
      if (!ready && ++this.failedStarts >= MAX_FAILED_STARTS) {
        const why = new Error(
          `sandbox workers exit at start (${signal ?? `exit code ${code}`})${w.stderr ? `: ${w.stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`,
        );
        this.startFailure = why.message;
        for (const wt of this.waiting.splice(0)) wt.reject(why);
        return;
      }
      if (!this.closed && this.workers.length < this.opts.size) this.add();
    };
    proc.once('exit', ended);
    // A worker that can't even be started (e.g. EACCES: the sandbox uid can't execute node) emits
    // 'error' and never 'exit': the same failed start, or runs would wait for it forever.
    proc.once('error', (e: NodeJS.ErrnoException) => {
      if (proc.pid === undefined) ended(e.code ?? 'spawn error', null);
    });
    return w;
  }

  /** Workers that died before ready, in a row (see MAX_FAILED_STARTS). */
  private failedStarts = 0;
  /** Why the last start streak failed, until a worker starts again. */
  private startFailure: string | null = null;

  /** For readiness: null while workers start, else why they can't (a run would fail with it). */
  startProblem(): string | null {
    return this.failedStarts >= MAX_FAILED_STARTS ? this.startFailure : null;
  }

  /** After a failed start streak, the next run tries again from a full pool. */
  private refill(): void {
    if (this.failedStarts < MAX_FAILED_STARTS) return;
    this.failedStarts = 0;
    while (this.workers.length < this.opts.size) this.add();
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
    this.refill();
    let w: Worker;
    try {
      w = await this.acquire();
    } catch (e) {
      return { kind: 'crash', detail: `no sandbox could be started: ${(e as Error).message}` };
    }
    w.runId = job.runId;
    w.stderr = '';
    const allowed = allowedRpcs(job.definition);
    let stoppedItself = false;
    let aborted = false;
    const outcome = await new Promise<Outcome>((resolve) => {
      let done = false;
      const finish = (o: Outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        hooks.signal?.removeEventListener('abort', onAbort);
        w.proc.off('message', onMsg);
        w.proc.off('exit', onExit);
        resolve(o);
      };
      const timer = setTimeout(() => {
        finish({ kind: 'timeout' });
        this.kill(w);
      }, timeoutMs);
      const onAbort = () => finish({ kind: 'cancelled' });
      const onExit = (code: number | null, signal: string | null) =>
        finish({
          kind: 'crash',
          detail: `the sandbox process died (${signal ?? `exit code ${code}`})${w.stderr ? `: ${w.stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`,
        });
      // A worker that breaks the protocol is stopped: its run fails connector_error/crash.
      const refuse = (why: string) => {
        finish({ kind: 'crash', detail: `the sandbox was stopped: ${why}` });
        this.kill(w);
      };
      const onMsg = (raw: unknown) => {
        if (done) return;
        const m = parseWorkerMessage(raw);
        if ('invalid' in m) return refuse(`it sent ${m.invalid}`);
        switch (m.t) {
          case 'logs':
            relayLogs(m, hooks);
            return;
          case 'progress':
            hooks.progress?.({ step: m.step, of: m.of, label: m.label });
            return;
          case 'rpc': {
            const why = refuseRpc(job.definition, allowed, m.method, m.params);
            if (why) return refuse(why);
            return void hooks.rpc(m.method, m.params as Record<string, any>).then(
              (value) => !done && w.proc.connected && w.proc.send({ t: 'rpc-reply', id: m.id, ok: true, value }),
              (e: Error) => {
                if (e instanceof RunAbort && !done) {
                  aborted = true;
                  return finish({ kind: 'error', error: e.error });
                }
                if (!done && w.proc.connected)
                  w.proc.send({
                    t: 'rpc-reply',
                    id: m.id,
                    ok: false,
                    error: { name: e?.name ?? 'Error', message: String(e?.message ?? e) },
                  });
              },
            );
          }
          case 'done':
            relayLogs({ lines: m.logs, dropped: m.logsDropped }, hooks);
            switch (m.outcome) {
              case 'ok': {
                // Measured here from the bytes received, never taken from the worker (finding 6).
                const size = Buffer.byteLength(m.json, 'utf8');
                return finish(size > this.opts.maxResultBytes ? { kind: 'too_large', size } : { kind: 'ok', json: m.json, size });
              }
              case 'too_large':
                // The worker keeps an oversized result to itself; its claim can only fail its own run.
                if (m.size <= this.opts.maxResultBytes) return refuse(`it reported a result of ${m.size} bytes as too large`);
                return finish({ kind: 'too_large', size: m.size });
              case 'error':
                return finish({ kind: 'error', error: m.error });
              case 'timeout':
                stoppedItself = true;
                return finish({ kind: 'timeout' });
            }
        }
      };
      w.proc.on('message', onMsg);
      w.proc.once('exit', onExit);
      if (hooks.signal?.aborted) return onAbort();
      hooks.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        w.proc.send({
          t: 'run',
          job,
          maxResultBytes: this.opts.maxResultBytes,
          limits: {
            timeoutMs,
            scriptMemoryMb: this.opts.scriptMemoryMb,
            logMaxBytes: this.opts.logMaxBytes,
            outputMaxFileBytes: this.opts.outputMaxFileBytes,
          },
        });
      } catch (e) {
        finish({ kind: 'crash', detail: `could not reach the sandbox: ${(e as Error).message}` });
      }
    });
    w.runId = null;
    // A worker is reused after script runs too: the script lived in a QuickJS instance of its own,
    // dropped with the run, and never ran as Node code in this process.
    if ((outcome.kind === 'timeout' && !stoppedItself) || outcome.kind === 'cancelled' || outcome.kind === 'crash' || aborted || w.exited) {
      this.kill(w); // its exit handler spawns a replacement
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

let sandboxBundleSync: Awaited<ReturnType<typeof sandboxBundle>> | null = null;
/** Resolves the bundle paths once before the pool spawns synchronously. */
export async function prepareSandbox(): Promise<void> {
  sandboxBundleSync = await sandboxBundle();
}
