// Transaction-scoped advisory locks (PostgreSQL): serialize work on a logical key that has no row
// to lock — e.g. one user's run claims, counted and made by several worker processes — until the
// transaction ends. Taken in sorted order, so two transactions never wait on each other crosswise.
import { type Kysely, sql } from 'kysely';

/** Locks each key for the rest of transaction `trx`. */
export type KeyLocks = (trx: Kysely<any>, keys: string[]) => Promise<void>;

export const postgresKeyLocks: KeyLocks = async (trx, keys) => {
  // One statement; unnest yields the sorted array in order, so the locks are taken in that order.
  const sorted = [...new Set(keys)].sort();
  await sql`select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest(${sorted}::text[]) as k`.execute(trx);
};
