// Versioned migrations of the metadata database, run on every start (idempotent).
// Add a new entry with the next number; never edit one that has shipped.
import { Kysely, sql } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';

const migrations: Record<string, Migration> = {
  '0001_users_keys_secrets_files': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema
        .createTable('secrets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('secret_type', 'text', (c) => c.notNull())
        .addColumn('website', 'text')
        .addColumn('has_totp', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('secrets_user_created').on('secrets').columns(['user_id', 'created_at', 'id']).execute();
      await db.schema
        .createTable('files')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text')
        .addColumn('connector_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('size_bytes', 'bigint', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('crc32c', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('files_user_created').on('files').columns(['user_id', 'created_at', 'id']).execute();
      await db.schema.createIndex('files_user_run').on('files').columns(['user_id', 'run_id']).execute();
    },
    async down(db: Kysely<any>) {
      for (const t of ['files', 'secrets', 'api_keys', 'users']) await db.schema.dropTable(t).ifExists().execute();
    },
  },
};

const vaultMigrations: Record<string, Migration> = {
  '0001_vault_entries': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('vault_entries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .addColumn('kid', 'text', (c) => c.notNull())
        .addColumn('blob', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
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
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** `schema`: the PostgreSQL schema the connection's search_path points at, if not the default. */
export const migrateMetadata = (db: Kysely<any>, schema?: string) => run(db, migrations, 'metadata', schema);
export const migrateVault = (db: Kysely<any>, schema?: string) => run(db, vaultMigrations, 'vault', schema);

/** Used by tests to drop a per-run PostgreSQL schema. */
export async function dropSchema(db: Kysely<any>, schema: string): Promise<void> {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
}
