// Statements compiled once per shape (src/adapters/db/shaped-queries.ts): the same SQL for every
// call of a shape, each call's own values in the places of the markers, constants the builder
// bound kept, and a build that drops or invents values refused.
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ShapedQueries } from '../../src/adapters/db/shaped-queries.js';

interface Db {
  runs: { id: string; status: string; lease_until: string | null; progress: string | null };
}

const db = new Kysely<Db>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

const claim = ([lease, ...ids]: readonly unknown[]) =>
  db
    .updateTable('runs')
    .set({ status: 'running', lease_until: lease as string, progress: null })
    .where('id', 'in', ids as string[])
    .where('status', '=', 'pending')
    .compile();

describe('shaped queries', () => {
  it('compiles a shape once and binds each call its own values; constants stay', () => {
    const shaped = new ShapedQueries();
    let builds = 0;
    const build = (v: readonly unknown[]) => {
      builds++;
      return claim(v);
    };
    const a = shaped.compile('claim 2', ['L1', 'r1', 'r2'], build);
    const b = shaped.compile('claim 2', ['L2', 'r3', 'r4'], build);
    expect(builds).toBe(1);
    expect(b.sql).toBe(a.sql);
    // What the builder itself makes of these values, for comparison.
    expect(a).toMatchObject({ sql: claim(['L1', 'r1', 'r2']).sql, parameters: claim(['L1', 'r1', 'r2']).parameters });
    expect(b.parameters).toEqual(['running', 'L2', null, 'r3', 'r4', 'pending']);
    // Another shape is another statement.
    const c = shaped.compile('claim 1', ['L3', 'r5'], build);
    expect(builds).toBe(2);
    expect(c.parameters).toEqual(['running', 'L3', null, 'r5', 'pending']);
  });

  it('refuses a build that does not bind every value', () => {
    const shaped = new ShapedQueries();
    expect(() => shaped.compile('drops one', ['L', 'r1', 'r2'], ([lease, first]) => claim([lease, first]))).toThrow(
      /3 values, but the compiled statement binds 2/,
    );
  });

  it('keeps at most `max` shapes, dropping the oldest', () => {
    const shaped = new ShapedQueries(2);
    let builds = 0;
    const build = (v: readonly unknown[]) => {
      builds++;
      return claim(v);
    };
    shaped.compile('a', ['L', 'x'], build);
    shaped.compile('b', ['L', 'x', 'y'], build);
    shaped.compile('c', ['L', 'x', 'y', 'z'], build);
    shaped.compile('b', ['L', 'x', 'y'], build);
    expect(builds).toBe(3);
    shaped.compile('a', ['L', 'x'], build);
    expect(builds).toBe(4);
  });
});
