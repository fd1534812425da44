// WAL checkpoints of a SQLite database, off the event loop. By default SQLite checkpoints inside
// the commit that takes the WAL past 1,000 pages. That commit then copies those pages into the
// database file and syncs both files before it returns, all on the server's one thread: under
// bench/workers.ts, about 1 commit in 75 took 4 ms instead of 0.1 ms, a quarter of the time SQLite
// spent on the run path. Here a worker thread with its own connection runs a PASSIVE checkpoint
// every CHECKPOINT_EVERY_MS. PASSIVE waits for no reader or writer: it copies what the oldest open
// read allows, and the server's writes go on meanwhile. The server's own connection keeps an
// automatic checkpoint only as a backstop (BACKSTOP_PAGES) in case this thread falls behind or dies.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { sqliteDriverPackage } from './sqlite-driver.js';

export const CHECKPOINT_EVERY_MS = 200;
/** The server connection's own automatic checkpoint (pages, 4 KB each): only if the thread lags. */
export const BACKSTOP_PAGES = 20_000;

// CommonJS evaluated in the thread: no file to resolve, whether the server runs from TypeScript
// sources or from its build. The driver is the one the server loads (sqlite-driver.ts).
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
// Told to the parent only when a checkpoint copied something new: an idle server's WAL keeps its
// frames, and a message every tick would wake its event loop for nothing.
let told = -1;
const checkpoint = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r.log > 0 && r.checkpointed !== told) parentPort.postMessage({ log: r.log, checkpointed: (told = r.checkpointed) });
  } catch {
    // SQLITE_BUSY (another connection checkpoints now): the next tick tries again.
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Resolves after the thread's last checkpoint, once it has closed its connection. */
  stop(): Promise<void>;
  /** Each checkpoint's outcome (tests watch the WAL being copied). */
  onCheckpoint?: (r: { log: number; checkpointed: number }) => void;
}

/** Starts checkpointing `path` in a worker thread and lowers `sqlite`'s own automatic checkpoint to a backstop. */
export function startCheckpointer(sqlite: BetterSqlite3.Database, path: string, everyMs = CHECKPOINT_EVERY_MS): Checkpointer {
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const driver = createRequire(import.meta.url).resolve(sqliteDriverPackage());
  const worker = new Worker(THREAD, { eval: true, workerData: { driver, path, everyMs }, stdout: false, stderr: false });
  // Never what keeps the process alive.
  worker.unref();
  let stopped: Promise<void> | null = null;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const c: Checkpointer = {
    stop: () =>
      (stopped ??= (async () => {
        worker.postMessage('stop');
        // A thread stuck in a checkpoint (a slow disk) is ended after a while: its PASSIVE
        // checkpoint leaves the database whole whenever it is interrupted.
        const t = setTimeout(() => void worker.terminate(), 5000);
        await exited;
        clearTimeout(t);
      })()),
  };
  worker.on('message', (m: { log: number; checkpointed: number }) => c.onCheckpoint?.(m));
  // A thread that fails (its driver can't load here) leaves the backstop doing the work.
  worker.on('error', () => sqlite.open && sqlite.pragma('wal_autocheckpoint = 1000'));
  return c;
}
