// The claim on PostgreSQL (per-user limit across workers) stays cheap as the runs table grows: it
// finds the requested runs by primary key and counts the user's running runs in the partial index
// of running rows (migration 0012), never walking the user's whole history or every entry of the
// status index. The store's own claim, as it sends it, is explained with the table in a state
// like a busy server's: thousands of ended runs, a few running, some pending. And it holds the
// per-user limit against a claim of another worker in flight (the lock, then a fresh snapshot).
import { CompiledQuery, type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresKeyLocks } from '../src/adapters/db/advisory-locks.js';
import type { DbHandle } from '../src/adapters/db/connect.js';
import type { Database } from '../src/adapters/db/schema.js';
import { RunStore } from '../src/runtime/host/run-store.js';
import { backends } from './helpers/harness.js';
import { openScratchDb } from './helpers/scratch-db.js';

const pgOnly = (await backends()).includes('postgres');

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const flatten = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(flatten)];

describe.runIf(pgOnly)('the claim on PostgreSQL: its plan, and the per-user limit across workers', () => {
  let h: DbHandle<Database>;
  const sent: CompiledQuery[] = [];
  let store: RunStore;

  beforeAll(async () => {
    h = await openScratchDb('postgres');
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        sent.push(h.db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    store = new RunStore(h.db.withPlugin(capture), undefined, undefined, postgresKeyLocks);
    await sql`insert into users (id, name, created_at) values ('u1', 'u1', now()::text)`.execute(h.db);
    // 5,000 ended runs, 6 running, 20 pending, all of one user.
    await sql`insert into runs (id, user_id, connector_id, connector_version, arguments, ephemeral_secrets, is_async,
        max_timeout_s, status, result_stored, has_logs, created_at)
      select 'r' || lpad(i::text, 6, '0'), 'u1', 'c1', 1, '{}', 0, 1, 60,
        case when i <= 5000 then 'success' when i <= 5006 then 'running' else 'pending' end, 0, 0,
        (timestamp '2026-01-01' + i * interval '1 second')::text
      from generate_series(1, 5026) as i`.execute(h.db);
    await sql`analyze runs`.execute(h.db);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('finds the runs by key and counts the running ones in the running index', async () => {
    const ids = ['r005007', 'r005008', 'r005009'];
    sent.length = 0;
    const { results } = await store.claim(
      ids.map((id) => ({ id, userId: 'u1' })),
      new Date(Date.now() + 60_000).toISOString(),
      8,
    );
    expect(results.filter((r) => typeof r === 'object')).toHaveLength(2); // 6 running + 2 = the limit
    // The read (named runs, running count) and the update of the runs that fit, as sent.
    const statements = sent.filter((q) => /from runs where id = any|^\s*update runs set status = 'running'/.test(q.sql));
    expect(statements).toHaveLength(2);
    const nodes: PlanNode[] = [];
    for (const q of statements) {
      const r = await h.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        CompiledQuery.raw(`explain (format json) ${q.sql}`, [...q.parameters]),
      );
      nodes.push(...flatten(r.rows[0]['QUERY PLAN'][0].Plan));
    }
    const onRuns = nodes.filter((n) => n['Relation Name'] === 'runs');
    const indexes = new Set(onRuns.map((n) => n['Index Name']));
    expect(indexes).toContain('runs_running_user');
    expect(indexes).toContain('runs_pkey');
    // Neither the whole table, nor the user's whole history, nor every entry of a status.
    expect(onRuns.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    expect(indexes).not.toContain('runs_user_created');
    expect(indexes).not.toContain('runs_status_lease');
  });

  it("waits for another worker's claim of the same user and counts the runs it claimed", async () => {
    // u2: 6 running, 6 pending; the limit is 8.
    await sql`insert into users (id, name, created_at) values ('u2', 'u2', now()::text)`.execute(h.db);
    await sql`insert into runs (id, user_id, connector_id, connector_version, arguments, ephemeral_secrets, is_async,
        max_timeout_s, status, result_stored, has_logs, created_at)
      select 'q' || i, 'u2', 'c1', 1, '{}', 0, 1, 60, case when i <= 6 then 'running' else 'pending' end, 0, 0,
        (timestamp '2026-01-01' + i * interval '1 second')::text
      from generate_series(1, 12) as i`.execute(h.db);
    const lease = new Date(Date.now() + 60_000).toISOString();
    let claim: ReturnType<RunStore['claim']> | undefined;
    let settled = false;
    // Another worker's claim in flight: it holds u2's lock (the key RunStore.claim takes) and claims
    // q7 and q8, reaching the limit. This claim must wait for it, then see those two running.
    await h.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended('runs-of:u2', 0))`.execute(trx);
      await sql`update runs set status = 'running' where id in ('q7', 'q8')`.execute(trx);
      claim = store.claim(
        ['q9', 'q10', 'q11'].map((id) => ({ id, userId: 'u2' })),
        lease,
        8,
      );
      void claim.then(() => (settled = true));
      await new Promise((r) => setTimeout(r, 500));
      expect(settled).toBe(false);
    });
    const { results } = await claim!;
    expect(results).toEqual(['capped', 'capped', 'capped']);
    const running = await sql<{ n: number }>`select count(*)::int as n from runs where user_id = 'u2' and status = 'running'`.execute(h.db);
    expect(running.rows[0]!.n).toBe(8);
    // With room again (one ended), the next claim takes one run.
    await sql`update runs set status = 'success' where id = 'q1'`.execute(h.db);
    const again = await store.claim([{ id: 'q9', userId: 'u2' }], lease, 8);
    expect(again.results.map((r) => (typeof r === 'object' ? r.id : r))).toEqual(['q9']);

    // A run the other worker claims while this claim waits is left to it; the claim takes another.
    let both: ReturnType<RunStore['claim']> | undefined;
    await h.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended('runs-of:u2', 0))`.execute(trx);
      both = store.claim(
        ['q10', 'q11'].map((id) => ({ id, userId: 'u2' })),
        lease,
        11, // 8 running + the other's q10: room for one more besides
      );
      await new Promise((r) => setTimeout(r, 300));
      await sql`update runs set status = 'running', lease_until = 'other' where id = 'q10'`.execute(trx);
    });
    const taken = (await both!).results.map((r) => (typeof r === 'object' ? r.id : r));
    expect(taken).toEqual(['lost', 'q11']);
    const q10 = await sql<{ lease_until: string }>`select lease_until from runs where id = 'q10'`.execute(h.db);
    expect(q10.rows[0]!.lease_until).toBe('other');
  });
});
