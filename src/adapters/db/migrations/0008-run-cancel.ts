// Run cancellation: a cancel asked on one process for a run another process executes is a flag
// the executing process reads every second (src/runtime/host/executor.ts). And an index for a
// user's runs across connectors, newest first (the MCP list_runs tool).
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0008: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('runs')
      .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('runs_user_created').ifExists().execute();
    await db.schema.alterTable('runs').dropColumn('cancel_requested').execute();
  },
};
