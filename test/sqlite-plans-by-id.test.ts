// Statements that name several rows by id find them by primary key on SQLite, whatever status they
// test, with the tables as a busy server has them: thousands of ended runs and a backlog of
// thousands pending; thousands of due webhook deliveries. (Without statistics SQLite walked the
// status index, i.e. every row of that status, for a claim or a terminal write of several rows:
// src/adapters/db/unindexed.ts.) The stores' own statements, as they send them, are explained; what
// they do is checked too.
import { CompiledQuery, type Kysely, type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/adapters/db/connect.js';
import type { Database } from '../src/adapters/db/schema.js';
import { RunStore } from '../src/runtime/host/run-store.js';
import { WebhookStore } from '../src/modules/webhooks/store.js';
import { openScratchDb } from './helpers/scratch-db.js';

/**
 * SQLite's plan of a statement, as its lines. The run store compiles its statements once per batch
 * size with markers for the values (shaped-queries.ts), which is what the plugin sees: they are
 * bound as null here. Without statistics (nothing here runs ANALYZE) the plan depends on the SQL
 * text alone.
 */
async function plan(h: DbHandle<Database>, q: CompiledQuery): Promise<string[]> {
  const bindable = q.parameters.map((p) => (p !== null && typeof p === 'object' && !Buffer.isBuffer(p) ? null : p));
  const r = await h.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, bindable));
  return r.rows.map((x) => x.detail);
}

/** The statement's plan reaches `table` by its primary key only. */
async function expectByKey(h: DbHandle<Database>, q: CompiledQuery | undefined, table = 'runs') {
  expect(q).toBeDefined();
  const lines = await plan(h, q!);
  const key = `sqlite_autoindex_${table}_1`;
  expect(lines.filter((l) => ` ${l} `.includes(` ${table} `) && !l.includes(key))).toEqual([]);
  expect(lines.some((l) => l.includes(`SEARCH ${table} USING INDEX ${key} (id=?)`))).toBe(true);
}

/** A scratch SQLite database, seeded by `seed`, and a store over it whose statements are recorded in `sent`. */
function recorded<S>(make: (db: Kysely<Database>) => S, seed: (db: Kysely<Database>) => Promise<unknown>) {
  const t = { sent: [] as CompiledQuery[] } as { h: DbHandle<Database>; sent: CompiledQuery[]; store: S };
  beforeAll(async () => {
    t.h = await openScratchDb('sqlite');
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        t.sent.push(t.h.db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    t.store = make(t.h.db.withPlugin(capture));
    await seed(t.h.db);
  });
  afterAll(async () => {
    await t.h?.close();
  });
  return t;
}

describe('run store statements by id (sqlite plans)', () => {
  // 5,000 ended, 4 running, 3,000 pending.
  const t = recorded(
    (db) => new RunStore(db),
    async (db) => {
      await sql`insert into users (id, name, created_at) values ('u1', 'u1', '2026-01-01')`.execute(db);
      await sql`
        with recursive i(n) as (select 1 union all select n + 1 from i where n < 8004)
        insert into runs (id, user_id, connector_id, connector_version, arguments, ephemeral_secrets, is_async,
          max_timeout_s, status, result_stored, has_logs, created_at)
        select 'r' || substr('000000' || n, -6), 'u1', 'c1', 1, '{}', 0, 1, 60,
          case when n <= 5000 then 'success' when n <= 5004 then 'running' else 'pending' end, 0, 0,
          '2026-01-01T00:00:00.000Z' || n
        from i`.execute(db);
    },
  );

  it('claims several pending runs by key', async () => {
    t.sent.length = 0;
    const { results } = await t.store.claim(
      ['r005010', 'r005011', 'r005012', 'r000001'].map((id) => ({ id, userId: 'u1' })),
      new Date(Date.now() + 60_000).toISOString(),
    );
    expect(results.map((r) => (typeof r === 'object' ? r.status : r))).toEqual(['running', 'running', 'running', 'lost']);
    await expectByKey(
      t.h,
      t.sent.find((q) => q.sql.startsWith('update "runs" set "status"')),
    );
  });

  it('writes the terminal state of several runs by key', async () => {
    t.sent.length = 0;
    const finishedAt = new Date().toISOString();
    const end = (runId: string) =>
      t.store.finish({ runId, status: 'success', result: '{}', resultSizeBytes: 2, error: null, finishedAt, logs: 'done' });
    await Promise.all(['r005001', 'r005002', 'r005003'].map(end));
    const ended = await t.h.db.selectFrom('runs').select('status').where('id', 'in', ['r005001', 'r005002', 'r005003']).execute();
    expect(ended.map((r) => r.status)).toEqual(['success', 'success', 'success']);
    await expectByKey(
      t.h,
      t.sent.find((q) => q.sql.includes('update runs set (status')),
    );
  });

  it('renews leases and reads cancel requests by key', async () => {
    t.sent.length = 0;
    await t.store.renew(['r005004', 'r005010', 'r006000'], new Date(Date.now() + 60_000).toISOString());
    await t.store.cancelRequested(['r005004', 'r005010']);
    await expectByKey(
      t.h,
      t.sent.find((q) => q.sql.startsWith('update "runs" set "lease_until"')),
    );
    await expectByKey(
      t.h,
      t.sent.find((q) => q.sql.includes('"cancel_requested" =')),
    );
  });
});

describe('webhook delivery claims by id (sqlite plans)', () => {
  // 3,000 deliveries due now, of 300 users.
  const t = recorded(
    (db) => new WebhookStore(db),
    async (db) => {
      await sql`
        with recursive i(n) as (select 0 union all select n + 1 from i where n < 299)
        insert into users (id, name, created_at) select 'w' || n, 'w', '2026-01-01' from i`.execute(db);
      await sql`
        with recursive i(n) as (select 1 union all select n + 1 from i where n < 3000)
        insert into webhook_deliveries (id, user_id, subscription_id, event_id, event_type, resource_id, target_url, payload,
          status, attempts, round_attempts, next_attempt_at, created_at, updated_at)
        select 'd' || substr('000000' || n, -6), 'w' || (n % 300), null, 'e' || n, 'run.succeeded', 'r', 'http://127.0.0.1:9/', '{}',
          'pending', 0, 0, '2026-01-01T00:00:00.000Z', '2026-01-01', '2026-01-01'
        from i`.execute(db);
    },
  );

  it('leases the chosen deliveries by key', async () => {
    t.sent.length = 0;
    const claimed = await t.store.claim(4, new Date(Date.now() + 60_000).toISOString(), new Map(), 1);
    expect(claimed).toHaveLength(4);
    expect(new Set(claimed.map((d) => d.user_id)).size).toBe(4);
    await expectByKey(
      t.h,
      t.sent.find((q) => q.sql.startsWith('update "webhook_deliveries" set "lease_until"')),
      'webhook_deliveries',
    );
  });
});
