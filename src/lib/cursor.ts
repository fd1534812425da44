// Keyset pagination with opaque cursors: base64url(JSON [sort, order, value, id]).
// Stable under inserts: a walk visits each item that existed at its start exactly once,
// because the position is a (sort value, id) pair, not an offset.
import { invalid } from './errors.js';

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface Cursor {
  sort: string;
  order: 'asc' | 'desc';
  value: string | number;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.order, c.value, c.id])).toString('base64url');
}

/**
 * Decodes a cursor made for the same sort and order; anything else is a 422 at ["query","cursor"].
 * A cursor is client input: its value must have the sort column's kind (a string for text
 * columns, a safe integer for `size_bytes`) and no NUL byte, or the database would fail on it.
 */
export function decodeCursor(
  raw: string | undefined,
  sort: string,
  order: 'asc' | 'desc',
  valueKind: 'string' | 'integer' = 'string',
): Cursor | null {
  if (raw === undefined) return null;
  const bad = (why: string) => invalid(['query', 'cursor'], `Invalid cursor: ${why}`, 'value_error', { input: raw });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw bad('not a cursor returned by this endpoint');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    typeof parsed[0] !== 'string' ||
    (parsed[1] !== 'asc' && parsed[1] !== 'desc') ||
    (typeof parsed[2] !== 'string' && typeof parsed[2] !== 'number') ||
    typeof parsed[3] !== 'string'
  ) {
    throw bad('not a cursor returned by this endpoint');
  }
  if (parsed[0] !== sort || parsed[1] !== order) throw bad(`it was issued for sort=${String(parsed[0]).slice(0, 40)}&order=${parsed[1]}`);
  const kindOk = valueKind === 'integer' ? Number.isSafeInteger(parsed[2]) : typeof parsed[2] === 'string';
  if (!kindOk || String(parsed[2]).includes('\0') || parsed[3].includes('\0')) throw bad('not a cursor returned by this endpoint');
  return { sort, order, value: parsed[2], id: parsed[3] };
}

/** Given limit+1 rows fetched in order, builds the page and the cursor after its last item. */
export function toPage<R extends { id: string }, T>(
  rows: R[],
  limit: number,
  sort: string,
  order: 'asc' | 'desc',
  sortValue: (r: R) => string | number,
  map: (r: R) => T,
): Page<T> {
  const has_more = rows.length > limit;
  const items = has_more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    data: items.map(map),
    has_more,
    next_cursor: has_more && last ? encodeCursor({ sort, order, value: sortValue(last), id: last.id }) : null,
  };
}

/**
 * Kysely filter for "after the cursor" on (column, id) in the given order. Use inside
 * `.where((eb) => afterCursor(eb, 'created_at', cursor))`; `idColumn` names a qualified id in joins.
 */
export function afterCursor(eb: any, column: string, c: Cursor, idColumn = 'id'): any {
  const op = c.order === 'desc' ? '<' : '>';
  return eb.or([eb(column, op, c.value), eb.and([eb(column, '=', c.value), eb(idColumn, op, c.id)])]);
}
