// A migrated database of its own for a test that talks to the store layer directly (no app):
// a SQLite file in a temp dir, or a fresh schema on the test PostgreSQL. `close` removes it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type DbHandle } from '../../src/adapters/db/connect.js';
import { dropSchema, migrateMetadata } from '../../src/adapters/db/migrations.js';
import type { Database } from '../../src/adapters/db/schema.js';
import { type Backend, PG_URL } from './harness.js';

/**
 * `schema`: the PostgreSQL schema (for listeners and notices on its channels); `sqlitePath`: the
 * SQLite file (for a second connection, as another process would open).
 */
export async function openScratchDb(backend: Backend): Promise<DbHandle<Database> & { schema?: string; sqlitePath: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-scratch-'));
  const schema = backend === 'postgres' ? `t_${crypto.randomBytes(6).toString('hex')}` : undefined;
  const sqlitePath = path.join(dir, 'db.sqlite');
  const h = await connect<Database>({ url: schema ? PG_URL : null, sqlitePath, pgSchema: schema });
  await migrateMetadata(h.db, schema);
  return {
    ...h,
    schema,
    sqlitePath,
    close: async () => {
      if (schema) await dropSchema(h.db, schema);
      await h.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
