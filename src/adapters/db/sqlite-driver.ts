// Which better-sqlite3 this Node loads. Node 24.19+ aborts the process when a better-sqlite3 12
// Statement is garbage-collected outside a JS context (its node::ObjectWrap destructor removes a
// cleanup hook without an Environment); better-sqlite3 13 no longer uses ObjectWrap and ships
// prebuilt N-API binaries, but segfaults on Node 20. Both are installed (13 under the npm alias
// `better-sqlite3-13`); Node 22 and later load 13, Node 20 loads 12. Same API for both.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export function sqliteDriverPackage(nodeMajor: number = Number(process.versions.node.split('.')[0])): string {
  return nodeMajor >= 22 ? 'better-sqlite3-13' : 'better-sqlite3';
}

export const SQLite: typeof BetterSqlite3 = createRequire(import.meta.url)(sqliteDriverPackage());
