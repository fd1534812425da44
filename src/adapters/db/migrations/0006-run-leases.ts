// Run leases: the process executing a run (or holding a queued run's secret_values in memory)
// renews `lease_until` while it lives. A run whose lease ran out belongs to a dead process and
// ends internal_error; a run another live process executes is never touched.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0006: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('runs').addColumn('lease_until', 'text').execute();
    await db.schema.createIndex('runs_status_lease').on('runs').columns(['status', 'lease_until']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('runs_status_lease').ifExists().execute();
    await db.schema.alterTable('runs').dropColumn('lease_until').execute();
  },
};
