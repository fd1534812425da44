// Capture sessions (CaptureSession). The live view's token is not stored here: it lives
// in the memory of the process that owns the session's browser, and dies with the session.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0003: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('capture_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('browser_session_id', 'text')
      .addColumn('use_proxy', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('start_url', 'text')
      .addColumn('recording_key', 'text')
      .addColumn('recording_size', 'bigint')
      .addColumn('end_reason', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('capture_sessions_user_created').on('capture_sessions').columns(['user_id', 'created_at', 'id']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('capture_sessions').ifExists().execute();
  },
};
