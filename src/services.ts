// Wires adapters and services from the config: the only place that opens databases and stores.
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import { connect, type DbKind } from './adapters/db/connect.js';
import { migrateMetadata } from './adapters/db/migrations.js';
import type { Database } from './adapters/db/schema.js';
import type { CredentialVault } from './adapters/vault/port.js';
import { createVault } from './adapters/vault/index.js';
import { loadMasterKeyring, type MasterKeyring } from './adapters/vault/master-key.js';
import type { BlobStore } from './adapters/blob/port.js';
import { createBlobStore } from './adapters/blob/index.js';
import { UsersService } from './modules/users/service.js';
import { postgresChangeSignal, sqliteChangeSignal } from './adapters/db/change-signal.js';
import { postgresKeyLocks } from './adapters/db/advisory-locks.js';
import { postgresRunSignals } from './adapters/db/run-signals.js';
import { SecretsService } from './modules/secrets/service.js';
import { FilesService } from './modules/files/service.js';
import { ConnectorsService } from './modules/connectors/service.js';
import { TasksService } from './modules/tasks/service.js';
import { taskPorts } from './modules/tasks/wiring.js';
import { CaptureSessionsService } from './modules/capture-sessions/service.js';
import { captureKeys } from './modules/capture-sessions/forward.js';
import { RunsService, toRunView } from './modules/runs/service.js';
import { WebhooksService } from './modules/webhooks/service.js';
import { taskView } from './modules/tasks/view.js';
import { createRuntime, type Runtime } from './runtime/index.js';
import { SynthesisService } from './modules/connectors/synthesis.js';
import { RecordingLoader } from './modules/connectors/recordings.js';
import { SandboxReplay } from './modules/connectors/replay.js';
import { Egress } from './egress/egress.js';
import { ensurePrivateDataDir } from './adapters/data-dir.js';
import { EventBus } from './lib/events.js';

export interface Services {
  config: Config;
  db: Kysely<Database>;
  dbKind: DbKind;
  keyring: MasterKeyring;
  vault: CredentialVault;
  blobs: BlobStore;
  users: UsersService;
  secrets: SecretsService;
  files: FilesService;
  connectors: ConnectorsService;
  tasks: TasksService;
  runs: RunsService;
  /** Run queue, sandbox pool and browser host (started by the HTTP app). */
  runtime: Runtime;
  captureSessions: CaptureSessionsService;
  /** Where connectors and capture browsers may connect; the app registers its listen address. */
  egress: Egress;
  /** Lifecycle events of runs, capture sessions, synthesis and browsers (the app logs and counts them). */
  events: EventBus;
  /** Subscriptions, the delivery log, and the dispatcher that sends terminal-state events. */
  webhooks: WebhooksService;
  /**
   * Starts the background loops — the run dispatcher, the task and capture sweepers, the capture
   * pool's pre-warm, the webhook dispatcher. Called by the server (and the test harness) before listening; CLI commands
   * that open the services never start them, so they never touch runs or sessions in flight.
   */
  start(): Promise<void>;
  /**
   * Stops the loops: no new run is claimed, runs in flight end and waiting sync callers get their
   * answer, tasks and capture sessions settle. Call before closing the HTTP server.
   */
  stop(): Promise<void>;
  /** Stops the loops if running, then closes the browser, vault and database. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** PostgreSQL schema for this instance (tests isolate runs this way). */
  pgSchema?: string;
  /** The sandbox worker program instead of the built bundle (the attack tests start a forged worker). */
  workerEntry?: string;
}

export async function createServices(config: Config, opts: ServiceOptions = {}): Promise<Services> {
  ensurePrivateDataDir(config.dataDir);
  const handle = await connect<Database>({
    url: config.databaseUrl,
    sqlitePath: path.join(config.dataDir, 'connector.db'),
    pgSchema: opts.pgSchema,
    preparedStatements: config.databasePreparedStatements,
  });
  let users: UsersService | null = null;
  try {
    await migrateMetadata(handle.db, handle.kind === 'postgres' ? opts.pgSchema : undefined);
    const keyring = loadMasterKeyring(config);
    const vault = await createVault(config, keyring, opts);
    const blobs = await createBlobStore(config, keyring.deriveEach('signed-urls'));
    const db = handle.db;
    const usersService = new UsersService(
      db,
      handle.kind === 'postgres' ? postgresChangeSignal(config.databaseUrl!, opts.pgSchema, 'api_keys') : sqliteChangeSignal(db),
    );
    users = usersService;
    const secrets = new SecretsService({ db, vault });
    const files = new FilesService({ db, blobs, config });
    const connectors = new ConnectorsService({ db });
    const egress = await Egress.fromConfig(config);
    // Webhooks: each producer tells of its terminal states inside the transaction that records
    // them (the one port of each: onFinished, onEnded, onSettled), and the event is queued there.
    const webhooks = new WebhooksService({
      db,
      vault,
      egress,
      config,
      subscriptionChanges: handle.kind === 'sqlite' ? sqliteChangeSignal(db) : undefined,
    });
    const checkWebhookUrl = (url: string) => webhooks.checkUrl(url);
    const events = new EventBus();
    const runtime = createRuntime(config, {
      db,
      connectors,
      secrets,
      files,
      egress,
      events,
      workerEntry: opts.workerEntry,
      signals: handle.kind === 'postgres' ? postgresRunSignals(config.databaseUrl!, opts.pgSchema) : undefined,
      userLocks: handle.kind === 'postgres' ? postgresKeyLocks : undefined,
      onFinished: (trx, rows) =>
        webhooks.enqueue(trx, () =>
          rows.map((r) => ({ type: 'run.completed', userId: r.user_id, resourceId: r.id, webhookUrl: r.webhook_url, data: toRunView(r) })),
        ),
    });
    const { proxies, versions } = runtime;
    const runs = new RunsService({
      store: runtime.store,
      launch: runtime.launch,
      cancel: runtime.cancel,
      connectors,
      secrets,
      versions,
      proxies,
      checkWebhookUrl,
      fileExists: async (userId, id) => {
        try {
          await files.get(userId, id);
          return true;
        } catch {
          return false;
        }
      },
    });
    const captureSessions: CaptureSessionsService = new CaptureSessionsService({
      db,
      blobs,
      secrets,
      config,
      egress,
      events,
      totp: runtime.totp,
      checkWebhookUrl,
      keys: captureKeys(keyring),
      onEnded: (trx, row) =>
        webhooks.enqueue(trx, () => [
          {
            type: 'capture_session.completed',
            userId: row.user_id,
            resourceId: row.id,
            webhookUrl: row.webhook_url,
            data: captureSessions.view(row),
          },
        ]),
    });
    // Synthesis (issue 5): recordings from uploads or capture sessions, replayed in the run sandbox.
    connectors.synthesis = new SynthesisService({
      loader: new RecordingLoader({ db, blobs, captures: () => captureSessions }),
      secrets,
      replay: () => new SandboxReplay(runtime),
      events,
    });
    // The task-based family: a thin layer over capture sessions, synthesis and runs.
    const tasks = new TasksService({
      db,
      ports: taskPorts({ connectors, captureSessions, runs }),
      ownsSecret: async (userId, id) => (await secrets.get(userId, id)) !== null,
      checkWebhookUrl,
      onSettled: (trx, row) =>
        webhooks.enqueue(trx, () => [
          { type: 'task.completed', userId: row.user_id, resourceId: row.id, webhookUrl: row.webhook_url, data: taskView(row) },
        ]),
    });
    return {
      config,
      db,
      dbKind: handle.kind,
      keyring,
      vault,
      blobs,
      users: usersService,
      secrets,
      files,
      connectors,
      tasks,
      runs,
      runtime,
      captureSessions,
      egress,
      events,
      webhooks,
      async start() {
        // ROLE=api executes no run (runtime.start is a no-op there); ROLE=worker serves no capture
        // sessions or tasks, which live with the API processes.
        await runtime.start();
        if (config.role === 'worker') return;
        tasks.startSweeper(1000);
        captureSessions.start();
        webhooks.start();
      },
      async stop() {
        await runtime.stop();
        await tasks.close();
        // Last: the loops above may still end runs and tasks (their events stay queued for the next start).
        await webhooks.stop();
      },
      async close() {
        // First: syntheses and finalizing recordings still write to the database and blob store.
        await tasks.close();
        await captureSessions.close();
        await runtime.stop();
        await webhooks.stop();
        await vault.close();
        blobs.close?.();
        await usersService.close();
        await handle.close();
      },
    };
  } catch (e) {
    await users?.close();
    await handle.close();
    throw e;
  }
}
