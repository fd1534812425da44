// The run runtime as one unit: proxy map, version cache, sandbox pool, browser host, executor and
// the embedded queue, built from its ports (ports.ts). Started and stopped by Services.start/stop.
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../adapters/db/schema.js';
import type { RunOutputSink, RunsFinished, SecretResolver, VersionSource } from './ports.js';
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
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createRuntime(
  config: Config,
  deps: {
    db: Kysely<Database>;
    connectors: VersionSource;
    secrets: SecretResolver;
    files: RunOutputSink;
    egress: Egress;
    log?: { error(o: object, m: string): void };
    workerEntry?: string;
    /** Told of runs reaching a terminal status, in the transaction that records it. */
    onFinished?: RunsFinished;
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
    user: resolveSandboxUser(config),
    entry: deps.workerEntry,
  });
  const totp = new TotpLedger(deps.db, config.totpCodeReuse === 'wait');
  const browser = new BrowserHost({ cdpUrl: config.browserCdpUrl, egress: deps.egress });
  const store = new RunStore(deps.db, deps.onFinished);
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
    log: deps.log ?? { error: (o, m) => console.error(m, o) },
  });
  const queue = new EmbeddedDispatcher({
    store,
    executor,
    concurrency: config.runConcurrency,
    perUser: config.runMaxConcurrencyPerUser,
    leaseS: config.runLeaseS,
  });
  let started: Promise<void> | null = null;
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
    // The sandbox bundle is built in the background at start, so the first run doesn't wait for it.
    start() {
      if (!started) {
        void sandboxBundle().catch(() => {});
        started = queue.start();
      }
      return started;
    },
    async stop() {
      if (!started) return;
      executor.shuttingDown = true;
      // Stop claiming first (queued runs stay pending and resume after a restart), then end the
      // runs in flight (their workers are killed: internal_error), then answer waiting sync calls.
      const drained = queue.close();
      await pool.close();
      await drained;
      executor.releaseWaiters();
      await browser.close();
    },
  };
}
