// Run progress ("step n of m"): the latest step a running run's worker reported, as JSON text
// {step, of, label}; written by the executing process's 1 s tick (src/runtime/host/executor.ts)
// and cleared by the terminal write.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0009: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('runs').addColumn('progress', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('runs').dropColumn('progress').execute();
  },
};
