// SQL of capture sessions. State changes are conditional updates (`where state = …`), so two
// concurrent requests can never both move a session out of the same state.
import type { Kysely } from 'kysely';
import type { CaptureSessionsTable, Database } from '../../adapters/db/schema.js';
import { nowIso } from '../../lib/ids.js';

export type CaptureState = CaptureSessionsTable['state'];
export type CaptureRow = CaptureSessionsTable;

/** States a session never leaves. */
export const ENDED: readonly CaptureState[] = ['completed', 'abandoned', 'failed'];

/** Told of a session that ended, inside the transaction that recorded it (webhooks). */
export type SessionEnded = (trx: Kysely<Database>, row: CaptureRow) => Promise<void>;

export class CaptureRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly onEnded?: SessionEnded,
  ) {}

  insert(row: CaptureRow) {
    return this.db.insertInto('capture_sessions').values(row).execute();
  }

  get(userId: string, id: string): Promise<CaptureRow | undefined> {
    return this.db.selectFrom('capture_sessions').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  }

  byId(id: string): Promise<CaptureRow | undefined> {
    return this.db.selectFrom('capture_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(userId: string): Promise<CaptureRow[]> {
    return this.db
      .selectFrom('capture_sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /** Moves `id` from one of `from` to `to` with `patch`; the updated row, or null if the state was different. */
  async transition(id: string, from: CaptureState[], to: CaptureState, patch: Partial<CaptureRow> = {}): Promise<CaptureRow | null> {
    const move = async (db: Kysely<Database>) => {
      const r = await db
        .updateTable('capture_sessions')
        .set({ ...patch, state: to, updated_at: nowIso() })
        .where('id', '=', id)
        .where('state', 'in', from)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return null;
      return (await db.selectFrom('capture_sessions').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
    };
    const onEnded = this.onEnded;
    if (!onEnded || !ENDED.includes(to)) return move(this.db);
    // The end and whoever is told of it commit together.
    return this.db.transaction().execute(async (trx) => {
      const row = await move(trx);
      if (row) await onEnded(trx, row);
      return row;
    });
  }

  /** Sessions this process believes active or completing (for orphan detection). */
  liveIds(userId: string): Promise<{ id: string; state: CaptureState }[]> {
    return this.db
      .selectFrom('capture_sessions')
      .select(['id', 'state'])
      .where('user_id', '=', userId)
      .where('state', 'in', ['active', 'completing'])
      .execute();
  }
}
