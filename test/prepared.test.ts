// Compiled-once hot-path queries (src/adapters/db/prepared.ts) on both databases: arguments land
// in the right places, constants stay, and a read never sees another operation's uncommitted rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/adapters/db/connect.js';
import { prepared } from '../src/adapters/db/prepared.js';
import type { Database } from '../src/adapters/db/schema.js';
import { backends } from './helpers/harness.js';
import { openScratchDb } from './helpers/scratch-db.js';

const list = await backends();

describe.each(list)('prepared queries (%s)', (backend) => {
  let h: DbHandle<Database>;

  beforeAll(async () => {
    h = await openScratchDb(backend);
    const now = new Date().toISOString();
    await h.db
      .insertInto('users')
      .values([
        { id: 'u1', name: 'one', created_at: now },
        { id: 'u2', name: 'two', created_at: now },
      ])
      .execute();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('binds each argument to its placeholder and keeps constant parameters', async () => {
    const byIdAndName = prepared<Database, { id: string }, [string, string]>(h.db, (p) =>
      // Argument 1 is used before argument 0, and a constant sits between them.
      h.db.selectFrom('users').select('id').where('name', '=', p(1)).where('name', '!=', 'nobody').where('id', '=', p(0)),
    );
    expect(await byIdAndName('u1', 'one')).toEqual([{ id: 'u1' }]);
    expect(await byIdAndName('u2', 'two')).toEqual([{ id: 'u2' }]);
    expect(await byIdAndName('u1', 'two')).toEqual([]);
  });

  it('gives the same rows as a query through Kysely: every column, nulls, a repeated column name (the last wins)', async () => {
    const now = new Date().toISOString();
    await h.db
      .insertInto('api_keys')
      .values({ id: 'k1', user_id: 'u1', key_hash: 'h1', prefix: 'cs_', name: 'key-one', created_at: now, revoked_at: null })
      .execute();
    const joined = (q: any) =>
      q
        .selectFrom('api_keys')
        .innerJoin('users', 'users.id', 'api_keys.user_id')
        .selectAll('api_keys')
        .select(['users.name', 'users.created_at']);
    const fast = prepared<Database, Record<string, unknown>, [string]>(h.db, (p) => joined(h.db).where('api_keys.id', '=', p(0)));
    const rows = await fast('k1');
    expect(rows).toEqual(await joined(h.db).where('api_keys.id', '=', 'k1').execute());
    expect(rows[0]).toMatchObject({ id: 'k1', user_id: 'u1', name: 'one', revoked_at: null });
    expect(await fast('none')).toEqual([]);
  });

  it('does not see rows of a transaction that has not committed', async () => {
    const byId = prepared<Database, { id: string }, [string]>(h.db, (p) => h.db.selectFrom('users').select('id').where('id', '=', p(0)));
    let seenInside: unknown[] = ['not run'];
    await h.db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('users').values({ id: 'u3', name: 'three', created_at: new Date().toISOString() }).execute();
        // A concurrent request reading while the transaction is open (SQLite: same connection).
        const pending = byId('u3');
        seenInside =
          backend === 'postgres'
            ? await pending
            : await Promise.race([pending, new Promise<unknown[]>((r) => setTimeout(() => r(['waited']), 50))]);
        throw new Error('roll back');
      })
      .catch(() => {});
    // SQLite: the read waits for the connection instead of reading uncommitted rows.
    expect(seenInside).toEqual(backend === 'postgres' ? [] : ['waited']);
    expect(await byId('u3')).toEqual([]);
    expect(await byId('u1')).toEqual([{ id: 'u1' }]);
  });
});
