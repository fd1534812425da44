// Entry point of a sandboxed worker process (bundled by bundle.ts, started by pool.ts with the
// Node permission model: it can read only its own bundle and the QuickJS wasm, start no processes,
// and gets an empty environment; under an unprivileged uid when the server runs as root). It
// receives jobs over IPC (secrets only ever travel this way; several at once only for HTTP runs of
// one user, see pool.ts), runs the engine (script connectors inside QuickJS, never as Node code),
// scrubs its own log lines, and answers with the serialized result or a RunError.
import type { ConnectorDefinition } from '../../formats/definition/types.js';
import { BrowserEngine } from './engines/browser-engine.js';
import { RunContext, type EngineHost, type Job } from './engines/context.js';
import { RunFailure, toRunError } from '../shared/failure.js';
import { HttpEngine } from './engines/http-engine.js';
import { JsonText, runScript, ScriptTimeout, type ScriptLimits } from './engines/script-engine.js';
import { Scrubber } from '../shared/scrub.js';
import { LogCap, scrubMarginFor, secretStrings } from '../shared/log-cap.js';
import { loadQuickJS } from './quickjs.js';
import { MAX_PROGRESS_LABEL, MAX_PROGRESS_STEP } from '../shared/progress.js';

type RunLimits = { timeoutMs: number; scriptMemoryMb: number; logMaxBytes: number; outputMaxFileBytes: number };
type FromParent =
  | { t: 'run'; seq: number; job: Job; maxResultBytes: number; limits: RunLimits }
  | { t: 'stop'; seq: number }
  | { t: 'rpc-reply'; id: number; ok: boolean; value?: unknown; error?: { name: string; message: string } };

// What goes to the parent in one event-loop turn goes in one write (the ends of runs whose
// responses arrived together, say): one wake-up of the parent instead of one per message.
let outbox: unknown[] = [];
const send = (m: unknown) => {
  if (outbox.push(m) === 1) setImmediate(flushOutbox);
};
function flushOutbox(): void {
  const out = outbox;
  outbox = [];
  if (process.connected) process.send!(out.length === 1 ? out[0] : { t: 'batch', messages: out });
}
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
let rpcSeq = 0;
/** Jobs running here, by the parent's sequence number (several only for HTTP runs of one user). */
const jobs = new Map<number, JobRun>();

// Log lines go out in batches (with the result, or every 100 ms for long runs): one IPC
// message per run instead of one per line. The run's LogCap scrubs and bounds them as they are
// logged: this process never buffers or sends more than RUN_LOG_MAX_BYTES per run, only a count
// of the lines it dropped.
//
// Progress goes out at most every 100 ms, the latest only: a connector looping over thousands of
// requests sends a few messages a second, not one per request. The first goes out 100 ms into the
// run: a run that ends sooner sends none (the run view shows progress from a 1 s tick anyway),
// which spares the typical one-request run a message (and the parent its checks).
const PROGRESS_EVERY_MS = 100;

/**
 * One job's state in this process. Every message about it carries its `seq`; once it is over
 * (done, or stopped by the parent or its deadline) nothing more of it is sent, whatever its engine
 * still does.
 */
class JobRun {
  readonly scrubber = new Scrubber();
  readonly logCap: LogCap;
  readonly stop = new AbortController();
  over = false;
  private flushTimer: NodeJS.Timeout | null = null;
  private droppedSent = 0;
  private progressLatest: { step: number; of: number | null; label: string } | null = null;
  private progressTimer: NodeJS.Timeout | null = null;
  private progressSentAt = Date.now(); // the first message waits PROGRESS_EVERY_MS too
  private deadlineTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly seq: number,
    readonly job: Job,
    readonly limits: RunLimits,
  ) {
    for (const s of Object.values(job.secrets)) this.scrubber.addSecret(s);
    this.logCap = new LogCap(limits.logMaxBytes, (s) => this.scrubber.scrub(s));
    this.logCap.scrubMargin = scrubMarginFor(secretStrings(job.secrets));
  }

  send(m: Record<string, unknown>): void {
    if (!this.over) send({ ...m, seq: this.seq });
  }

  takeLogs(): { at: string; line: string }[] {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    return this.logCap.take();
  }

  private flushLogs(): void {
    const lines = this.takeLogs();
    // The dropped count goes out too, so a run stopped on timeout still says how much it lost.
    if (lines.length || this.logCap.dropped !== this.droppedSent)
      this.send({ t: 'logs', lines, dropped: (this.droppedSent = this.logCap.dropped) });
  }

  private sendProgress(): void {
    this.progressTimer = null;
    if (!this.progressLatest) return;
    this.send({ t: 'progress', ...this.progressLatest });
    this.progressLatest = null;
    this.progressSentAt = Date.now();
  }

  /** The last message of this job: after it, nothing of it reaches the parent. */
  end(m: Record<string, unknown>): void {
    this.send(m);
    this.over = true;
    this.stop.abort();
    for (const t of [this.flushTimer, this.progressTimer, this.deadlineTimer]) if (t) clearTimeout(t);
    jobs.delete(this.seq);
  }

  /**
   * An HTTP run ends itself at its deadline (its requests are aborted): the parent's timer, a
   * little later, then finds it done and this process (which may run other runs) lives on. A
   * script is interrupted by QuickJS at the same deadline.
   */
  armDeadline(ms: number): void {
    this.deadlineTimer = setTimeout(
      () => this.end({ t: 'done', outcome: 'timeout', logs: this.takeLogs(), logsDropped: this.logCap.dropped }),
      ms,
    );
  }

  host(): EngineHost {
    return {
      log: (line) => {
        this.logCap.add(new Date().toISOString(), line);
        this.flushTimer ??= setTimeout(() => this.flushLogs(), 100);
      },
      // TOTP codes come from the parent, which scrubs them itself; the worker's own scrubber learns
      // them too, for the lines it writes.
      noteSecret: (v) => this.scrubber.add(v),
      // Scrubbed before it is cut to MAX_PROGRESS_LABEL, so no secret's prefix survives a cut.
      progress: (step, of, label) => {
        const bounded = (n: number) => Math.min(MAX_PROGRESS_STEP, Math.max(0, Math.floor(n)));
        const s = bounded(step);
        const o = of === null ? null : Math.max(s, bounded(of));
        this.progressLatest = { step: s, of: o, label: this.scrubber.scrub(label).slice(0, MAX_PROGRESS_LABEL) };
        const wait = this.progressSentAt + PROGRESS_EVERY_MS - Date.now();
        if (wait <= 0) this.sendProgress();
        else this.progressTimer ??= setTimeout(() => this.sendProgress(), wait);
      },
      rpc: (method, params) =>
        new Promise((resolve, reject) => {
          if (this.over) return reject(new Error('the run was stopped'));
          const id = ++rpcSeq;
          pending.set(id, { resolve, reject });
          this.send({ t: 'rpc', id, method, params: withoutOversizeData(method, params, this.limits.outputMaxFileBytes) });
        }),
    };
  }
}

// An output file over RUN_OUTPUT_MAX_FILE_BYTES is not shipped to the server (it would cross the
// channel whole, in memory): only its size goes, and the server refuses it and ends the run.
function withoutOversizeData(method: string, params: Record<string, unknown>, maxFileBytes: number): Record<string, unknown> {
  const data = params.data;
  const size = data instanceof Uint8Array ? data.byteLength : typeof data === 'string' ? Buffer.byteLength(data) : 0;
  return method === 'files.save' && size > maxFileBytes ? { ...params, data: undefined, size } : params;
}

async function execute(def: ConnectorDefinition, ctx: RunContext, limits: ScriptLimits): Promise<unknown> {
  switch (def.engine) {
    case 'http':
      return new HttpEngine(def, ctx).run();
    case 'browser':
      return new BrowserEngine(def, ctx).run();
    case 'script':
      return runScript(def, ctx, limits);
  }
}

async function run(seq: number, job: Job, maxResultBytes: number, limits: RunLimits): Promise<void> {
  const r = new JobRun(seq, job, limits);
  jobs.set(seq, r);
  const ctx = new RunContext(job, r.host(), r.stop.signal);
  // The run ends a little before the parent's own timer would stop this process, so a busy
  // script or a hanging request ends as timed_out without a respawn.
  const budget = Math.max(0, limits.timeoutMs - 100);
  const scriptLimits = { deadline: Date.now() + budget, memoryMb: limits.scriptMemoryMb };
  if (job.definition.engine === 'http') r.armDeadline(budget);
  try {
    const result = await execute(job.definition, ctx, scriptLimits);
    if (r.over) return;
    const json = result instanceof JsonText ? result.text : JSON.stringify(result === undefined ? null : result);
    const size = Buffer.byteLength(json, 'utf8');
    const logs = r.takeLogs();
    if (size > maxResultBytes) r.end({ t: 'done', outcome: 'too_large', size, logs, logsDropped: r.logCap.dropped });
    else r.end({ t: 'done', outcome: 'ok', json, logs, logsDropped: r.logCap.dropped }); // the parent measures the size itself
  } catch (e) {
    if (r.over) return;
    if (e instanceof ScriptTimeout) return r.end({ t: 'done', outcome: 'timeout', logs: r.takeLogs(), logsDropped: r.logCap.dropped });
    const err = toRunError(e);
    if (!(e instanceof RunFailure)) ctx.log(`exception ${err.exception}: ${err.message}`);
    r.end({ t: 'done', outcome: 'error', error: r.scrubber.scrubValue(err), logs: r.takeLogs(), logsDropped: r.logCap.dropped });
  }
}

function receive(m: FromParent): void {
  if (m.t === 'run') void run(m.seq, m.job, m.maxResultBytes, m.limits);
  // The parent gave up on this run (its timeout, a cancel): its requests end, and the ack frees
  // its place here.
  else if (m.t === 'stop') jobs.get(m.seq)?.end({ t: 'done', outcome: 'stopped' });
  else if (m.t === 'rpc-reply') {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(Object.assign(new Error(m.error?.message ?? 'rpc failed'), { name: m.error?.name ?? 'Error' }));
  }
}
process.on('message', (m: FromParent | { t: 'batch'; messages: FromParent[] }) => {
  if (m.t === 'batch') for (const x of m.messages) receive(x);
  else receive(m);
});
// The parent went away: nothing left to report to.
process.on('disconnect', () => process.exit(0));
process.on('unhandledRejection', () => {});
// Compile the QuickJS wasm before saying ready: runs only instantiate it.
loadQuickJS();
process.send!({ t: 'ready' });
