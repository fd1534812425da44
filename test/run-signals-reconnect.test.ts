// A worker's notices of new runs come over one listening PostgreSQL connection. When that
// connection is cut (a restart, a failover, an idle timeout), runs stored while nobody listened
// are announced to nobody: once LISTEN is back, the dispatcher reads the table at once, so such a
// run starts within the reconnect delay, not at the next periodic scan (here: ten minutes away).
// Likewise for sync callers waiting for a run's end: an end announced during the outage is heard by
// nobody, so every waiter reads its run again once LISTEN is back.
// Real PostgreSQL; the LISTEN backend is ended with pg_terminate_backend.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/adapters/db/connect.js';
import { channelName } from '../src/adapters/db/notify.js';
import { postgresRunSignals, type RunSignals } from '../src/adapters/db/run-signals.js';
import type { Database } from '../src/adapters/db/schema.js';
import { EmbeddedDispatcher } from '../src/runtime/host/dispatcher.js';
import { RunStore } from '../src/runtime/host/run-store.js';
import { backends, PG_URL } from './helpers/harness.js';
import { endingExecutor, pendingRunRow } from './helpers/runs.js';
import { until } from './helpers/processes.js';
import { openScratchDb } from './helpers/scratch-db.js';

const pgOnly = (await backends()).includes('postgres');

describe.runIf(pgOnly)('run notices after the listening connection drops (postgres)', () => {
  let h: DbHandle<Database> & { schema?: string };
  let signals: RunSignals;
  let store: RunStore;
  let dispatcher: EmbeddedDispatcher;
  const executed: string[] = [];
  const heard: ('runs' | 'read')[] = [];

  beforeAll(async () => {
    h = await openScratchDb('postgres');
    await sql`insert into users (id, name, created_at) values ('u1', 'u1', now()::text)`.execute(h.db);
    signals = postgresRunSignals(PG_URL, h.schema);
    store = new RunStore(h.db, undefined, signals);
    const executor = endingExecutor(store, (runId) => executed.push(runId));
    dispatcher = new EmbeddedDispatcher({ store, executor, concurrency: 2, perUser: 2, leaseS: 60, scanIntervalMs: 600_000 });
    await dispatcher.start();
    signals.onPending((runs) => {
      heard.push(runs ? 'runs' : 'read');
      dispatcher.wake(runs);
    });
  });
  afterAll(async () => {
    await dispatcher?.close();
    await signals?.close();
    await h?.close();
  });

  const listeners = async (topic = 'runs_pending') =>
    (await sql<{ pid: number }>`select pid from pg_stat_activity where query = ${`LISTEN ${channelName(topic, h.schema)}`}`.execute(h.db))
      .rows;
  const store1 = (id: string) =>
    store.insert(pendingRunRow({ id, user_id: 'u1', connector_id: 'c', created_at: new Date().toISOString() }));

  it('starts a run stored while nobody listened once LISTEN is back, not at the next scan', async () => {
    // Listening: an announced run is queued from its notice.
    await until('the listener', async () => (await listeners()).length === 1, 10_000);
    await store1('r-announced');
    await signals.announcePending(h.db, { id: 'r-announced', userId: 'u1', sync: false });
    await until('the announced run', () => executed.includes('r-announced'), 10_000);

    // The connection is cut; the read that the drop itself causes finds nothing new.
    const [{ pid }] = await listeners();
    const readsBefore = heard.filter((x) => x === 'read').length;
    await sql`select pg_terminate_backend(${pid})`.execute(h.db);
    await until('the drop', () => heard.filter((x) => x === 'read').length > readsBefore, 10_000);
    await new Promise((r) => setTimeout(r, 100));
    // Stored (and announced) while nobody listens: the notice is lost.
    await store1('r-unheard');
    await signals.announcePending(h.db, { id: 'r-unheard', userId: 'u1', sync: false });
    expect(executed).not.toContain('r-unheard');

    // The listener reconnects (after ~1 s) and the table is read then.
    const t0 = Date.now();
    await until('the run stored during the outage', () => executed.includes('r-unheard'), 10_000);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect((await listeners()).length).toBe(1);
    expect(executed.filter((id) => id === 'r-unheard')).toHaveLength(1);
  }, 30_000);

  it('wakes every caller waiting for a run to end once LISTEN is back', async () => {
    await signals.ended('r-first', 50); // starts the listener of end notices
    await until('the end listener', async () => (await listeners('runs_ended')).length === 1, 10_000);
    let woken = 0;
    const t0 = Date.now();
    // Waits of a minute: only a wake-up ends them within the test.
    const waits = ['r-a', 'r-b'].map((id) => signals.ended(id, 60_000).then(() => woken++));
    await new Promise((r) => setTimeout(r, 300));
    expect(woken).toBe(0);
    const [{ pid }] = await listeners('runs_ended');
    await sql`select pg_terminate_backend(${pid})`.execute(h.db);
    await Promise.all(waits);
    expect(woken).toBe(2);
    expect(Date.now() - t0).toBeLessThan(10_000);
    await until('the end listener back', async () => (await listeners('runs_ended')).length === 1, 10_000);
  }, 30_000);
});
