// Webhooks: per-user subscriptions, the per-user signing secret of per-request webhooks (both
// secrets live in the vault; these tables only point at them), the durable delivery queue with
// its attempt log, and the per-request `webhook_url` of runs, capture sessions and tasks.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0007: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('webhook_subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('url', 'text', (c) => c.notNull())
      // JSON array of event types, or ["*"].
      .addColumn('event_types', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_subscriptions_user_created')
      .on('webhook_subscriptions')
      .columns(['user_id', 'created_at', 'id'])
      .execute();

    // One row per user once the secret exists; `vault_id` names its vault entry (never the value).
    await db.schema
      .createTable('webhook_signing_secrets')
      .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('vault_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      // null: the webhook_url given with the resource's creation request.
      .addColumn('subscription_id', 'text')
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('resource_id', 'text', (c) => c.notNull())
      .addColumn('target_url', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('round_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('lease_token', 'text')
      .addColumn('last_response_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
    await db.schema
      .createIndex('webhook_deliveries_user_created')
      .on('webhook_deliveries')
      .columns(['user_id', 'created_at', 'id'])
      .execute();
    await db.schema.createIndex('webhook_deliveries_subscription').on('webhook_deliveries').columns(['subscription_id']).execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('error', 'text')
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
      .execute();

    for (const t of ['runs', 'capture_sessions', 'tasks']) await db.schema.alterTable(t).addColumn('webhook_url', 'text').execute();
  },
  async down(db: Kysely<any>) {
    for (const t of ['runs', 'capture_sessions', 'tasks']) await db.schema.alterTable(t).dropColumn('webhook_url').execute();
    for (const t of ['webhook_attempts', 'webhook_deliveries', 'webhook_signing_secrets', 'webhook_subscriptions']) {
      await db.schema.dropTable(t).ifExists().execute();
    }
  },
};
