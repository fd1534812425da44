// A text column as a plain value in a condition: tested on the rows found another way (by
// primary key), never a reason to pick an index of its own.
import { sql, type RawBuilder } from 'kysely';

/**
 * Given several ids and a status, SQLite without statistics (nothing here runs ANALYZE) walks the
 * status index, i.e. every row of that status, to find a handful of rows: under a backlog of
 * thousands of pending runs (or due webhook deliveries) each claim cost ≈ 3× more and grew with
 * the backlog. An expression on the column can use no index, in either database
 * (test/sqlite-plans-by-id.test.ts).
 */
export function unindexed(column: string): RawBuilder<string> {
  return sql<string>`${sql.ref(column)} || ''`;
}
