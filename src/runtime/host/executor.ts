// Executes one claimed run: resolves its secrets (vault, or the per-run values held in memory),
// hands the job to a sandboxed worker, serves the worker's RPCs (output files, the browser), then
// applies the result rules (output_schema, size limits) and records the terminal state.
import type { RunStatus } from '../../adapters/db/schema.js';
import type { RunRow, RunStore } from './run-store.js';
import type { RunInputSource, RunOutputSink, SecretResolver } from '../ports.js';
import { nowIso } from '../../lib/ids.js';
import type { BrowserHost } from './browser-host.js';
import type { SlotValue } from '../worker/engines/context.js';
import type { RunErrorView } from '../shared/failure.js';
import { RunAbort, type Outcome, type WorkerPool } from './pool.js';
import type { ProxyMap } from './proxies.js';
import { Scrubber } from '../shared/scrub.js';
import type { VersionCache } from './version-cache.js';
import { LogCap, scrubMarginFor, secretStrings } from '../shared/log-cap.js';
import { OutputQuota, type OutputLimits } from './output-quota.js';
import type { Egress } from '../../egress/egress.js';
import type { TotpLedger } from './totp-ledger.js';
import { runInSandbox, type InputFile } from './sandbox-run.js';
import type { EventBus } from '../../lib/events.js';

/** How often the logs of running runs are written, so every process can show them. */
const LIVE_LOG_FLUSH_MS = 1000;

/** Results up to this many UTF-8 JSON bytes are stored (the API's result-storage limit). */
export const STORED_RESULT_BYTES = 1_000_000;

export interface Finished {
  status: RunStatus;
  /** A sync result too large to store, delivered once to the waiting caller. */
  transientResult?: unknown;
}

export interface ExecutorDeps {
  store: RunStore;
  pool: WorkerPool;
  browser: BrowserHost;
  versions: VersionCache;
  secrets: SecretResolver;
  files: RunOutputSink & RunInputSource;
  proxies: ProxyMap;
  egress: Egress;
  /** The single-use TOTP step ledger (codes for the worker's totp.code RPC). */
  totp: TotpLedger;
  logMaxBytes: number;
  output: OutputLimits;
  /** Total bytes of uploaded files one run may send (files.read). */
  inputMaxBytes: number;
  log: { error(obj: object, msg: string): void };
  /** run.started / run.finished for log lines and metrics. */
  events?: EventBus;
}

/** What execute() learns about a run as it goes, for its lifecycle events. */
interface Seen {
  userId: string;
  connectorId: string;
  engine: string | null;
}

export class RunExecutor {
  /** secret_values of runs not finished yet: memory only, never written anywhere. */
  private readonly ephemeral = new Map<string, Record<string, SlotValue>>();
  private readonly waiters = new Map<string, ((f: Finished) => void)[]>();
  /** Set on shutdown: workers killed by it end their runs internal_error, not crash. */
  shuttingDown = false;
  /**
   * Runs executing here: their cancel switch, their log so far (readable while they run) and their
   * latest progress as JSON (a worker may report it at any rate: only the tick writes it).
   */
  private readonly executing = new Map<
    string,
    { cancel: AbortController; logs: LogCap; flushed: number; progress: string | null; progressWritten: string | null }
  >();
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(private readonly d: ExecutorDeps) {}

  /** Rows of runs created by this process, so execution needn't read them back. */
  private readonly fresh = new Map<string, RunRow>();

  holdSecrets(runId: string, values: Record<string, SlotValue>): void {
    this.ephemeral.set(runId, values);
  }

  /** Runs whose secret_values only this process holds (their leases are renewed while it lives). */
  heldSecretRuns(): string[] {
    return [...this.ephemeral.keys()];
  }

  /** Stops a run executing here (its outcome is `cancelled`); false when it isn't executing here. */
  cancel(runId: string): boolean {
    const e = this.executing.get(runId);
    if (!e) return false;
    e.cancel.abort();
    return true;
  }

  /** Runs executing in this process. */
  executingRuns(): string[] {
    return [...this.executing.keys()];
  }

  /** The log so far of a run executing here (scrubbed and capped like the final one). */
  liveLogs(runId: string): string | null {
    return this.executing.get(runId)?.logs.text() ?? null;
  }

  /** A waiting sync caller of a run that ended without executing here (cancelled while pending). */
  ended(runId: string, status: RunStatus): void {
    this.notify(runId, { status });
  }

  /**
   * Every LIVE_LOG_FLUSH_MS while runs execute here: writes the logs that grew, so any process can
   * show them (the terminal write replaces them), and stops the runs a cancel was asked for on
   * another process.
   */
  private async tick(): Promise<void> {
    for (const id of await this.d.store.cancelRequested([...this.executing.keys()])) this.cancel(id);
    for (const [runId, e] of this.executing) {
      const text = e.logs.text();
      if (text.length === e.flushed) continue;
      e.flushed = text.length;
      await this.d.store.saveLiveLogs(runId, text);
    }
    for (const [runId, e] of this.executing) {
      if (e.progress === e.progressWritten) continue;
      e.progressWritten = e.progress;
      await this.d.store.saveProgress(runId, e.progress);
    }
  }

  /** A run's row known here (created here, or claimed), so execution needn't read it; `replace`: over one held already. */
  holdRow(row: RunRow, replace = true): void {
    if (replace || !this.fresh.has(row.id)) this.fresh.set(row.id, row);
  }

  /** Resolves when the run reaches a terminal status in this process. */
  waitFor(runId: string): Promise<Finished> {
    return new Promise((resolve) => {
      const list = this.waiters.get(runId) ?? [];
      list.push(resolve);
      this.waiters.set(runId, list);
    });
  }

  /**
   * On shutdown: sync callers whose run hasn't started get the run as it is (pending; it resumes
   * after the restart) instead of a request that never ends.
   */
  releaseWaiters(): void {
    for (const runId of [...this.waiters.keys()]) this.notify(runId, { status: 'pending' });
  }

  private notify(runId: string, f: Finished): void {
    const list = this.waiters.get(runId);
    this.waiters.delete(runId);
    for (const w of list ?? []) w(f);
  }

  async execute(runId: string): Promise<void> {
    const scrubber = new Scrubber();
    // Scrubbed and bounded as lines arrive: a run never holds more than RUN_LOG_MAX_BYTES of log.
    const logs = new LogCap(this.d.logMaxBytes, (s) => scrubber.scrub(s));
    const t0 = performance.now();
    const seen: Seen = { userId: '', connectorId: '', engine: null };
    const cancel = new AbortController();
    this.executing.set(runId, { cancel, logs, flushed: 0, progress: null, progressWritten: null });
    if (!this.flushTimer) {
      this.flushTimer = setInterval(() => void this.tick().catch(() => {}), LIVE_LOG_FLUSH_MS);
      this.flushTimer.unref();
    }
    let finished: Finished;
    try {
      finished = await this.attempt(runId, logs, scrubber, seen);
    } catch (e) {
      this.d.log.error({ err: e, runId }, 'run failed inside the platform');
      note(logs, 'platform error: the run could not be executed');
      finished = { status: 'internal_error' };
      await this.record(runId, { status: 'internal_error' }, logs, scrubber).catch((err) =>
        this.d.log.error({ err, runId }, 'could not record run failure'),
      );
    } finally {
      this.ephemeral.delete(runId);
      this.fresh.delete(runId);
      this.executing.delete(runId);
      if (!this.executing.size && this.flushTimer) {
        clearInterval(this.flushTimer);
        this.flushTimer = null;
      }
    }
    if (seen.userId) {
      const durationMs = Math.round(performance.now() - t0);
      this.d.events?.emit({ kind: 'run.finished', runId, ...seen, status: finished.status, durationMs });
    }
    this.notify(runId, finished);
  }

  private async attempt(runId: string, logs: LogCap, scrubber: Scrubber, seen: Seen): Promise<Finished> {
    const row = this.fresh.get(runId) ?? (await this.d.store.byId(runId));
    if (!row) throw new Error(`run ${runId} is missing`);
    seen.userId = row.user_id;
    seen.connectorId = row.connector_id;
    const v = await this.d.versions.get(row.user_id, row.connector_id, row.connector_version);
    if (!v) throw new Error(`connector version ${row.connector_id}@${row.connector_version} is missing`);
    seen.engine = v.definition.engine;
    this.d.events?.emit({ kind: 'run.started', runId, userId: row.user_id, connectorId: row.connector_id, engine: seen.engine });
    const secrets: Record<string, SlotValue> = { ...(this.ephemeral.get(runId) ?? {}) };
    if (row.ephemeral_secrets && !this.ephemeral.has(runId)) {
      note(logs, "the run's secret_values were lost (server restart); run it again");
      return this.record(runId, { status: 'internal_error' }, logs, scrubber);
    }
    for (const [slot, secretId] of Object.entries<string>(row.secret_bindings ? JSON.parse(row.secret_bindings) : {})) {
      const r = await this.d.secrets.resolve(row.user_id, secretId);
      if (!r) {
        return this.record(
          runId,
          { status: 'connector_error', error: err('auth_required', `the secret bound to slot '${slot}' no longer exists`, false) },
          logs,
          scrubber,
        );
      }
      secrets[slot] = r.value;
    }
    // TOTP codes are handed out by this process (totp.code RPC, serveTotpCode), which adds each
    // to the scrubber before the worker sees it.
    for (const s of Object.values(secrets)) scrubber.addSecret(s);
    logs.scrubMargin = scrubMarginFor(secretStrings(secrets));
    const quota = new OutputQuota(this.d.output);
    const args = JSON.parse(row.arguments);
    // (The argument strings are gathered on the first file read: most runs send no file.)
    const inputs: Inputs = { args, named: null, read: 0 };
    const outcome = await runInSandbox(
      this.d,
      {
        runId,
        connectorId: row.connector_id,
        connectorVersion: row.connector_version,
        definition: v.definition,
        args,
        secrets,
        proxy: this.d.proxies.resolve(row.proxy ? JSON.parse(row.proxy) : null) ?? null,
        maxResponseBytes: 256 * 1024 * 1024,
        egress: this.d.egress.rules(),
      },
      {
        timeoutMs: row.max_timeout_s * 1000,
        scrubber,
        log: (at, line) => logs.add(at, line),
        note: (line) => note(logs, line),
        logsDropped: (n) => logs.reportDropped(n),
        saveFile: (params) => this.saveOutput(row, params, quota, logs),
        readFile: (params) => this.readInput(row, params.id, inputs, logs),
        signal: this.executing.get(runId)?.cancel.signal,
        tenant: row.user_id,
        progress: (p) => {
          const e = this.executing.get(runId);
          if (e) e.progress = JSON.stringify(p);
        },
      },
    );
    return this.finish(runId, outcome, !!row.is_async, v.checkResult, logs, scrubber, row.max_timeout_s);
  }

  /**
   * files.save: within the run's output quota, checked before a byte is written (a refused file
   * leaves nothing behind); a refusal ends the run (RunAbort) whatever the connector does next.
   */
  private async saveOutput(row: RunRow, params: Record<string, any>, quota: OutputQuota, logs: LogCap) {
    const data: unknown = params.data;
    // An honest worker sends only the size of a file over RUN_OUTPUT_MAX_FILE_BYTES.
    const announced = data === undefined && Number.isSafeInteger(params.size) && params.size > 0 ? (params.size as number) : null;
    const size = announced ?? (typeof data === 'string' ? Buffer.byteLength(data) : data instanceof Uint8Array ? data.byteLength : 0);
    try {
      quota.reserve(size);
    } catch (e) {
      note(logs, (e as Error).message);
      throw e;
    }
    try {
      if (!(data instanceof Uint8Array) && typeof data !== 'string') throw new Error('files.save needs bytes or a string');
      const f = await this.d.files.saveRunOutput({
        userId: row.user_id,
        runId: row.id,
        connectorId: row.connector_id,
        name: String(params.name).slice(0, 512) || 'output',
        contentType: String(params.contentType || 'application/octet-stream').slice(0, 256),
        body: typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
      });
      note(logs, `saved output file ${f.name} (${f.size_bytes} bytes, id ${f.id})`);
      return { id: f.id, name: f.name, size_bytes: f.size_bytes };
    } catch (e) {
      quota.release(size);
      throw e;
    }
  }

  /**
   * files.read: only a file the run's own arguments name (a definition can't reach the user's
   * other files by a written-in id), the user's and available, within RUN_INPUT_MAX_BYTES in all.
   * A refusal ends the run invalid_input: the caller named a file the run can't send.
   */
  private async readInput(row: RunRow, id: string, inputs: Inputs, logs: LogCap): Promise<InputFile> {
    const refuse = (message: string): never => {
      note(logs, message);
      throw new RunAbort(err('invalid_input', message, false, { file_id: id }));
    };
    inputs.named ??= argumentStrings(inputs.args);
    if (!inputs.named.has(id)) refuse(`the connector asked for file ${id.slice(0, 80)}, which no argument of this run names`);
    const left = this.d.inputMaxBytes - inputs.read;
    const f = await this.d.files.readRunInput(row.user_id, id, left);
    if (f === null) refuse(`no uploaded file ${id}: upload it (POST /v1beta/files, then complete) and name its id`);
    if (f === 'too_large')
      refuse(`file ${id} is larger than the ${this.d.inputMaxBytes} bytes of uploaded files a run may send (RUN_INPUT_MAX_BYTES)`);
    const file = f as Exclude<typeof f, null | 'too_large'>;
    inputs.read += file.data.length;
    note(logs, `sending uploaded file ${file.name} (${file.data.length} bytes, id ${id})`);
    return {
      name: file.name,
      contentType: file.contentType,
      data: new Uint8Array(file.data.buffer, file.data.byteOffset, file.data.byteLength),
    };
  }

  private async finish(
    runId: string,
    o: Outcome,
    isAsync: boolean,
    checkResult: import('ajv').ValidateFunction,
    logs: LogCap,
    scrubber: Scrubber,
    timeoutS: number,
  ): Promise<Finished> {
    switch (o.kind) {
      case 'timeout':
        note(logs, `timed out after ${timeoutS} s; the sandbox was stopped`);
        return this.record(runId, { status: 'timed_out' }, logs, scrubber);
      case 'cancelled':
        note(logs, 'cancelled on request; the sandbox was stopped');
        return this.record(runId, { status: 'cancelled' }, logs, scrubber);
      case 'crash':
        if (this.shuttingDown) {
          note(logs, 'the server shut down while this run was executing');
          return this.record(runId, { status: 'internal_error' }, logs, scrubber);
        }
        note(logs, o.detail);
        return this.record(runId, { status: 'connector_error', error: err('crash', o.detail, null) }, logs, scrubber);
      case 'error':
        return this.record(runId, { status: 'connector_error', error: o.error }, logs, scrubber);
      case 'too_large':
        note(logs, `result of ${o.size} bytes exceeds the execution limit`);
        return this.record(runId, { status: 'result_too_large', size: o.size }, logs, scrubber);
      case 'ok': {
        // A connector must not hand a credential back (docs/security.md): redact it from the result.
        let scrubbed: string;
        let result: unknown;
        try {
          scrubbed = scrubber.scrubResult(o.json);
          result = JSON.parse(scrubbed);
        } catch {
          // Only a broken or forged worker sends text that is not JSON.
          const detail = 'the sandbox sent a result that is not JSON';
          note(logs, detail);
          return this.record(runId, { status: 'connector_error', error: err('crash', detail, null) }, logs, scrubber);
        }
        if (scrubbed !== o.json) {
          note(logs, 'the result held a secret value of this run; it was replaced by [redacted]');
          o = { ...o, json: scrubbed, size: Buffer.byteLength(scrubbed) };
        }
        if (isAsync && o.size > STORED_RESULT_BYTES) {
          note(logs, `result of ${o.size} bytes is above ${STORED_RESULT_BYTES}: asynchronous runs can't return it; run synchronously`);
          return this.record(runId, { status: 'result_too_large', size: o.size }, logs, scrubber);
        }
        if (!checkResult(result)) {
          const errors = (checkResult.errors ?? [])
            .slice(0, 20)
            .map((e) => ({ path: e.instancePath || '/', keyword: e.keyword, message: e.message ?? '', params: e.params }));
          return this.record(
            runId,
            {
              status: 'connector_error',
              error: err('site_changed', "the result doesn't match the connector's output_schema: the site probably changed", false, {
                errors,
              }),
            },
            logs,
            scrubber,
          );
        }
        if (o.size <= STORED_RESULT_BYTES) return this.record(runId, { status: 'success', json: o.json, size: o.size }, logs, scrubber);
        await this.record(runId, { status: 'success', size: o.size }, logs, scrubber);
        return { status: 'success', transientResult: result };
      }
    }
  }

  /** Writes the terminal state and the logs, scrubbed and capped as they came (batched with other runs). */
  async record(
    runId: string,
    r: { status: RunStatus; error?: RunErrorView; json?: string; size?: number },
    logs: LogCap,
    scrubber: Scrubber,
  ): Promise<Finished> {
    const error = r.error ? scrubber.scrubValue(r.error) : null;
    const text = logs.text();
    await this.d.store.finish({
      runId,
      status: r.status,
      result: r.json ?? null,
      resultSizeBytes: r.size ?? null,
      error: error ? JSON.stringify(error) : null,
      finishedAt: nowIso(),
      logs: text,
    });
    return { status: r.status };
  }
}

/** What a run's file reads are checked against: the ids its arguments name, the bytes read so far. */
interface Inputs {
  args: unknown;
  named: Set<string> | null;
  read: number;
}

/** Every string among a run's arguments, at any depth (the file ids it may send). */
function argumentStrings(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') out.add(v);
  else if (Array.isArray(v)) for (const x of v) argumentStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) argumentStrings(x, out);
  return out;
}

function err(
  type: RunErrorView['type'],
  message: string,
  retryable: boolean | null,
  details: Record<string, unknown> | null = null,
): RunErrorView {
  return { type, message, retryable, exception: null, details };
}

/** A line of the platform's own, stamped now. */
function note(logs: LogCap, line: string): void {
  logs.note(nowIso(), line);
}
