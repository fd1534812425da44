// Tasks (the task-based family): a description plus, once ready, the connector behind it.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0004: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('tasks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('task', 'text', (c) => c.notNull())
      .addColumn('website', 'text', (c) => c.notNull())
      .addColumn('current_state', 'text', (c) => c.notNull())
      .addColumn('input_schema', 'text')
      .addColumn('output_schema', 'text')
      // JSON of TaskCreation: auto_generate_schemas, secrets, secret_bindings.
      .addColumn('creation', 'text', (c) => c.notNull())
      .addColumn('connector_id', 'text')
      // JSON of the task-based required_secrets, derived from the connector's slots when ready.
      .addColumn('required_secrets', 'text')
      // The manual session in progress, or the one whose recording the task was built from.
      .addColumn('capture_session_id', 'text')
      // While a process synthesizes the task's connector: until when it holds the task (ISO time).
      .addColumn('synthesis_lease', 'text')
      .addColumn('failure_category', 'text')
      .addColumn('failure_message', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('tasks_user_created').on('tasks').columns(['user_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('tasks_state').on('tasks').columns(['current_state']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('tasks').ifExists().execute();
  },
};
