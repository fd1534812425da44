// The run runtime as one unit: proxy map, version cache, sandbox pool, browser host, executor and
// the embedded queue. Started when the HTTP app is ready, stopped when it closes.
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../adapters/db/schema.js';
import type { ConnectorsService } from '../modules/connectors/service.js';
import type { FilesService } from '../modules/files/service.js';
import type { SecretsService } from '../modules/secrets/service.js';
import { BrowserHost } from './browser-host.js';
import { EmbeddedDispatcher, type RunQueue } from './dispatcher.js';
import { RunExecutor } from './executor.js';
import { WorkerPool } from './pool.js';
import { sandboxBundle } from './bundle.js';
import { resolveSandboxUser } from './sandbox-user.js';
import { ProxyMap } from './proxies.js';
import { VersionCache } from './version-cache.js';
import type { Egress } from '../egress/egress.js';
import { TotpLedger } from './totp-ledger.js';

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
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createRuntime(
  config: Config,
  deps: { db: Kysely<Database>; connectors: ConnectorsService; secrets: SecretsService; files: FilesService; egress: Egress; log?: { error(o: object, m: string): void } },
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
  });
  const totp = new TotpLedger(deps.db, config.totpCodeReuse === 'wait');
  const browser = new BrowserHost({ cdpUrl: config.browserCdpUrl, egress: deps.egress });
  const executor = new RunExecutor({
    db: deps.db,
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
  const queue = new EmbeddedDispatcher({ db: deps.db, executor, concurrency: config.runConcurrency, perUser: config.runMaxConcurrencyPerUser });
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
    // The sandbox bundle is built in the background at start, so the first run doesn't wait for it.
    start: () => (started ??= (void sandboxBundle().catch(() => {}), queue.start())),
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
