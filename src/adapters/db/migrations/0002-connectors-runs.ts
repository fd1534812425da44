// Connectors (one row per connector, one per published version) and runs with their logs.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0002: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('connectors')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('website_host', 'text')
      .addColumn('current_version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .execute();
    await db.schema.createIndex('connectors_user_created').on('connectors').columns(['user_id', 'created_at', 'id']).execute();
    await db.schema
      .createTable('connector_versions')
      .addColumn('connector_id', 'text', (c) => c.notNull().references('connectors.id').onDelete('cascade'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('website', 'text')
      .addColumn('input_schema', 'text', (c) => c.notNull())
      .addColumn('output_schema', 'text', (c) => c.notNull())
      .addColumn('required_secrets', 'text', (c) => c.notNull())
      .addColumn('definition', 'text', (c) => c.notNull())
      .addColumn('engine', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('connector_versions_pk', ['connector_id', 'version'])
      .execute();
    await db.schema
      .createTable('runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('connector_id', 'text', (c) => c.notNull())
      .addColumn('connector_version', 'integer', (c) => c.notNull())
      .addColumn('arguments', 'text', (c) => c.notNull())
      .addColumn('secret_bindings', 'text')
      // 1 when the request carried secret_values: they live only in this process's memory.
      .addColumn('ephemeral_secrets', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('proxy', 'text')
      .addColumn('is_async', 'integer', (c) => c.notNull())
      .addColumn('max_timeout_s', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('result', 'text')
      .addColumn('result_stored', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('result_size_bytes', 'bigint')
      .addColumn('error', 'text')
      .addColumn('has_logs', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .execute();
    await db.schema
      .createIndex('runs_connector_version_created')
      .on('runs')
      .columns(['connector_id', 'connector_version', 'created_at', 'id'])
      .execute();
    await db.schema.createIndex('runs_status_created').on('runs').columns(['status', 'created_at', 'id']).execute();
    await db.schema
      .createTable('run_logs')
      .addColumn('run_id', 'text', (c) => c.primaryKey().references('runs.id').onDelete('cascade'))
      .addColumn('logs', 'text', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>) {
    for (const t of ['run_logs', 'runs', 'connector_versions', 'connectors']) await db.schema.dropTable(t).ifExists().execute();
  },
};
