// WAL checkpoints off the event loop (src/adapters/db/sqlite-checkpointer.ts), on real files: the
// server's connection no longer checkpoints at 1,000 pages (only at the backstop), the thread copies
// the WAL into the database while writes go on, a stop checkpoints what is left, and a database
// opened by connect() gets one and stops it on close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointerFor, connect } from '../src/adapters/db/connect.js';
import { BACKSTOP_PAGES, startCheckpointer } from '../src/adapters/db/sqlite-checkpointer.js';
import { SQLite } from '../src/adapters/db/sqlite-driver.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function scratch(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-ckpt-'));
  dirs.push(dir);
  return path.join(dir, 'db.sqlite');
}

/** A WAL database with a table of 2 KB rows. */
function open(file: string) {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('create table t (id integer primary key, v text)');
  return db;
}

/** Frames in the WAL and how many of them are in the database file now (a PASSIVE checkpoint of our own would change that: this only reads). */
const walPages = (file: string) => {
  const st = fs.statSync(`${file}-wal`, { throwIfNoEntry: false });
  return st ? Math.max(0, Math.floor((st.size - 32) / (4096 + 24))) : 0;
};

describe('SQLite checkpoints in a worker thread', () => {
  it("takes over from the connection's own checkpoint at 1,000 pages and copies the WAL while writes go on", async () => {
    const file = scratch();
    const db = open(file);
    const seen: { log: number; checkpointed: number }[] = [];
    const c = startCheckpointer(db, file, 50);
    c.onCheckpoint = (r) => seen.push(r);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    const insert = db.prepare('insert into t (v) values (?)');
    // ~3,000 pages of commits, one row each, with the event loop free between bursts.
    for (let burst = 0; burst < 30; burst++) {
      for (let i = 0; i < 200; i++) insert.run('x'.repeat(2000));
      await new Promise((r) => setTimeout(r, 10));
    }
    for (let i = 0; i < 100 && !seen.some((r) => r.checkpointed > 1000); i++) await new Promise((r) => setTimeout(r, 20));
    // The thread checkpointed well past the 1,000 pages at which the connection itself would have.
    expect(Math.max(...seen.map((r) => r.checkpointed))).toBeGreaterThan(1000);
    await c.stop();
    // Its last checkpoint (on stop) copied every frame: another connection reads every row from the database file.
    const [last] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    expect(last!.checkpointed).toBe(last!.log);
    db.close();
    const other = new SQLite(file, { readonly: true });
    expect(other.prepare('select count(*) as n from t').get()).toEqual({ n: 6000 });
    other.close();
  });

  it('without it, the connection checkpoints by itself at 1,000 pages (the control)', () => {
    const file = scratch();
    const db = open(file);
    const insert = db.prepare('insert into t (v) values (?)');
    let most = 0;
    for (let i = 0; i < 6000; i++) {
      insert.run('x'.repeat(2000));
      if (i % 100 === 0) most = Math.max(most, walPages(file));
    }
    // The WAL file keeps its size, but it is reused from the start after each automatic checkpoint.
    expect(most).toBeLessThan(1100);
    db.close();
  });

  it('a database opened by connect() has one, stopped on close', async () => {
    const file = scratch();
    const h = await connect<any>({ url: null, sqlitePath: file });
    const c = checkpointerFor(h.db);
    expect(c).toBeDefined();
    let stopped = false;
    const stop = c!.stop.bind(c);
    c!.stop = () => stop().then(() => void (stopped = true));
    await h.close();
    expect(stopped).toBe(true);
    const off = await connect<any>({ url: null, sqlitePath: scratch(), backgroundCheckpoints: false });
    expect(checkpointerFor(off.db)).toBeUndefined();
    await off.close();
  });
});
