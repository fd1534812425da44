// The vault's own database: encrypted entries only, never joined with the metadata tables.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const v0001: Migration = {
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
};
