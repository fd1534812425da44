// The run runtime as one unit: proxy map, version cache, sandbox pool, browser host, executor and
// the embedded queue, built from its ports (ports.ts). Started and stopped by Services.start/stop.
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../adapters/db/schema.js';
import type { RunInputSource, RunOutputSink, RunsFinished, SecretResolver, VersionSource } from './ports.js';
import { BrowserHost } from './host/browser-host.js';
import { EmbeddedDispatcher, type RunQueue } from './host/dispatcher.js';
import { RunExecutor, type Finished } from './host/executor.js';
import { RunStore, type RunRow } from './host/run-store.js';
import type { SlotValue } from './worker/engines/context.js';
import { WorkerPool } from './host/pool.js';
import { sandboxBundle } from './host/bundle.js';
import { resolveSandboxUser } from './host/sandbox-user.js';
import { ProxyMap } from './host/proxies.js';
import { VersionCache } from './host/version-cache.js';
import type { Egress } from '../egress/egress.js';
import { TotpLedger } from './host/totp-ledger.js';
import type { EventBus } from '../lib/events.js';
import type { RunSignals } from '../adapters/db/run-signals.js';
import type { KeyLocks } from '../adapters/db/advisory-locks.js';
import { invalid } from '../lib/errors.js';

/** How long a sync request on an API-only process waits for its run beyond the run's own timeout. */
const SYNC_QUEUE_WAIT_MS = 10 * 60_000;

export interface Runtime {
  proxies: ProxyMap;
  versions: VersionCache;
  pool: WorkerPool;
  browser: BrowserHost;
  executor: RunExecutor;
  queue: RunQueue;
  /** The egress policy: rules in each Job, the browser contexts' proxies. */
  egress: Egress;
  /** Single-use TOTP codes for runs and validation replays. */
  totp: TotpLedger;
  /** Every SQL statement on runs and their logs. */
  store: RunStore;
  /**
   * Starts a run: stores its `pending` row, keeps its per-run secret values in memory, hands it to
   * the queue. A sync launch resolves with the terminal state; an async one at once with null.
   */
  launch(row: RunRow, ephemeral: Record<string, SlotValue>, sync: boolean): Promise<Finished | null>;
  /**
   * Cancels a pending or running run. `cancelled`: it ended so (it was pending, or executed here and
   * was stopped); `requested`: another process executes it and stops it within a second or so;
   * `finished`: it had already ended.
   */
  cancel(runId: string): Promise<'cancelled' | 'requested' | 'finished'>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createRuntime(
  config: Config,
  deps: {
    db: Kysely<Database>;
    connectors: VersionSource;
    secrets: SecretResolver;
    files: RunOutputSink & RunInputSource;
    egress: Egress;
    log?: { error(o: object, m: string): void };
    workerEntry?: string;
    events?: EventBus;
    /** Told of runs reaching a terminal status, in the transaction that records it. */
    onFinished?: RunsFinished;
    /** Wake-ups between processes (PostgreSQL). */
    signals?: RunSignals;
    /** Locks between processes (PostgreSQL): the per-user run limit then holds across workers. */
    userLocks?: KeyLocks;
  },
): Runtime {
  const proxies = new ProxyMap(config.proxyUrls);
  const versions = new VersionCache(deps.connectors);
  const pool = new WorkerPool({
    size: config.runConcurrency,
    memoryMb: config.sandboxMemoryMb,
    maxResultBytes: config.runMaxResultBytes,
    logMaxBytes: config.runLogMaxBytes,
    outputMaxFileBytes: config.runOutputMaxFileBytes,
    scriptMemoryMb: config.scriptMemoryMb,
    shareMax: config.runSandboxShare,
    user: resolveSandboxUser(config),
    entry: deps.workerEntry,
  });
  const totp = new TotpLedger(deps.db, config.totpCodeReuse === 'wait');
  const browser = new BrowserHost({ cdpUrl: config.browserCdpUrl, egress: deps.egress, events: deps.events });
  const store = new RunStore(deps.db, deps.onFinished, deps.signals, deps.userLocks);
  const executor = new RunExecutor({
    store,
    pool,
    browser,
    versions,
    secrets: deps.secrets,
    files: deps.files,
    proxies,
    egress: deps.egress,
    totp,
    logMaxBytes: config.runLogMaxBytes,
    output: { maxFiles: config.runOutputMaxFiles, maxBytes: config.runOutputMaxBytes, maxFileBytes: config.runOutputMaxFileBytes },
    inputMaxBytes: config.runInputMaxBytes,
    log: deps.log ?? { error: (o, m) => console.error(m, o) },
    events: deps.events,
  });
  // ROLE=api executes no run: it stores them pending for the worker processes, whose scan (every
  // 250 ms there) claims them, and a sync caller's request waits by reading the row.
  const executes = config.role !== 'api';
  const queue = new EmbeddedDispatcher({
    store,
    executor,
    concurrency: config.runConcurrency,
    perUser: config.runMaxConcurrencyPerUser,
    leaseS: config.runLeaseS,
    scanIntervalMs: config.runScanMs ?? (config.role === 'worker' ? 250 : 2000),
  });
  let started: Promise<void> | null = null;
  let stopping = false;
  let stopped: Promise<void> | null = null;
  let endGrace = () => {};
  return {
    proxies,
    versions,
    pool,
    browser,
    executor,
    queue,
    egress: deps.egress,
    totp,
    store,
    async launch(row, ephemeral, sync) {
      if (!executes) {
        if (row.ephemeral_secrets) {
          // They live in the memory of the process that received them, and this one executes no run.
          throw invalid(
            ['body', 'secret_values'],
            'Value error, this server process executes no runs (ROLE=api): bind stored secrets with secret_bindings instead',
            'value_error',
          );
        }
        await store.insert(row, true);
        if (!sync) return null;
        // Until it ends, or for its own timeout plus time in the queue; then as it is.
        return { status: await store.waitTerminal(row.id, row.max_timeout_s * 1000 + SYNC_QUEUE_WAIT_MS, () => stopping) };
      }
      // A run with secret_values is leased from its creation: only this process can run it.
      if (row.ephemeral_secrets) row = { ...row, lease_until: new Date(Date.now() + config.runLeaseS * 1000).toISOString() };
      await store.insert(row);
      executor.holdRow(row);
      if (row.ephemeral_secrets) executor.holdSecrets(row.id, ephemeral);
      // Waiting starts before the run is queued: it can't finish unseen.
      const done = sync ? executor.waitFor(row.id) : null;
      queue.submit(row.id, row.user_id, sync);
      return done;
    },
    async cancel(runId) {
      // A pending run may be claimed while we look: at most a few rounds settle which case it is.
      for (let round = 0; round < 5; round++) {
        if (await store.cancelPending(runId, 'cancelled on request before it started')) {
          executor.ended(runId, 'cancelled');
          return 'cancelled';
        }
        if (executor.cancel(runId)) {
          const f = await executor.waitFor(runId);
          return f.status === 'cancelled' ? 'cancelled' : 'finished';
        }
        const row = await store.byId(runId);
        if (row?.status === 'running') {
          await store.requestCancel(runId);
          return 'requested';
        }
        if (row?.status !== 'pending') return 'finished';
      }
      return 'finished';
    },
    // The sandbox bundle is built in the background at start, so the first run doesn't wait for it.
    start() {
      if (!executes) return Promise.resolve();
      if (!started) {
        void sandboxBundle().catch(() => {});
        started = queue.start();
        store.signals.onPending((runs) => queue.wake(runs));
      }
      return started;
    },
    // A second call (a second SIGINT) cuts the grace period short.
    stop() {
      if (stopped) {
        endGrace();
        return stopped;
      }
      stopped = (async () => {
        if (!started) {
          stopping = true;
          return store.signals.close();
        }
        // Stop claiming first (queued runs stay pending for other processes or a restart), give the
        // runs in flight RUN_SHUTDOWN_GRACE_S to finish (their sync callers get the result), then end
        // the rest (their workers are killed: internal_error) and answer waiting sync calls.
        const drained = queue.close();
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((r) => {
          endGrace = r;
          timer = setTimeout(r, config.runShutdownGraceS * 1000);
        });
        await Promise.race([drained, grace]);
        clearTimeout(timer);
        stopping = true;
        await store.signals.close();
        executor.shuttingDown = true;
        await pool.close();
        await drained;
        executor.releaseWaiters();
        await browser.close();
      })();
      return stopped;
    },
  };
}
