// Hot-path queries compiled once. Building and compiling a Kysely query costs several times
// more than running it on SQLite (≈8 µs vs ≈1-4 µs here), so the per-request lookups (API key,
// resource by id) are built once with placeholder values and then run with fresh parameters.
// Only for reads (SELECT): on SQLite they may run synchronously outside Kysely's queue, and then
// the rows come back as a value, not a promise (a promise per step is a measurable share of a
// request that does nothing else): callers handle both, e.g. with `andThen`.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import { syncReaderFor } from './connect.js';

const MARK = '\u0000param:';

export type MaybePromise<T> = T | Promise<T>;

/** `f(v)` now when `v` is a value, once it resolves when it is a promise. */
export function andThen<T, U>(v: MaybePromise<T>, f: (v: T) => U): MaybePromise<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

/**
 * `build(p)` builds the query using `p(i)` wherever argument i goes; the result runs it with
 * real arguments. Works on every dialect because only the parameter list changes.
 */
export function prepared<DB, Row, Args extends unknown[]>(
  db: Kysely<DB>,
  build: (p: (i: number) => any) => Compilable<Row>,
): (...args: Args) => MaybePromise<Row[]> {
  const compiled = build((i) => `${MARK}${i}`).compile();
  const slots = compiled.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? Number(v.slice(MARK.length)) : -1));
  const syncRead = syncReaderFor(db);
  return (...args: Args) => {
    const parameters = slots.map((slot, k) => (slot >= 0 ? args[slot] : compiled.parameters[k]));
    const rows = syncRead?.(compiled.sql, parameters);
    if (rows) return rows as Row[];
    return db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters)).then((r) => r.rows);
  };
}
