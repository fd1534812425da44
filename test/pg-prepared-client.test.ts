// The PostgreSQL client names parameterized statements, so each connection parses and plans them
// once: shown by the server's own view of the connection's prepared statements, and by the one
// case where a kept plan can break (a table's columns changed under a `select *`).
import crypto from 'node:crypto';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/adapters/db/connect.js';
import { backends, PG_URL } from './helpers/harness.js';

const pgOnly = (await backends()).includes('postgres');

describe.runIf(pgOnly)('PostgreSQL connections keep prepared statements', () => {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  let h: DbHandle<any>;
  let db: Kysely<any>;

  beforeAll(async () => {
    // One connection: every query below shares it, as a transaction's statements do.
    h = await connect<any>({ url: PG_URL, sqlitePath: '', pgSchema: schema, poolSize: 1 });
    db = h.db;
    await sql`create table items (id text primary key, n int not null)`.execute(db);
    await sql`insert into items values ('a', 1), ('b', 2)`.execute(db);
  });
  afterAll(async () => {
    await sql.raw(`drop schema ${schema} cascade`).execute(db);
    await h.close();
  });

  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map((r) => r.statement);
  const byId = (id: string) => db.executeQuery<{ id: string; n: number }>(CompiledQuery.raw('select * from items where id = $1', [id]));

  it('parses a parameterized statement once per connection and runs it again by name', async () => {
    expect((await byId('a')).rows).toEqual([{ id: 'a', n: 1 }]);
    expect((await byId('b')).rows).toEqual([{ id: 'b', n: 2 }]);
    const texts = await prepared();
    // Listed once, whatever the parameters.
    expect(texts.filter((t) => t === 'select * from items where id = $1')).toHaveLength(1);
    // Statements without parameters (DDL, BEGIN) stay unnamed.
    expect(texts.some((t) => t.startsWith('create table'))).toBe(false);
  });

  it('runs a statement again unnamed when its table changed outside a transaction', async () => {
    await byId('a');
    await sql`alter table items add column label text`.execute(db);
    // The kept plan returns two columns, the table now has three: PostgreSQL refuses the plan
    // (0A000); the query goes again unnamed and sees the new column.
    expect((await byId('a')).rows).toEqual([{ id: 'a', n: 1, label: null }]);
    expect((await byId('b')).rows).toEqual([{ id: 'b', n: 2, label: null }]);
  });

  it('inside a transaction the error stands, and the statement is unnamed on that connection after it', async () => {
    const text = 'select * from items where n = $1';
    await db.executeQuery(CompiledQuery.raw(text, [1]));
    await sql`alter table items add column extra int`.execute(db);
    const inTx = db.transaction().execute(async (trx) => trx.executeQuery(CompiledQuery.raw(text, [1])));
    await expect(inTx).rejects.toMatchObject({ code: '0A000' });
    const after = await db.transaction().execute(async (trx) => trx.executeQuery(CompiledQuery.raw(text, [1])));
    expect(after.rows).toEqual([{ id: 'a', n: 1, label: null, extra: null }]);
  });

  it('prepares nothing when turned off (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    const off = await connect<any>({ url: PG_URL, sqlitePath: '', pgSchema: schema, poolSize: 1, preparedStatements: false });
    try {
      await off.db.executeQuery(CompiledQuery.raw('select * from items where id = $1', ['a']));
      const r = await off.db.executeQuery<{ n: number }>(CompiledQuery.raw('select count(*)::int as n from pg_prepared_statements', []));
      expect(r.rows).toEqual([{ n: 0 }]);
    } finally {
      await off.close();
    }
  });

  it('prepares a statement again once its plan is old, so plans follow the tables as they grow', async () => {
    const young = await connect<any>({ url: PG_URL, sqlitePath: '', pgSchema: schema, poolSize: 1, replanAfterMs: 100 });
    const text = 'select id from items where id = $1 and n > $2';
    const plansMade = async () => {
      const r = await young.db.executeQuery<{ n: number }>(
        CompiledQuery.raw('select (generic_plans + custom_plans)::int as n from pg_prepared_statements where statement = $1', [text]),
      );
      return r.rows[0]?.n;
    };
    try {
      for (let i = 0; i < 3; i++) await young.db.executeQuery(CompiledQuery.raw(text, ['a', 0]));
      expect(await plansMade()).toBe(3);
      await new Promise((r) => setTimeout(r, 150));
      // Inside a transaction too (the claim always runs in one).
      await young.db.transaction().execute((trx) => trx.executeQuery(CompiledQuery.raw(text, ['a', 0])));
      expect(await plansMade()).toBe(1);
      await young.db.executeQuery(CompiledQuery.raw(text, ['b', 0]));
      expect(await plansMade()).toBe(2);
    } finally {
      await young.close();
    }
  });
});
