// Capture sessions across processes: the row names the process that holds the session's browser
// (owner_id, a random id per process start, and owner_url, the internal base URL it listens on)
// and that process renews `lease_until` while it lives. Any process forwards browser actions to
// the owner; a session whose lease ran out belongs to a dead process and ends failed. A row in
// state `starting` is a create in flight (it reserves capacity; never shown by the API).
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const m0010: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('capture_sessions').addColumn('owner_id', 'text').execute();
    await db.schema.alterTable('capture_sessions').addColumn('owner_url', 'text').execute();
    await db.schema.alterTable('capture_sessions').addColumn('lease_until', 'text').execute();
    await db.schema.createIndex('capture_sessions_state_lease').on('capture_sessions').columns(['state', 'lease_until']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('capture_sessions_state_lease').ifExists().execute();
    for (const c of ['lease_until', 'owner_url', 'owner_id']) await db.schema.alterTable('capture_sessions').dropColumn(c).execute();
  },
};
