// Entry point of a sandboxed worker process (bundled by bundle.ts, started by pool.ts with the
// Node permission model: it can read only its own bundle and the QuickJS wasm, start no processes,
// and gets an empty environment; under an unprivileged uid when the server runs as root). It
// receives one job at a time over IPC (secrets only ever travel this way), runs the engine (script
// connectors inside QuickJS, never as Node code), scrubs its own log lines, and answers with the
// serialized result or a RunError.
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
  | { t: 'run'; job: Job; maxResultBytes: number; limits: RunLimits }
  | { t: 'rpc-reply'; id: number; ok: boolean; value?: unknown; error?: { name: string; message: string } };

const send = (m: unknown) => process.send!(m);
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
let rpcSeq = 0;

// Log lines go out in batches (with the result, or every 100 ms for long runs): one IPC
// message per run instead of one per line. The run's LogCap scrubs and bounds them as they are
// logged: this process never buffers or sends more than RUN_LOG_MAX_BYTES per run, only a count
// of the lines it dropped.
let logCap = new LogCap(1_000_000);
let flushTimer: NodeJS.Timeout | null = null;
function takeLogs(): { at: string; line: string }[] {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = null;
  return logCap.take();
}
let droppedSent = 0;
function flushLogs(): void {
  const lines = takeLogs();
  // The dropped count goes out too, so a run stopped on timeout still says how much it lost.
  if (lines.length || logCap.dropped !== droppedSent) send({ t: 'logs', lines, dropped: (droppedSent = logCap.dropped) });
}

// Progress goes out at most every 100 ms, the latest only: a connector looping over thousands of
// requests sends a few messages a second, not one per request. The first goes out 100 ms into the
// run: a run that ends sooner sends none (the run view shows progress from a 1 s tick anyway),
// which spares the typical one-request run a message (and the parent its checks).
const PROGRESS_EVERY_MS = 100;
let progressLatest: { t: 'progress'; step: number; of: number | null; label: string } | null = null;
let progressTimer: NodeJS.Timeout | null = null;
let progressSentAt = 0;
function sendProgress(): void {
  progressTimer = null;
  if (!progressLatest) return;
  send(progressLatest);
  progressLatest = null;
  progressSentAt = Date.now();
}
/** At the end of a run: nothing of it may reach the parent during the next one. */
function dropProgress(): void {
  if (progressTimer) clearTimeout(progressTimer);
  progressTimer = null;
  progressLatest = null;
}

// An output file over RUN_OUTPUT_MAX_FILE_BYTES is not shipped to the server (it would cross the
// channel whole, in memory): only its size goes, and the server refuses it and ends the run.
let outputMaxFileBytes = Infinity;
function withoutOversizeData(method: string, params: Record<string, unknown>): Record<string, unknown> {
  const data = params.data;
  const size = data instanceof Uint8Array ? data.byteLength : typeof data === 'string' ? Buffer.byteLength(data) : 0;
  return method === 'files.save' && size > outputMaxFileBytes ? { ...params, data: undefined, size } : params;
}

function hostFor(scrubber: Scrubber): EngineHost {
  return {
    log: (line) => {
      logCap.add(new Date().toISOString(), line);
      flushTimer ??= setTimeout(flushLogs, 100);
    },
    // TOTP codes come from the parent, which scrubs them itself; the worker's own scrubber learns
    // them too, for the lines it writes.
    noteSecret: (v) => scrubber.add(v),
    // Scrubbed before it is cut to MAX_PROGRESS_LABEL, so no secret's prefix survives a cut.
    progress: (step, of, label) => {
      const bounded = (n: number) => Math.min(MAX_PROGRESS_STEP, Math.max(0, Math.floor(n)));
      const s = bounded(step);
      const o = of === null ? null : Math.max(s, bounded(of));
      progressLatest = { t: 'progress', step: s, of: o, label: scrubber.scrub(label).slice(0, MAX_PROGRESS_LABEL) };
      const wait = progressSentAt + PROGRESS_EVERY_MS - Date.now();
      if (wait <= 0) sendProgress();
      else progressTimer ??= setTimeout(sendProgress, wait);
    },
    rpc: (method, params) =>
      new Promise((resolve, reject) => {
        const id = ++rpcSeq;
        pending.set(id, { resolve, reject });
        send({ t: 'rpc', id, method, params: withoutOversizeData(method, params) });
      }),
  };
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

async function run(job: Job, maxResultBytes: number, limits: RunLimits): Promise<void> {
  outputMaxFileBytes = limits.outputMaxFileBytes;
  const scrubber = new Scrubber();
  for (const s of Object.values(job.secrets)) scrubber.addSecret(s);
  logCap = new LogCap(limits.logMaxBytes, (s) => scrubber.scrub(s));
  droppedSent = 0;
  logCap.scrubMargin = scrubMarginFor(secretStrings(job.secrets));
  const ctx = new RunContext(job, hostFor(scrubber));
  // The script is interrupted a little before the parent's own timer would kill this process,
  // so a busy loop ends as timed_out without a respawn.
  const scriptLimits = { deadline: Date.now() + Math.max(0, limits.timeoutMs - 100), memoryMb: limits.scriptMemoryMb };
  dropProgress();
  progressSentAt = Date.now(); // the first message waits PROGRESS_EVERY_MS too
  try {
    const result = await execute(job.definition, ctx, scriptLimits);
    dropProgress();
    const json = result instanceof JsonText ? result.text : JSON.stringify(result === undefined ? null : result);
    const size = Buffer.byteLength(json, 'utf8');
    const logs = takeLogs();
    if (size > maxResultBytes) send({ t: 'done', outcome: 'too_large', size, logs, logsDropped: logCap.dropped });
    else send({ t: 'done', outcome: 'ok', json, logs, logsDropped: logCap.dropped }); // the parent measures the size itself
  } catch (e) {
    dropProgress();
    if (e instanceof ScriptTimeout) {
      send({ t: 'done', outcome: 'timeout', logs: takeLogs(), logsDropped: logCap.dropped });
      return;
    }
    const err = toRunError(e);
    if (!(e instanceof RunFailure)) ctx.log(`exception ${err.exception}: ${err.message}`);
    send({ t: 'done', outcome: 'error', error: scrubber.scrubValue(err), logs: takeLogs(), logsDropped: logCap.dropped });
  }
}

process.on('message', (m: FromParent) => {
  if (m.t === 'run') void run(m.job, m.maxResultBytes, m.limits);
  else if (m.t === 'rpc-reply') {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(Object.assign(new Error(m.error?.message ?? 'rpc failed'), { name: m.error?.name ?? 'Error' }));
  }
});
// The parent went away: nothing left to report to.
process.on('disconnect', () => process.exit(0));
process.on('unhandledRejection', () => {});
// Compile the QuickJS wasm before saying ready: runs only instantiate it.
loadQuickJS();
send({ t: 'ready' });
