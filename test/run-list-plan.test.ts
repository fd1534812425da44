// Listing runs reads an index in page order on both databases: the store's own list queries (as
// it compiles them) are explained, and the plan must use an index that yields rows newest first,
// with no sort of the matching rows. Before migration 0011, `GET /v1beta/runs` scanned every run
// of every user and sorted them on each page.
import { CompiledQuery, type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/adapters/db/connect.js';
import type { Database } from '../src/adapters/db/schema.js';
import { RunStore } from '../src/runtime/host/run-store.js';
import { backends } from './helpers/harness.js';
import { openScratchDb } from './helpers/scratch-db.js';

describe.each(await backends())('run listing query plans (%s)', (backend) => {
  let h: DbHandle<Database>;
  /** The queries the store sent, compiled as its executor compiles them. */
  const sent: CompiledQuery[] = [];
  let store: RunStore;

  beforeAll(async () => {
    h = await openScratchDb(backend);
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        sent.push(h.db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    store = new RunStore(h.db.withPlugin(capture));
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The plan of the last query the store sent: SQLite's detail lines, or PostgreSQL's JSON plan. */
  async function planOfLast(): Promise<string> {
    const q = sent.at(-1)!;
    if (backend === 'sqlite') {
      const r = await h.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
      return r.rows.map((x) => x.detail).join('\n');
    }
    // An empty table is cheapest to scan whole: plan as for a large one.
    return h.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const r = await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`explain (format json) ${q.sql}`, [...q.parameters]));
      return JSON.stringify(Object.values(r.rows[0])[0]);
    });
  }

  /** A plan that reads `index` in order and sorts nothing. */
  function expectIndexOrder(plan: string, index: string) {
    expect(plan).toContain(index);
    if (backend === 'sqlite') {
      expect(plan).not.toMatch(/TEMP B-TREE/);
      expect(plan).not.toMatch(/^SCAN runs\b/m);
    } else {
      expect(plan).not.toMatch(/"Node Type":"(Sort|Incremental Sort|Seq Scan)"/);
    }
  }

  it("a user's runs, newest first, read the user's index", async () => {
    await store.listByUser('u1', {}, null, 20);
    expectIndexOrder(await planOfLast(), 'runs_user_created');
    // A later page (a keyset cursor) too.
    await store.listByUser('u1', {}, { sort: 'created_at', order: 'desc', value: new Date().toISOString(), id: 'x' }, 20);
    expectIndexOrder(await planOfLast(), 'runs_user_created');
  });

  it("a user's runs of one connector read the user's connector index", async () => {
    await store.listByUser('u1', { connectorId: 'c1' }, null, 20);
    expectIndexOrder(await planOfLast(), 'runs_user_connector_created');
    await store.listByUser('u1', { connectorId: 'c1', status: 'success' }, null, 20);
    expectIndexOrder(await planOfLast(), 'runs_user_connector_created');
  });

  it('a status filter walks the user index, not every run of that status', async () => {
    await store.listByUser('u1', { status: 'success' }, null, 20);
    const plan = await planOfLast();
    expectIndexOrder(plan, 'runs_user_created');
    expect(plan).not.toContain('runs_status_created');
  });
});
