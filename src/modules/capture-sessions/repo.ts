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
/** States that hold a browser (or a place in the limits, for `starting`) and a lease. */
export const HOLDING: readonly CaptureState[] = ['starting', 'active', 'completing'];

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

  /**
   * A create in flight takes its place in the limits first (state starting, no event: the API
   * never shows it), then counts what is held across every process (see `held`).
   */
  async reserve(row: CaptureRow): Promise<void> {
    await this.db.insertInto('capture_sessions').values(row).execute();
  }

  /** Gives a reservation back (the create was refused or its browser did not start). */
  async unreserve(id: string): Promise<void> {
    await this.db.deleteFrom('capture_sessions').where('id', '=', id).where('state', '=', 'starting').execute();
  }

  /** Sessions holding a browser (or reserving one) whose lease has not run out: all, and this user's. */
  async held(userId: string, now: string): Promise<{ total: number; user: number }> {
    const rows = await this.db
      .selectFrom('capture_sessions')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('n'),
        eb.fn.sum<number | string | null>(eb.case().when('user_id', '=', userId).then(1).else(0).end()).as('u'),
      ])
      .where('state', 'in', HOLDING)
      .where('lease_until', '>=', now)
      .executeTakeFirst();
    return { total: Number(rows?.n ?? 0), user: Number(rows?.u ?? 0) };
  }

  /** Renews the leases of what `ownerId` holds; the ids renewed. */
  async renew(ownerId: string, leaseUntil: string): Promise<Set<string>> {
    const rows = await this.db
      .updateTable('capture_sessions')
      .set({ lease_until: leaseUntil })
      .where('owner_id', '=', ownerId)
      .where('state', 'in', HOLDING)
      .returning('id')
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /** Sessions of other processes whose lease ran out (or that never had one: rows from before leases). */
  expired(ownerId: string, now: string): Promise<Pick<CaptureRow, 'id' | 'state' | 'lease_until'>[]> {
    return this.db
      .selectFrom('capture_sessions')
      .select(['id', 'state', 'lease_until'])
      .where('state', 'in', HOLDING)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '!=', ownerId)]))
      .execute();
  }

  /** Sessions a previous run of this process left at its own address (it is gone: this process holds that address now). */
  leftAt(ownerUrl: string, ownerId: string): Promise<Pick<CaptureRow, 'id' | 'state' | 'lease_until'>[]> {
    return this.db
      .selectFrom('capture_sessions')
      .select(['id', 'state', 'lease_until'])
      .where('state', 'in', HOLDING)
      .where('owner_url', '=', ownerUrl)
      .where('owner_id', '!=', ownerId)
      .execute();
  }

  /** Removes a reservation whose process died before its browser started (never shown, so nothing to tell). */
  async dropStarting(id: string, leaseUntil: string | null): Promise<void> {
    let q = this.db.deleteFrom('capture_sessions').where('id', '=', id).where('state', '=', 'starting');
    q = leaseUntil === null ? q.where('lease_until', 'is', null) : q.where('lease_until', '=', leaseUntil);
    await q.execute();
  }

  get(userId: string, id: string): Promise<CaptureRow | undefined> {
    return this.db
      .selectFrom('capture_sessions')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('state', '!=', 'starting')
      .executeTakeFirst();
  }

  byId(id: string): Promise<CaptureRow | undefined> {
    return this.db.selectFrom('capture_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(userId: string): Promise<CaptureRow[]> {
    return this.db
      .selectFrom('capture_sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('state', '!=', 'starting')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /**
   * Moves `id` from one of `from` to `to` with `patch`; the updated row, or null if the state was
   * different. `leaseFrom`: only while the lease is still that value (a lease renewed meanwhile
   * means its owner lives: the move is off).
   */
  async transition(
    id: string,
    from: CaptureState[],
    to: CaptureState,
    patch: Partial<CaptureRow> = {},
    leaseFrom?: string | null,
  ): Promise<CaptureRow | null> {
    const move = async (db: Kysely<Database>) => {
      let q = db
        .updateTable('capture_sessions')
        .set({ ...patch, state: to, updated_at: nowIso() })
        .where('id', '=', id)
        .where('state', 'in', from);
      if (leaseFrom !== undefined) q = leaseFrom === null ? q.where('lease_until', 'is', null) : q.where('lease_until', '=', leaseFrom);
      const r = await q.executeTakeFirst();
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
      .where('state', '!=', 'starting')
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
