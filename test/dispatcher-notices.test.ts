// Pending runs announced by another process (the notice names them) are queued without reading
// the runs table; a user whose backlog outgrows the per-user bound is read from the table instead,
// in its order, and nothing is lost or run twice. Real runs table (SQLite); the executor is a
// stand-in that ends each run as the real one does, through the store.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/adapters/db/connect.js';
import type { PendingRun } from '../src/adapters/db/run-signals.js';
import type { Database } from '../src/adapters/db/schema.js';
import { EmbeddedDispatcher } from '../src/runtime/host/dispatcher.js';
import { RunStore } from '../src/runtime/host/run-store.js';
import { endingExecutor, pendingRunRow } from './helpers/runs.js';
import { openScratchDb } from './helpers/scratch-db.js';

describe('announced pending runs', () => {
  let h: DbHandle<Database>;
  let store: RunStore;
  const t0 = Date.parse('2026-01-01T00:00:00Z');

  beforeAll(async () => {
    h = await openScratchDb('sqlite');
    store = new RunStore(h.db);
    const now = new Date(t0).toISOString();
    for (const u of ['big', 'small']) {
      await sql`insert into users (id, name, created_at) values (${u}, ${u}, ${now})`.execute(h.db);
    }
  });
  afterAll(async () => {
    await h?.close();
  });

  /** `n` pending runs of `user`, created one millisecond apart from `from`. */
  async function pending(user: string, n: number, from: number): Promise<PendingRun[]> {
    const ids = Array.from({ length: n }, (_, i) => `${user}-${String(from + i).padStart(6, '0')}`);
    // Side by side: the store writes them in batches.
    await Promise.all(
      ids.map((id, i) =>
        store.insert(pendingRunRow({ id, user_id: user, connector_id: 'c', created_at: new Date(t0 + from + i).toISOString() })),
      ),
    );
    return ids.map((id) => ({ id, userId: user, sync: false }));
  }

  it('queues named runs at once, bounds a user backlog, and runs every run once, in order per user', async () => {
    const executed: string[] = [];
    let maxQueued = 0;
    let scans = 0;
    const reading = Object.create(store) as RunStore;
    reading.pending = (perUser, total) => {
      scans++;
      return store.pending(perUser, total);
    };
    const executor = endingExecutor(store, async (runId) => {
      executed.push(runId);
      maxQueued = Math.max(maxQueued, dispatcher.queuedRuns);
      await new Promise((r) => setImmediate(r));
    });
    // No periodic scan during the test: only announcements and the dispatcher's own refills read.
    const dispatcher = new EmbeddedDispatcher({
      store: reading,
      executor,
      concurrency: 4,
      perUser: 4,
      leaseS: 60,
      scanIntervalMs: 600_000,
    });
    await dispatcher.start();
    const scansAtStart = scans;

    const big = await pending('big', 2600, 0);
    const small = await pending('small', 3, 5000);
    // Announced in notices of 100, as they arrive from an API process.
    for (let i = 0; i < big.length; i += 100) dispatcher.wake(big.slice(i, i + 100));
    dispatcher.wake(small);
    await expect.poll(() => executed.length, { timeout: 30_000, interval: 50 }).toBe(2603);
    await dispatcher.close();

    // Every run once.
    expect(new Set(executed).size).toBe(2603);
    const rows = await h.db.selectFrom('runs').select(['status']).where('status', '!=', 'success').execute();
    expect(rows).toEqual([]);
    // The backlog was bounded here (2,000 announced runs per user, plus what a refill read).
    expect(maxQueued).toBeLessThanOrEqual(2000 + 3 + 100);
    // The 600 runs past the bound were read from the table, a few reads, not one per run.
    expect(scans - scansAtStart).toBeGreaterThan(0);
    expect(scans - scansAtStart).toBeLessThan(30);
    // Each user's runs started in the order they were stored.
    const bigOrder = executed.filter((id) => id.startsWith('big-'));
    expect(bigOrder).toEqual([...bigOrder].sort());
    // The small user was not held up behind the backlog: its runs started among the first ones.
    const firstSmall = executed.findIndex((id) => id.startsWith('small-'));
    expect(firstSmall).toBeGreaterThanOrEqual(0);
    expect(firstSmall).toBeLessThan(20);
  }, 60_000);
});
