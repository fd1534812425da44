// Listing a user's runs (GET /v1beta/runs, optionally of one connector) newest first: without
// these, SQLite scanned the whole runs table (or every run of the connector) and sorted it on each
// page, so one page cost time in proportion to all runs ever stored. With them a page reads its
// rows in index order and stops at the page's end. A status filter walks the user's index.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0011: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('runs_user_created').on('runs').columns(['user_id', 'created_at', 'id']).execute();
    await db.schema
      .createIndex('runs_user_connector_created')
      .on('runs')
      .columns(['user_id', 'connector_id', 'created_at', 'id'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('runs_user_connector_created').ifExists().execute();
    await db.schema.dropIndex('runs_user_created').ifExists().execute();
  },
};
