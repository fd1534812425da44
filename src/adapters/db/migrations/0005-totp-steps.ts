// The TOTP step ledger: which 30 s steps of which TOTP seed this service has already handed a code
// for (codes are single-use on most sites). Keyed by a hash of the seed, never the seed itself;
// the primary key is what makes a claim exclusive across processes sharing one database.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0005: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('totp_steps')
      .addColumn('seed_hash', 'text', (c) => c.notNull())
      .addColumn('step', 'integer', (c) => c.notNull())
      .addColumn('claimed_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('totp_steps_pk', ['seed_hash', 'step'])
      .execute();
    await db.schema.createIndex('totp_steps_step').on('totp_steps').columns(['step']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('totp_steps').ifExists().execute();
  },
};
