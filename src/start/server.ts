// `serve`: open everything, print the first key once on an empty database, listen, stop cleanly.
import { makeLogger } from '../lib/logger.js';
import { listeningOn, type Config } from '../config.js';
import { createServices } from '../services.js';
import { buildApp } from '../app.js';
import { createMetrics, observe } from '../modules/observability/metrics.js';

export async function serve(cfg: Config): Promise<void> {
  // Files the server creates (database, blobs, vault, recordings) are owner-only (0600/0700).
  process.umask(0o077);
  const logger = makeLogger(cfg.logLevel, undefined, { bufferBytes: cfg.logBufferBytes });
  const services = await createServices(cfg);
  const boot = await services.users.bootstrap();
  if (boot) {
    // Printed to the terminal once, never logged: this is the only copy of the key.
    process.stdout.write(
      `\n  First start: created user "${boot.user.name}" (${boot.user.id}).\n` +
        `  API key (shown once, store it now): ${boot.key}\n` +
        `  Create more with: npm run cli -- keys create --user ${boot.user.id}\n\n`,
    );
  }
  const app = await buildApp(services, { logger });
  await services.start();
  await app.listen({ host: cfg.host, port: cfg.port });
  const addr = app.server.address();
  if (typeof addr === 'object' && addr) listeningOn(cfg, addr.port);
  // Now that INTERNAL_URL names this process: what an earlier run at that address left is gone.
  await services.captureSessions.listening();
  logger.info({ url: cfg.publicBaseUrl, db: services.dbKind, dataDir: cfg.dataDir, role: cfg.role }, 'connector service listening');

  let closing = false;
  const stop = async (signal: string) => {
    if (closing) {
      // A second signal: the runs in flight don't get the rest of their grace period.
      logger.info({ signal }, 'shutting down now');
      return void services.runtime.stop();
    }
    closing = true;
    logger.info({ signal }, 'shutting down');
    // Loops first: runs in flight end and waiting sync callers get their answer before the
    // server waits for in-flight requests.
    await services.stop();
    await app.close();
    await services.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * `worker` (ROLE=worker): executes runs from the shared database, serves no HTTP. Any number run
 * beside the API processes (`serve --role api`); README "Scaling guide".
 */
export async function work(cfg: Config): Promise<void> {
  process.umask(0o077);
  const logger = makeLogger(cfg.logLevel, undefined, { bufferBytes: cfg.logBufferBytes });
  const services = await createServices(cfg);
  // The lifecycle lines of the runs it executes (metrics are the API processes' /metrics).
  const metrics = createMetrics({
    runsByStatus: () => services.runtime.store.countByStatus(),
    captureCounts: () => services.captureSessions.counts(),
  });
  services.events.on((e) => observe(logger, metrics, e));
  await services.start();
  logger.info({ db: services.dbKind, concurrency: cfg.runConcurrency }, 'connector worker started');
  // A worker serves no port, its scan and lease timers are unref'ed, and SQLite holds no socket:
  // without this the process would end as soon as it had nothing to do (exit 0 right after start).
  const keepAlive = setInterval(() => {}, 60_000);
  let closing = false;
  const stop = async (signal: string) => {
    if (closing) {
      // A second signal: the runs in flight don't get the rest of their grace period.
      logger.info({ signal }, 'worker shutting down now');
      return void services.runtime.stop();
    }
    closing = true;
    logger.info({ signal }, 'worker shutting down');
    clearInterval(keepAlive);
    // Stops claiming; runs in flight get RUN_SHUTDOWN_GRACE_S to finish, the rest end internal_error.
    await services.stop();
    await services.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
