// One execution of a definition in the sandbox, with the hooks the parent always applies: every
// log line and the error are scrubbed of the run's secrets here (the sandboxed side is never
// trusted to have done it), TOTP codes come from the single-use ledger and join the scrubber
// before the worker sees them, browser calls go to the run's own context, which is closed after.
// Runs (executor.ts) and synthesis validation replays use this one path; they differ only in where
// log lines and output files go.
import type { Job, SlotValue } from '../worker/engines/context.js';
import { Scrubber } from '../shared/scrub.js';
import type { BrowserHost } from './browser-host.js';
import type { Outcome, RunProgress, WorkerPool } from './pool.js';
import { serveTotpCode, type TotpLedger } from './totp-ledger.js';

/** An uploaded file as a step sends it. */
export interface InputFile {
  name: string;
  contentType: string;
  data: Uint8Array;
}

export interface SandboxDeps {
  pool: WorkerPool;
  browser: BrowserHost;
  totp: TotpLedger;
}

export interface SandboxRunOptions {
  timeoutMs: number;
  /** Scrubs with the run's secrets; TOTP codes handed out are added to it. */
  scrubber: Scrubber;
  /** A log line as the worker sent it (unchecked), or a line of the platform's own. */
  log(at: unknown, line: unknown): void;
  note(line: string): void;
  logsDropped?(n: unknown): void;
  /** The run's latest "step n of m", its label scrubbed of the run's secrets here. */
  progress?(p: RunProgress): void;
  /** files.save: where a run's output file goes (a replay only reports what it would save). */
  saveFile(params: Record<string, any>): Promise<unknown>;
  /**
   * files.read: an uploaded file the run's arguments name, as { name, contentType, data } (a run
   * reads the files service; a replay, the recording's own bytes). Refusals throw RunAbort.
   */
  readFile(params: { id: string }): Promise<InputFile>;
  /** Cancels the run: the worker is stopped, the outcome is `cancelled`. */
  signal?: AbortSignal;
  /** The user the run is for: that user's HTTP runs may share a worker (pool.ts); none: a worker of its own. */
  tenant?: string;
}

/** A scrubber that knows every value of these secrets. */
export function scrubberFor(secrets: Record<string, SlotValue>): Scrubber {
  const scrubber = new Scrubber();
  for (const s of Object.values(secrets)) scrubber.addSecret(s);
  return scrubber;
}

/**
 * `browser.open`'s login slot as Playwright's httpCredentials, read from the run's own secrets and
 * bound to one http(s) origin (Chromium sends them nowhere else).
 */
function httpCredentials(job: Job, params: Record<string, any>): Record<string, unknown> {
  const { slot, origin } = params.credentials as { slot: string; origin: string };
  const login = Object.hasOwn(job.secrets, slot) ? job.secrets[slot] : undefined;
  if (login?.type !== 'login') throw new Error(`secret slot '${slot}' is not a login`);
  const u = URL.parse(origin);
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw new Error('basic_auth needs an http(s) origin');
  return { httpCredentials: { username: login.username, password: login.password, origin: u.origin } };
}

export async function runInSandbox(d: SandboxDeps, job: Job, o: SandboxRunOptions): Promise<Outcome> {
  const deadline = Date.now() + o.timeoutMs;
  try {
    const outcome = await d.pool.execute(job, o.timeoutMs, {
      log: o.log,
      logsDropped: o.logsDropped ?? (() => {}),
      signal: o.signal,
      tenant: o.tenant,
      progress: o.progress && ((p) => o.progress!({ ...p, label: o.scrubber.scrub(p.label) })),
      rpc: async (method, params) => {
        if (method === 'files.save') return o.saveFile(params);
        if (method === 'files.read') return o.readFile(params as { id: string });
        if (method === 'totp.code')
          return serveTotpCode(d.totp, job.secrets, params.slot, deadline, { log: o.note, secret: (c) => o.scrubber.add(c) });
        if (method === 'browser.open' && params.credentials)
          return d.browser.call(job.runId, job.proxy, method, httpCredentials(job, params));
        return d.browser.call(job.runId, job.proxy, method, params);
      },
    });
    if (outcome.kind === 'error') return { ...outcome, error: o.scrubber.scrubValue(outcome.error) };
    if (outcome.kind === 'crash') return { ...outcome, detail: o.scrubber.scrub(outcome.detail) };
    return outcome;
  } finally {
    await d.browser.closeRun(job.runId);
  }
}
