// SQL of capture sessions. State changes are conditional updates (`where state = …`), so two
// concurrent requests can never both move a session out of the same state.
import type { Kysely } from 'kysely';
import type { CaptureSessionsTable, Database } from '../../adapters/db/schema.js';
import { nowIso } from '../../lib/ids.js';
import type { EventBus } from '../../lib/events.js';

export type CaptureState = CaptureSessionsTable['state'];
export type CaptureRow = CaptureSessionsTable;

/** States a session never leaves. */
export const ENDED: readonly CaptureState[] = ['completed', 'abandoned', 'failed'];

/** Told of a session that ended, inside the transaction that recorded it (webhooks). */
export type SessionEnded = (trx: Kysely<Database>, row: CaptureRow) => Promise<void>;

/** Every state change goes through here, so each one is a capture.state event (log line, metrics). */
export class CaptureRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly events?: EventBus,
    private readonly onEnded?: SessionEnded,
  ) {}

  async insert(row: CaptureRow): Promise<void> {
    await this.db.insertInto('capture_sessions').values(row).execute();
    this.events?.emit({ kind: 'capture.state', sessionId: row.id, userId: row.user_id, state: row.state, reason: row.end_reason });
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
    const row =
      !onEnded || !ENDED.includes(to)
        ? await move(this.db)
        : // The end and whoever is told of it commit together.
          await this.db.transaction().execute(async (trx) => {
            const r = await move(trx);
            if (r) await onEnded(trx, r);
            return r;
          });
    if (row) this.events?.emit({ kind: 'capture.state', sessionId: id, userId: row.user_id, state: to, reason: row.end_reason });
    return row;
  }

  /** How many sessions are in each state, across every process (metrics). */
  async countByState(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('capture_sessions')
      .select((eb) => ['state', eb.fn.countAll<number | string>().as('n')])
      .groupBy('state')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
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
