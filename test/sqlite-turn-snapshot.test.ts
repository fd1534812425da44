// SQLite's sync reads of one event-loop turn share one read transaction (src/adapters/db/connect.ts,
// turnSnapshot): a commit by another connection during the turn shows from the next turn on; a
// query through Kysely (a transaction among them) ends the snapshot first and is seen by the reads
// after it; closing the connection with a snapshot open is clean.
import { afterEach, describe, expect, it } from 'vitest';
import { type DbHandle, syncReaderFor } from '../src/adapters/db/connect.js';
import type { Database } from '../src/adapters/db/schema.js';
import { SQLite } from '../src/adapters/db/sqlite-driver.js';
import { openScratchDb } from './helpers/scratch-db.js';

const nextTurn = () => new Promise((r) => setImmediate(r));
const handles: DbHandle<Database>[] = [];

afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
});

async function database() {
  const h = await openScratchDb('sqlite');
  handles.push(h);
  await h.db.insertInto('users').values({ id: 'u1', name: 'before', created_at: new Date().toISOString() }).execute();
  const read = syncReaderFor(h.db)!;
  const name = () => (read('select name from users where id = ?', ['u1']) as { name: string }[])[0].name;
  return { h, file: h.sqlitePath, name };
}

describe('SQLite: one read snapshot per event-loop turn', () => {
  it("shows another process's commit from the next turn on, not in the middle of one", async () => {
    const { file, name } = await database();
    const other = new SQLite(file);
    try {
      await nextTurn();
      expect(name()).toBe('before');
      // Another connection (as the CLI or a second process would) commits during this turn.
      other.prepare("update users set name = 'after' where id = 'u1'").run();
      expect(name()).toBe('before');
      await nextTurn();
      expect(name()).toBe('after');
    } finally {
      other.close();
    }
  });

  it('ends the snapshot before a query through Kysely: a transaction can begin and later reads see it', async () => {
    const { h, name } = await database();
    await nextTurn();
    expect(name()).toBe('before');
    // Still the same turn (microtasks only): without ending the snapshot, BEGIN would fail here.
    await h.db.transaction().execute((trx) => trx.updateTable('users').set({ name: 'mine' }).where('id', '=', 'u1').execute());
    expect(name()).toBe('mine');
  });

  it('reads wait for Kysely while its transaction holds the connection (never its uncommitted rows)', async () => {
    const { h, name } = await database();
    await nextTurn();
    let inside: string | null = null;
    await h.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ name: 'written' }).where('id', '=', 'u1').execute();
      inside = syncReaderFor(h.db)!('select name from users', []) === null ? 'deferred to Kysely' : 'read';
    });
    expect(inside).toBe('deferred to Kysely');
    expect(name()).toBe('written');
  });

  it('closes cleanly with a snapshot open', async () => {
    const { h, name } = await database();
    await nextTurn();
    expect(name()).toBe('before');
    await h.close();
    handles.splice(handles.indexOf(h), 1);
    await nextTurn(); // the turn's end finds the connection closed: nothing to commit, no throw
  });
});
