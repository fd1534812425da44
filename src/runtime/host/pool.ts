// A pool of warm sandboxed worker processes (Node permission model: read access to the worker
// bundle and the QuickJS wasm only, no child processes, no worker threads, an empty environment, a
// heap limit; an unprivileged uid/gid when the server runs as root). Secrets travel only over the
// IPC channel. Every message from a worker is checked (worker-messages.ts) and every RPC it asks
// for must be one its run's engine needs, with valid parameters (rpc-policy.ts); anything else
// kills the worker and fails its runs. A worker is replaced when it dies.
//
// Sharing (`shareMax` > 1): HTTP-engine runs of ONE user may run together in one worker, up to
// shareMax at once. Such a run executes no connector code in Node (its definition is data), and
// it waits on the network most of its time, so a handful in one process cost far less than a
// process each: the process stays awake between them (no wake-up per run) and its JIT warms up
// from all of them. Never shared: runs of different users, script and browser runs (they get a
// worker of their own, as before). A shared run that times out or is cancelled is stopped by a
// message (its requests are aborted in the worker), not by killing the process, so the other runs
// there go on; a worker that does not confirm the stop within STOP_GRACE_MS is killed, and a worker
// that dies or breaks the protocol fails every run it held — all of one user's.
import { spawn, type ChildProcess, type Serializable } from 'node:child_process';
import type { Job } from '../worker/engines/context.js';
import type { RunErrorView } from '../shared/failure.js';
import { permissionFlag } from './node-permission.js';
import { sandboxV8Flags } from './sandbox-v8-flags.js';
import { sandboxBundle } from './bundle.js';
import { allowedRpcs, refuseRpc } from '../shared/rpc-policy.js';
import type { SandboxUser } from './sandbox-user.js';
import { parseWorkerMessage, type WorkerMessage } from '../shared/worker-messages.js';

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
  /** The user whose run it is: HTTP runs of one user may share a worker (shareMax); none, never shared. */
  tenant?: string;
}

/** A job the pool handed to a worker and has not finished yet. */
interface Active {
  runId: string;
  /** A checked message about this job. */
  onMessage(m: WorkerMessage): void;
  /** Ends the job with this outcome (its worker died or was stopped). */
  fail(o: Outcome): void;
}

interface Worker {
  proc: ChildProcess;
  ready: Promise<void>;
  /** Said it is ready (until then it takes no jobs). */
  started: boolean;
  stderr: string;
  exited: boolean;
  /** Killed (its exit may not have been seen yet): it takes no more jobs. */
  killed: boolean;
  /** Jobs running here, by the sequence number each message about them carries. */
  jobs: Map<number, Active>;
  /** Jobs the pool gave up on (shared workers): the worker's confirmation is awaited, then a kill. */
  stopping: Map<number, NodeJS.Timeout>;
  /** The user whose HTTP runs share this worker, or null when it runs an unshared job or none. */
  tenant: string | null;
  /** Jobs given this worker that have not started yet (their place is taken already). */
  reserved: number;
  /** Messages for it this event-loop turn, sent together at its end (post()). */
  outbox: unknown[];
}

const MAX_FAILED_STARTS = 5;
/** How long a shared worker has to confirm it stopped a run before it is killed. */
const STOP_GRACE_MS = 2000;

const load = (w: Worker) => w.jobs.size + w.stopping.size + w.reserved;

/** What a job needs from a worker: one of its own (null), or room among one user's HTTP runs. */
type Want = { tenant: string } | null;

export class WorkerPool {
  private workers: Worker[] = [];
  private waiting: { want: Want; resolve: (w: Worker) => void; reject: (e: Error) => void }[] = [];
  private closed = false;
  private starting: Promise<void> | null = null;
  private seq = 0;

  constructor(
    private readonly opts: {
      size: number;
      memoryMb: number;
      maxResultBytes: number;
      logMaxBytes: number;
      outputMaxFileBytes: number;
      scriptMemoryMb: number;
      user: SandboxUser | null;
      /** HTTP-engine runs of one user that may share a worker at once (1: never shared). */
      shareMax?: number;
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

  /** PID of the worker running a given run (tests kill it to prove crash handling). */
  pidOf(runId: string): number | undefined {
    return this.jobOf(runId)?.proc.pid;
  }

  /** The worker process running a given run and the run's number there (attack tests forge its messages). */
  jobOf(runId: string): { proc: ChildProcess; seq: number } | undefined {
    for (const w of this.workers) for (const [seq, a] of w.jobs) if (a.runId === runId) return { proc: w.proc, seq };
    return undefined;
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
    const w: Worker = {
      proc,
      started: false,
      stderr: '',
      exited: false,
      killed: false,
      jobs: new Map(),
      stopping: new Map(),
      tenant: null,
      reserved: 0,
      outbox: [],
      ready: Promise.resolve(),
    };
    w.ready = new Promise<void>((resolve, reject) => {
      proc.once('exit', () => reject(new Error('worker exited before it was ready')));
      proc.once('error', () => reject(new Error('worker could not be started')));
      proc.on('message', (raw: unknown) => {
        if (!w.started) {
          if ((raw as { t?: unknown } | null)?.t === 'ready') resolve();
          return;
        }
        this.route(w, raw);
      });
    });
    w.ready.then(
      () => {
        w.started = true;
        this.failedStarts = 0;
        this.startFailure = null;
        this.serveWaiting();
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
      for (const t of w.stopping.values()) clearTimeout(t);
      w.stopping.clear();
      const detail = `the sandbox process died (${signal ?? `exit code ${code}`})${stderrTail(w)}`;
      for (const a of [...w.jobs.values()]) a.fail({ kind: 'crash', detail });
      // Workers that die before they are ready (an unreadable bundle for the sandbox uid, a bad
      // flag) must not respawn forever: after a few in a row, waiting runs fail with the reason.
      if (!w.started && ++this.failedStarts >= MAX_FAILED_STARTS) {
        const why = new Error(`sandbox workers exit at start (${signal ?? `exit code ${code}`})${stderrTail(w)}`);
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

  /**
   * A write from a ready worker: one message, or a batch of those of one event-loop turn
   * (worker/main.ts sends them together, as post() does here).
   */
  private route(w: Worker, raw: unknown): void {
    const batch = (raw as { t?: unknown; messages?: unknown } | null)?.t === 'batch' ? (raw as { messages: unknown }).messages : null;
    if (!Array.isArray(batch)) return this.route1(w, raw);
    for (const m of batch) {
      if ((m as { t?: unknown } | null)?.t === 'batch') return this.refuse(w, 'it sent a batch inside a batch');
      this.route1(w, m);
      if (w.killed) return;
    }
  }

  /** One message from a ready worker: checked, then handed to the job it names. */
  private route1(w: Worker, raw: unknown): void {
    const m = parseWorkerMessage(raw);
    if ('invalid' in m) return this.refuse(w, `it sent ${m.invalid}`);
    const a = w.jobs.get(m.seq);
    if (a) return a.onMessage(m);
    const stopping = w.stopping.get(m.seq);
    if (stopping && m.t === 'done') {
      // The worker confirmed a stop (or finished just before it): its place is free again.
      clearTimeout(stopping);
      w.stopping.delete(m.seq);
      return this.release(w);
    }
    // Anything else about a job that is over here (a line flushed as it was stopped) is dropped.
  }

  /** A worker that broke the protocol is killed; every run it held fails (its exit handler). */
  private refuse(w: Worker, why: string): void {
    for (const a of [...w.jobs.values()]) a.fail({ kind: 'crash', detail: `the sandbox was stopped: ${why}` });
    this.kill(w);
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

  /**
   * A worker for a job, taken at once, or null. A shared job goes to the fullest worker of its user
   * with room (runs gather in few processes, which stay awake and warm), else to an idle one.
   */
  private pick(want: Want): Worker | null {
    const usable = (w: Worker) => w.started && !w.killed && !w.exited;
    if (want) {
      let best: Worker | null = null;
      for (const w of this.workers)
        if (usable(w) && w.tenant === want.tenant && load(w) < (this.opts.shareMax ?? 1) && (!best || load(w) > load(best))) best = w;
      if (best) return best;
    }
    const idle = this.workers.find((w) => usable(w) && load(w) === 0);
    if (!idle) return null;
    idle.tenant = want?.tenant ?? null;
    return idle;
  }

  /** Takes a place in a worker for a job at once (the next pick must see it taken). */
  private reserve(w: Worker): Worker {
    w.reserved++;
    return w;
  }

  private acquire(want: Want): Promise<Worker> {
    const w = this.pick(want);
    if (w) return Promise.resolve(this.reserve(w));
    return new Promise((resolve, reject) => this.waiting.push({ want, resolve, reject }));
  }

  /** A job left this worker (or a stop was confirmed): it may take waiting jobs again. */
  private release(w: Worker): void {
    if (w.exited || this.closed) return;
    if (load(w) === 0) w.tenant = null;
    this.serveWaiting();
  }

  /** Hands waiting jobs, in their order, the workers that can take them now. */
  private serveWaiting(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.pick(this.waiting[i]!.want);
      if (!w) {
        i++;
        continue;
      }
      const [next] = this.waiting.splice(i, 1);
      next!.resolve(this.reserve(w));
    }
  }

  /**
   * Sends a message to a worker at the end of this event-loop turn, with the others of the turn:
   * the runs a claim batch starts together, shared by one worker, cost one write and one wake-up.
   * False when the worker is gone already.
   */
  private post(w: Worker, m: unknown): boolean {
    if (w.exited || !w.proc.connected) return false;
    if (w.outbox.push(m) === 1) setImmediate(() => this.flush(w));
    return true;
  }

  private flush(w: Worker): void {
    const out = w.outbox.splice(0);
    if (!out.length || w.exited || !w.proc.connected) return;
    try {
      w.proc.send((out.length === 1 ? out[0] : { t: 'batch', messages: out }) as Serializable);
    } catch {
      this.kill(w); // its jobs fail as a crash (the exit handler)
    }
  }

  private kill(w: Worker): void {
    w.killed = true;
    if (!w.exited) w.proc.kill('SIGKILL');
  }

  async execute(job: Job, timeoutMs: number, hooks: JobHooks): Promise<Outcome> {
    if (this.closed) return { kind: 'crash', detail: 'the worker pool is shut down' };
    // Warm workers are started on the first run, not when the app starts.
    await (this.starting ??= this.start());
    if (this.closed) return { kind: 'crash', detail: 'the worker pool is shut down' };
    this.refill();
    const { tenant } = hooks;
    const want: Want = tenant && (this.opts.shareMax ?? 1) > 1 && job.definition.engine === 'http' ? { tenant } : null;
    let w: Worker;
    for (;;) {
      try {
        w = await this.acquire(want);
      } catch (e) {
        return { kind: 'crash', detail: `no sandbox could be started: ${(e as Error).message}` };
      }
      w.reserved--;
      // Killed between its pick and now (another run there broke the protocol): this run never
      // started, so it takes another worker.
      if (!w.exited && !w.killed) break;
    }
    const seq = ++this.seq;
    // What a worker wrote to stderr explains a crash of the runs it holds: kept while it has any.
    if (w.jobs.size === 0) w.stderr = '';
    const allowed = allowedRpcs(job.definition);
    /** How the worker must be left: as it is, stopped by a message (a shared run), or killed. */
    let after = 'keep' as 'keep' | 'stop' | 'kill';
    const giveUp = () => {
      after = want ? 'stop' : 'kill';
    };
    const outcome = await new Promise<Outcome>((resolve) => {
      let done = false;
      const finish = (o: Outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        hooks.signal?.removeEventListener('abort', onAbort);
        w.jobs.delete(seq);
        resolve(o);
      };
      const timer = setTimeout(() => {
        giveUp();
        finish({ kind: 'timeout' });
      }, timeoutMs);
      const onAbort = () => {
        giveUp();
        finish({ kind: 'cancelled' });
      };
      // A worker that breaks the protocol is stopped: its runs fail connector_error/crash.
      const refuse = (why: string) => this.refuse(w, why);
      const onMessage = (m: WorkerMessage) => {
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
              (value) => !done && this.post(w, { t: 'rpc-reply', id: m.id, ok: true, value }),
              (e: Error) => {
                if (e instanceof RunAbort && !done) {
                  giveUp();
                  return finish({ kind: 'error', error: e.error });
                }
                if (!done)
                  this.post(w, {
                    t: 'rpc-reply',
                    id: m.id,
                    ok: false,
                    error: { name: e?.name ?? 'Error', message: String(e?.message ?? e) },
                  });
              },
            );
          }
          case 'done':
            if (m.outcome === 'stopped') return refuse('it reported a stop it was not asked for');
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
                return finish({ kind: 'timeout' });
            }
        }
      };
      // Cancelled before it was handed over: nothing to stop in the worker.
      if (hooks.signal?.aborted) return finish({ kind: 'cancelled' });
      w.jobs.set(seq, { runId: job.runId, onMessage, fail: finish });
      hooks.signal?.addEventListener('abort', onAbort, { once: true });
      const sent = this.post(w, {
        t: 'run',
        seq,
        job,
        maxResultBytes: this.opts.maxResultBytes,
        limits: {
          timeoutMs,
          scriptMemoryMb: this.opts.scriptMemoryMb,
          logMaxBytes: this.opts.logMaxBytes,
          outputMaxFileBytes: this.opts.outputMaxFileBytes,
        },
      });
      if (!sent) finish({ kind: 'crash', detail: 'could not reach the sandbox: its process is gone' });
    });
    // A worker is reused after script runs too: the script lived in a QuickJS instance of its own,
    // dropped with the run, and never ran as Node code in this process. One that crashed is gone.
    if (outcome.kind === 'crash' || w.exited) this.kill(w);
    else if (after === 'kill')
      this.kill(w); // its exit handler spawns a replacement
    else if (after === 'stop') this.stop(w, seq);
    else this.release(w);
    return outcome;
  }

  /** Asks a shared worker to stop a run; its place stays taken until it confirms (or it is killed). */
  private stop(w: Worker, seq: number): void {
    w.stopping.set(
      seq,
      setTimeout(() => this.kill(w), STOP_GRACE_MS),
    );
    if (!this.post(w, { t: 'stop', seq })) this.kill(w);
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

/** The last lines a worker wrote to stderr, for a crash's detail. */
function stderrTail(w: Worker): string {
  return w.stderr ? `: ${w.stderr.trim().split('\n').slice(-3).join(' | ')}` : '';
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
