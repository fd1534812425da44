// Versioned migrations of the metadata database, run on every start (idempotent).
// One file per migration under migrations/; add the next number to the list below and never
// edit one that has shipped.
import { type Kysely, sql } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { m0001 } from './migrations/0001-users-keys-secrets-files.js';
import { m0002 } from './migrations/0002-connectors-runs.js';
import { m0003 } from './migrations/0003-capture-sessions.js';
import { m0004 } from './migrations/0004-tasks.js';
import { m0005 } from './migrations/0005-totp-steps.js';
import { m0006 } from './migrations/0006-run-leases.js';
import { m0007 } from './migrations/0007-webhooks.js';
import { m0008 } from './migrations/0008-run-cancel.js';
import { m0009 } from './migrations/0009-run-progress.js';
import { m0010 } from './migrations/0010-capture-owners.js';
import { m0011 } from './migrations/0011-run-listing-indexes.js';
import { m0012 } from './migrations/0012-running-index.js';
import { v0001 } from './migrations/vault-0001-entries.js';

const migrations: Record<string, Migration> = {
  '0001_users_keys_secrets_files': m0001,
  '0002_connectors_runs': m0002,
  '0003_capture_sessions': m0003,
  '0004_tasks': m0004,
  '0005_totp_steps': m0005,
  '0006_run_leases': m0006,
  '0007_webhooks': m0007,
  '0008_run_cancel': m0008,
  '0009_run_progress': m0009,
  '0010_capture_owners': m0010,
  '0011_run_listing_indexes': m0011,
  '0012_running_index': m0012,
};

const vaultMigrations: Record<string, Migration> = {
  '0001_vault_entries': v0001,
};

class StaticProvider implements MigrationProvider {
  constructor(private readonly m: Record<string, Migration>) {}
  async getMigrations() {
    return this.m;
  }
}

async function run(db: Kysely<any>, m: Record<string, Migration>, table: string, schema?: string): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(m),
    ...(schema ? { migrationTableSchema: schema } : {}),
    migrationTableName: `${table}_migration`,
    migrationLockTableName: `${table}_migration_lock`,
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    // Kysely's table-existence check introspects every schema; a schema another process drops at
    // that moment fails it with 3F000 naming *that* schema. Nothing was migrated: try again.
    const e = error as { code?: string; message?: string } | undefined;
    if (e?.code === '3F000' && attempt < 10 && !(schema && e.message?.includes(`"${schema}"`))) {
      await new Promise((r) => setTimeout(r, 50 * attempt));
      continue;
    }
    if (error) throw error;
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }
}

/** `schema`: the PostgreSQL schema the connection's search_path points at, if not the default. */
export const migrateMetadata = (db: Kysely<any>, schema?: string) => run(db, migrations, 'metadata', schema);
export const migrateVault = (db: Kysely<any>, schema?: string) => run(db, vaultMigrations, 'vault', schema);

/** Used by tests to drop a per-run PostgreSQL schema. */
export async function dropSchema(db: Kysely<any>, schema: string): Promise<void> {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
}
