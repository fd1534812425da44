// Every SQL statement on the webhook tables. A delivery is a row before anything sends it
// (durable: it survives a restart), is claimed by one process at a time with a compare-and-set
// on its lease (`UPDATE … WHERE status='pending' AND due AND lease free`, so two processes never
// send the same attempt), and its outcome is written only by the holder of that lease.
import crypto from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type {
  Database,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookDeliveryStatus,
  WebhookSubscriptionsTable,
} from '../../adapters/db/schema.js';
import { afterCursor, type Cursor } from '../../lib/cursor.js';
import { nowIso } from '../../lib/ids.js';
import { unindexed } from '../../adapters/db/unindexed.js';

export type SubscriptionRow = WebhookSubscriptionsTable;
export type DeliveryRow = WebhookDeliveriesTable;
export type AttemptRow = WebhookAttemptsTable;

export interface DeliveryFilter {
  subscription_id?: string;
  status?: WebhookDeliveryStatus;
  resource_id?: string;
}

export interface AttemptOutcome {
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
  /** Delivered (2xx): the delivery succeeded. */
  ok: boolean;
  /** Not delivered and no attempt left (or none can succeed): the delivery failed. */
  final: boolean;
  /** Not delivered, attempts left: when the next is due. */
  nextAttemptAt: string | null;
}

/** Rows per INSERT (SQLite's bound-parameter limit). */
const INSERT_CHUNK = 200;

export class WebhookStore {
  constructor(private readonly db: Kysely<Database>) {}

  // --- subscriptions ---

  insertSubscription(trx: Kysely<Database>, row: SubscriptionRow) {
    return trx.insertInto('webhook_subscriptions').values(row).execute();
  }

  listSubscriptions(userId: string): Promise<SubscriptionRow[]> {
    return this.db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async countSubscriptions(userId: string): Promise<number> {
    const r = await this.db
      .selectFrom('webhook_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  getSubscription(userId: string, id: string): Promise<SubscriptionRow | undefined> {
    return this.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  }

  /** Subscriptions of these users, read inside the transaction that records their event. */
  subscriptionsOf(trx: Kysely<Database>, userIds: string[]): Promise<SubscriptionRow[]> {
    return trx.selectFrom('webhook_subscriptions').selectAll().where('user_id', 'in', userIds).execute();
  }

  /** Deletes the subscription; its pending deliveries end failed (kept in the log). */
  async deleteSubscription(trx: Kysely<Database>, userId: string, id: string): Promise<boolean> {
    const r = await trx.deleteFrom('webhook_subscriptions').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) return false;
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, last_error: 'the subscription was deleted', updated_at: nowIso() })
      .where('subscription_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
    return true;
  }

  // --- the per-user signing secret ---

  signingSecretRow(userId: string) {
    return this.db.selectFrom('webhook_signing_secrets').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** Records the user's first signing secret; false when another caller recorded one first. */
  async insertSigningSecret(userId: string, vaultId: string, createdAt: string): Promise<boolean> {
    const r = await this.db
      .insertInto('webhook_signing_secrets')
      .values({ user_id: userId, vault_id: vaultId, created_at: createdAt })
      .onConflict((oc) => oc.column('user_id').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** Points the user's signing secret at a new vault entry, if it still is `from` (compare-and-set). */
  async swapSigningSecret(userId: string, from: string, to: string, createdAt: string): Promise<boolean> {
    const r = await this.db
      .updateTable('webhook_signing_secrets')
      .set({ vault_id: to, created_at: createdAt })
      .where('user_id', '=', userId)
      .where('vault_id', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  // --- deliveries: the queue ---

  async insertDeliveries(trx: Kysely<Database>, rows: DeliveryRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .execute();
    }
  }

  /**
   * Claims up to `limit` due deliveries for this process until `leaseUntil`, skipping users that
   * already have `perUser` deliveries in flight here (`busy`), so one user's slow endpoint can't
   * take every slot. The UPDATE re-checks every condition: a row another process claimed
   * meanwhile is not claimed again.
   */
  async claim(limit: number, leaseUntil: string, busy: Map<string, number>, perUser: number): Promise<DeliveryRow[]> {
    const now = nowIso();
    // The UPDATE finds its rows by id: there the status is tested on them (unindexed.ts).
    const due = (eb: any, status: unknown = 'status') =>
      eb.and([
        eb(status, '=', 'pending'),
        eb('next_attempt_at', '<=', now),
        eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
      ]);
    // Each user's oldest due deliveries (at most perUser each), so one user's backlog can't fill
    // the candidate window; window functions exist in SQLite ≥ 3.25 and PostgreSQL alike.
    const ranked = this.db
      .selectFrom('webhook_deliveries')
      .select([
        'id',
        'user_id',
        'next_attempt_at',
        sql<number>`row_number() over (partition by user_id order by next_attempt_at, id)`.as('rn'),
      ])
      .where(due)
      .as('p');
    const candidates = await this.db
      .selectFrom(ranked)
      .select(['p.id', 'p.user_id'])
      .where('p.rn', '<=', perUser)
      .orderBy('p.next_attempt_at')
      .orderBy('p.id')
      .limit(limit * 4)
      .execute();
    const taking = new Map(busy);
    const ids: string[] = [];
    for (const c of candidates) {
      if (ids.length >= limit) break;
      const n = taking.get(c.user_id) ?? 0;
      if (n >= perUser) continue;
      taking.set(c.user_id, n + 1);
      ids.push(c.id);
    }
    if (!ids.length) return [];
    const token = crypto.randomBytes(12).toString('base64url');
    return this.db
      .updateTable('webhook_deliveries')
      .set({ lease_until: leaseUntil, lease_token: token })
      .where('id', 'in', ids)
      .where((eb) => due(eb, unindexed('status')))
      .returningAll()
      .execute();
  }

  /** Gives a claimed delivery back unattempted (shutdown): due again at once, for any process. */
  async release(d: DeliveryRow): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ lease_until: null, lease_token: null })
      .where('id', '=', d.id)
      .where('lease_token', '=', d.lease_token)
      .execute();
  }

  /**
   * Writes one attempt and the delivery's new state, only while this process still holds the
   * lease it claimed with (and the delivery is still pending: a deleted subscription's are not).
   */
  async recordAttempt(d: DeliveryRow, o: AttemptOutcome): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const status: WebhookDeliveryStatus = o.ok ? 'succeeded' : o.final ? 'failed' : 'pending';
      const r = await trx
        .updateTable('webhook_deliveries')
        .set({
          status,
          attempts: d.attempts + 1,
          round_attempts: d.round_attempts + 1,
          next_attempt_at: status === 'pending' ? o.nextAttemptAt : null,
          lease_until: null,
          lease_token: null,
          last_response_status: o.responseStatus,
          last_error: o.error,
          updated_at: nowIso(),
        })
        .where('id', '=', d.id)
        .where('lease_token', '=', d.lease_token)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: d.id,
          attempt: d.attempts + 1,
          started_at: o.startedAt,
          duration_ms: o.durationMs,
          response_status: o.responseStatus,
          error: o.error,
        })
        .execute();
      return true;
    });
  }

  /** Deletes finished deliveries (and their attempts) last changed before `before`. */
  async prune(before: string): Promise<void> {
    const old = this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', 'in', ['succeeded', 'failed'])
      .where('updated_at', '<', before);
    await this.db.deleteFrom('webhook_attempts').where('delivery_id', 'in', old).execute();
    await this.db
      .deleteFrom('webhook_deliveries')
      .where('status', 'in', ['succeeded', 'failed'])
      .where('updated_at', '<', before)
      .execute();
  }

  // --- deliveries: the log ---

  getDelivery(userId: string, id: string): Promise<DeliveryRow | undefined> {
    return this.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  }

  /** A user's deliveries, newest first, after the cursor; `limit + 1` rows for paging. */
  listDeliveries(userId: string, f: DeliveryFilter, cursor: Cursor | null, limit: number): Promise<DeliveryRow[]> {
    let q = this.db.selectFrom('webhook_deliveries').selectAll().where('user_id', '=', userId);
    if (f.subscription_id !== undefined) q = q.where('subscription_id', '=', f.subscription_id);
    if (f.status !== undefined) q = q.where('status', '=', f.status);
    if (f.resource_id !== undefined) q = q.where('resource_id', '=', f.resource_id);
    if (cursor) q = q.where((eb) => afterCursor(eb, 'created_at', cursor));
    return q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
  }

  async attemptsOf(ids: string[]): Promise<Map<string, AttemptRow[]>> {
    const out = new Map<string, AttemptRow[]>(ids.map((id) => [id, []]));
    if (!ids.length) return out;
    const rows = await this.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', 'in', ids)
      .orderBy('delivery_id')
      .orderBy('attempt')
      .execute();
    for (const r of rows) out.get(r.delivery_id)?.push(r);
    return out;
  }

  /**
   * Queues a delivery again with a fresh attempt budget, due now. Not while an attempt is in
   * flight (its lease is held): false then, and for a delivery that is not the user's.
   */
  async redeliver(userId: string, id: string): Promise<boolean> {
    const now = nowIso();
    const r = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', round_attempts: 0, next_attempt_at: now, updated_at: now })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
}

/** Runs `fn` inside a savepoint of `trx`: its failure rolls back only its own writes. */
export async function inSavepoint(trx: Kysely<Database>, fn: () => Promise<void>): Promise<void> {
  await sql`savepoint webhook_events`.execute(trx);
  try {
    await fn();
  } catch (e) {
    await sql`rollback to savepoint webhook_events`.execute(trx);
    await sql`release savepoint webhook_events`.execute(trx);
    throw e;
  }
  await sql`release savepoint webhook_events`.execute(trx);
}
