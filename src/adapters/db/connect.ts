// Opens a Kysely instance on SQLite (better-sqlite3, WAL) or PostgreSQL (pg pool).
import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { SQLite } from './sqlite-driver.js';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.js';
import pg from 'pg';
import { REPLAN_AFTER_MS, preparingClient } from './pg-prepared-client.js';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase } from 'kysely';

export type DbKind = 'sqlite' | 'postgres';

export interface DbHandle<T> {
  db: Kysely<T>;
  kind: DbKind;
  close(): Promise<void>;
}

// int8 (COUNT, BIGINT sizes) arrives as a string from pg; our sizes fit in a double.
pg.types.setTypeParser(20, (v: string) => Number(v));

export interface ConnectOptions {
  /** postgres://… URL, or null for SQLite at sqlitePath. */
  url: string | null;
  sqlitePath: string;
  /** PostgreSQL schema to use (created if missing); tests give each run its own. */
  pgSchema?: string;
  poolSize?: number;
  /** PostgreSQL: name parameterized statements so each connection prepares them once (default). */
  preparedStatements?: boolean;
  /** PostgreSQL: how old a kept plan may get before it is made again (pg-prepared-client.ts). */
  replanAfterMs?: number;
  /** SQLite: checkpoint the WAL in a worker thread, off the event loop (default; sqlite-checkpointer.ts). */
  backgroundCheckpoints?: boolean;
}

export async function connect<T>(opts: ConnectOptions): Promise<DbHandle<T>> {
  if (opts.url) {
    const schema = opts.pgSchema;
    if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    if (schema) {
      const c = new pg.Client({ connectionString: opts.url });
      await c.connect();
      try {
        await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      } finally {
        await c.end();
      }
    }
    const pool = new pg.Pool({
      ...(opts.preparedStatements === false ? {} : { Client: preparingClient(opts.replanAfterMs ?? REPLAN_AFTER_MS) }),
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    const db = new Kysely<T>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  fs.mkdirSync(path.dirname(opts.sqlitePath), { recursive: true });
  const sqlite = new SQLite(opts.sqlitePath);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const checkpointer = opts.backgroundCheckpoints === false ? null : startCheckpointer(sqlite, opts.sqlitePath);
  const snapshot = turnSnapshot(sqlite);
  const cached = withStatementCache(sqlite, snapshot);
  const db = new Kysely<T>({ dialect: new SqliteDialect({ database: cached }) });
  syncReaders.set(db, rawRowReader(sqlite, snapshot));
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  dataVersions.set(db, () => dataVersion.get() as number);
  if (checkpointer) checkpointers.set(db, checkpointer);
  return {
    db,
    kind: 'sqlite',
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/**
 * The sync reader's statements run in raw mode (rows as arrays) and build each row with a function
 * made once per statement from its column names: an object literal of a fixed shape, about 1 µs
 * less per row than better-sqlite3's own objects, whose keys it interns and sets one by one.
 * Same result (a repeated column name: the last one wins, as there). Its own statements, bounded
 * like the cache above: raw mode is a statement's state and Kysely's statements must not get it.
 */
function rawRowReader(sqlite: BetterSqlite3.Database, snapshot: TurnSnapshot, max = 500): SyncReader {
  const cache = new Map<string, { stmt: BetterSqlite3.Statement; row: (values: unknown[]) => object }>();
  return (text, params) => {
    if (!snapshot.enter()) return null;
    let e = cache.get(text);
    if (!e || e.stmt.busy) {
      const stmt = sqlite.prepare(text).raw(true);
      const fields = stmt.columns().map((c, i) => `${JSON.stringify(c.name)}: v[${i}]`);
      e = { stmt, row: new Function('v', `return { ${fields.join(', ')} };`) as (values: unknown[]) => object };
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
      cache.set(text, e);
    }
    return (e.stmt.all(params) as unknown[][]).map(e.row);
  };
}

interface TurnSnapshot {
  /** Opens (or joins) this turn's read transaction; false while a Kysely transaction holds the connection. */
  enter(): boolean;
  /** Ends the read transaction, if one is open. */
  end(): void;
}

/**
 * The sync reads of one event-loop turn share one read transaction. Outside a transaction every
 * statement takes and drops SQLite's shared file lock (file-lock system calls, the WAL index):
 * more than the lookup of a row by its key. Under load one turn answers dozens of requests,
 * all of which arrived before it began, so one snapshot taken at the turn's first read serves
 * them as well as their own would; a commit by another process during the turn is seen from the
 * next one (the bound the key cache's data_version check has too, change-signal.ts). Any query
 * through Kysely ends the snapshot first: a write, or a read after one, sees what is committed.
 */
function turnSnapshot(sqlite: BetterSqlite3.Database): TurnSnapshot {
  const begin = sqlite.prepare('BEGIN');
  const commit = sqlite.prepare('COMMIT');
  let open = false;
  const end = () => {
    if (!open) return;
    open = false;
    if (sqlite.open && sqlite.inTransaction) commit.run();
  };
  return {
    enter() {
      if (open) return true;
      if (sqlite.inTransaction) return false;
      begin.run();
      open = true;
      setImmediate(end);
      return true;
    },
    end,
  };
}

const dataVersions = new WeakMap<object, () => number>();

/**
 * SQLite's data_version: a number that changes when ANOTHER connection (another process, the CLI)
 * committed to the database since this connection last looked; this connection's own commits
 * leave it alone. A microsecond check that tells an in-process cache whether it can be stale.
 */
export function dataVersionFor(db: object): (() => number) | undefined {
  return dataVersions.get(db);
}

/** Runs a read synchronously on the SQLite connection, or null when it must go through Kysely. */
export type SyncReader = (sql: string, params: readonly unknown[]) => unknown[] | null;
const syncReaders = new WeakMap<object, SyncReader>();

const checkpointers = new WeakMap<object, Checkpointer>();
/** The WAL checkpointer of a SQLite database opened by connect() (tests watch it). */
export function checkpointerFor(db: object): Checkpointer | undefined {
  return checkpointers.get(db);
}

/**
 * SQLite reads can skip Kysely's connection queue (a few async hops per query) — except while a
 * transaction holds the one connection, whose uncommitted writes a reader must not see.
 */
export function syncReaderFor(db: object): SyncReader | undefined {
  return syncReaders.get(db);
}

/**
 * Kysely prepares every query afresh; preparing costs as much as running a small query, so
 * keep the prepared statements by SQL text (SQLite re-prepares a cached statement by itself after
 * a schema change). Kysely's SQLite driver runs one query at a time on its single connection.
 * Bounded: the oldest entries go first.
 */
function withStatementCache(
  sqlite: BetterSqlite3.Database,
  snapshot: TurnSnapshot,
  max = 500,
): SqliteDatabase & { prepare(sql: string): BetterSqlite3.Statement } {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      snapshot.end();
      sqlite.close();
    },
    prepare(text: string) {
      // Kysely's queries (writes among them) see everything committed so far, and may begin a transaction.
      snapshot.end();
      let stmt = cache.get(text);
      // A statement still being iterated (a streamed query) can't run again: prepare another.
      if (!stmt || stmt.busy) {
        stmt = sqlite.prepare(text);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(text, stmt);
      }
      return stmt;
    },
  };
}
