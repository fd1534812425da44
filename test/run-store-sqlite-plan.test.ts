// The run store's statements that name runs by id find them by primary key on SQLite, whatever the
// status they test, with the table as a busy server has it: thousands of ended runs and a backlog
// of thousands pending. (Without statistics SQLite walked the status index, i.e. every pending run,
// for a claim or a terminal write of several runs.) The store's own statements, as it sends them,
// are explained; the claims and writes themselves are checked too.
import { CompiledQuery, type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/adapters/db/connect.js';
import type { Database } from '../src/adapters/db/schema.js';
import { RunStore } from '../src/runtime/host/run-store.js';
import { openScratchDb } from './helpers/scratch-db.js';

describe('run store statements by id (sqlite plans)', () => {
  let h: DbHandle<Database>;
  const sent: CompiledQuery[] = [];
  let store: RunStore;

  beforeAll(async () => {
    h = await openScratchDb('sqlite');
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        sent.push(h.db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    store = new RunStore(h.db.withPlugin(capture));
    await sql`insert into users (id, name, created_at) values ('u1', 'u1', '2026-01-01')`.execute(h.db);
    // 5,000 ended, 4 running, 3,000 pending.
    await sql`
      with recursive i(n) as (select 1 union all select n + 1 from i where n < 8004)
      insert into runs (id, user_id, connector_id, connector_version, arguments, ephemeral_secrets, is_async,
        max_timeout_s, status, result_stored, has_logs, created_at)
      select 'r' || substr('000000' || n, -6), 'u1', 'c1', 1, '{}', 0, 1, 60,
        case when n <= 5000 then 'success' when n <= 5004 then 'running' else 'pending' end, 0, 0,
        '2026-01-01T00:00:00.000Z' || n
      from i`.execute(h.db);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** SQLite's plan of a statement the store sent, as its lines. */
  async function plan(q: CompiledQuery): Promise<string[]> {
    const r = await h.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
    return r.rows.map((x) => x.detail);
  }

  async function expectByKey(q: CompiledQuery | undefined) {
    expect(q).toBeDefined();
    const lines = await plan(q!);
    expect(lines.filter((l) => / runs /.test(` ${l} `) && !l.includes('sqlite_autoindex_runs_1'))).toEqual([]);
    expect(lines.some((l) => l.includes('SEARCH runs USING INDEX sqlite_autoindex_runs_1 (id=?)'))).toBe(true);
  }

  it('claims several pending runs by key', async () => {
    sent.length = 0;
    const { results } = await store.claim(
      ['r005010', 'r005011', 'r005012', 'r000001'].map((id) => ({ id, userId: 'u1' })),
      new Date(Date.now() + 60_000).toISOString(),
    );
    expect(results.map((r) => (typeof r === 'object' ? r.status : r))).toEqual(['running', 'running', 'running', 'lost']);
    await expectByKey(sent.find((q) => q.sql.startsWith('update "runs" set "status"')));
  });

  it('writes the terminal state of several runs by key', async () => {
    sent.length = 0;
    const finishedAt = new Date().toISOString();
    const end = (runId: string) =>
      store.finish({ runId, status: 'success', result: '{}', resultSizeBytes: 2, error: null, finishedAt, logs: 'done' });
    await Promise.all(['r005001', 'r005002', 'r005003'].map(end));
    const ended = await h.db.selectFrom('runs').select('status').where('id', 'in', ['r005001', 'r005002', 'r005003']).execute();
    expect(ended.map((r) => r.status)).toEqual(['success', 'success', 'success']);
    await expectByKey(sent.find((q) => q.sql.includes('update runs set (status')));
  });

  it('renews leases and reads cancel requests by key', async () => {
    sent.length = 0;
    await store.renew(['r005004', 'r005010', 'r006000'], new Date(Date.now() + 60_000).toISOString());
    await store.cancelRequested(['r005004', 'r005010']);
    await expectByKey(sent.find((q) => q.sql.startsWith('update "runs" set "lease_until"')));
    await expectByKey(sent.find((q) => q.sql.includes('"cancel_requested" =')));
  });
});
