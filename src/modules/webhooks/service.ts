// Webhooks: the rules. Subscriptions (a URL and event types, each with its own signing secret,
// shown once), the per-user signing secret of per-request webhook_urls, the delivery log and
// redelivery, and `enqueue` — called by the producers' terminal hooks (wired in src/services.ts)
// inside the transaction that records the terminal state, so an event is queued exactly when that
// state commits. Secrets live in the vault (src/adapters/vault): only ciphertext is stored.
import type { Kysely } from 'kysely';
import type { ChangeSignal } from '../../adapters/db/change-signal.js';
import type { Database, WebhookDeliveryStatus } from '../../adapters/db/schema.js';
import type { CredentialVault } from '../../adapters/vault/port.js';
import type { Egress } from '../../egress/egress.js';
import { decodeCursor, toPage, type Page } from '../../lib/cursor.js';
import { conflict, invalid, notFound } from '../../lib/errors.js';
import { isUuid, newId, nowIso } from '../../lib/ids.js';
import { WebhookDispatcher } from './dispatcher.js';
import { type EventType, type WebhookEvent, payloadOf, subscribed } from './events.js';
import { newSigningSecret } from './signing.js';
import { type AttemptRow, type DeliveryRow, type SubscriptionRow, WebhookStore, inSavepoint } from './store.js';
import { SubscriberCache, subscriberOf } from './subscriber-cache.js';
import { refuseTarget } from './target.js';

/** Subscriptions one user may have (each event is sent to every matching one). */
export const MAX_SUBSCRIPTIONS_PER_USER = 25;

export interface SubscriptionView {
  id: string;
  url: string;
  event_types: string[];
  description: string | null;
  created_at: string;
}

export interface CreateSubscriptionInput {
  url: string;
  event_types: string[];
  description?: string | null;
}

export interface AttemptView {
  attempt: number;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  resource_id: string;
  subscription_id: string | null;
  target_url: string;
  status: WebhookDeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  attempts: AttemptView[];
}

export interface ListDeliveriesParams {
  limit: number;
  cursor?: string;
  subscription_id?: string;
  status?: WebhookDeliveryStatus;
  resource_id?: string;
}

export interface WebhooksDeps {
  db: Kysely<Database>;
  vault: CredentialVault;
  egress: Egress;
  config: { webhookMaxAttempts: number; webhookTimeoutS: number; webhookRetryBaseMs: number; webhookRetryMaxMs: number };
  log?: { error(obj: object, msg: string): void };
  /**
   * Whether another process may have changed the subscriptions: given, they are kept in process
   * between events (subscriber-cache.ts). Without it (PostgreSQL) they are read inside each
   * terminal transaction, exact at that statement across processes; a cache there would be only as
   * fresh as a NOTIFY, and could queue deliveries to a subscription another process just deleted.
   */
  subscriptionChanges?: ChangeSignal;
}

const subscriptionView = (r: SubscriptionRow): SubscriptionView => ({
  id: r.id,
  url: r.url,
  event_types: JSON.parse(r.event_types),
  description: r.description,
  created_at: r.created_at,
});

const attemptView = (a: AttemptRow): AttemptView => ({
  attempt: Number(a.attempt),
  started_at: a.started_at,
  duration_ms: Number(a.duration_ms),
  response_status: a.response_status === null ? null : Number(a.response_status),
  error: a.error,
});

const deliveryView = (d: DeliveryRow, attempts: AttemptRow[]): DeliveryView => ({
  id: d.id,
  event_id: d.event_id,
  event_type: d.event_type,
  resource_id: d.resource_id,
  subscription_id: d.subscription_id,
  target_url: d.target_url,
  status: d.status,
  attempt_count: Number(d.attempts),
  next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
  last_response_status: d.last_response_status === null ? null : Number(d.last_response_status),
  last_error: d.last_error,
  created_at: d.created_at,
  updated_at: d.updated_at,
  attempts: attempts.map(attemptView),
});

/** The vault entry value of a signing secret. */
const secretValue = (secret: string) => ({ type: 'string' as const, value: secret });

export class WebhooksService {
  private readonly store: WebhookStore;
  readonly dispatcher: WebhookDispatcher;

  private readonly log: { error(obj: object, msg: string): void };
  private readonly subscribers: SubscriberCache | null;

  constructor(private readonly deps: WebhooksDeps) {
    this.store = new WebhookStore(deps.db);
    this.subscribers = deps.subscriptionChanges ? new SubscriberCache(deps.subscriptionChanges) : null;
    this.log = deps.log ?? { error: (o, m) => console.error(m, o) };
    const c = deps.config;
    this.dispatcher = new WebhookDispatcher({
      store: this.store,
      egress: deps.egress,
      secretFor: (d) => this.secretFor(d),
      maxAttempts: c.webhookMaxAttempts,
      timeoutMs: c.webhookTimeoutS * 1000,
      retryBaseMs: c.webhookRetryBaseMs,
      retryMaxMs: c.webhookRetryMaxMs,
      log: this.log,
    });
  }

  /** Why `url` can't be a webhook URL (egress policy, scheme, credentials), or null. */
  checkUrl(url: string): Promise<string | null> {
    return refuseTarget(this.deps.egress, url);
  }

  // --- subscriptions ---

  /** Creates a subscription; the answer carries its signing secret, the only time it is shown. */
  async createSubscription(userId: string, input: CreateSubscriptionInput): Promise<SubscriptionView & { secret: string }> {
    const why = await this.checkUrl(input.url);
    if (why) throw invalid(['body', 'url'], `Value error, ${why}`, 'value_error', { input: input.url });
    if ((await this.store.countSubscriptions(userId)) >= MAX_SUBSCRIPTIONS_PER_USER) {
      throw conflict(`A user may have at most ${MAX_SUBSCRIPTIONS_PER_USER} webhook subscriptions; delete one first`);
    }
    const row: SubscriptionRow = {
      id: newId(),
      user_id: userId,
      url: input.url,
      event_types: JSON.stringify([...new Set(input.event_types)]),
      description: input.description ?? null,
      created_at: nowIso(),
    };
    const secret = newSigningSecret();
    const ref = { ownerId: userId, secretId: row.id };
    let stored = false;
    this.subscribers?.evict(userId);
    try {
      // The row commits only once the vault holds the secret (as secrets do).
      await this.deps.db.transaction().execute(async (trx) => {
        await this.store.insertSubscription(trx, row);
        await this.deps.vault.put(ref, secretValue(secret));
        stored = true;
      });
    } catch (e) {
      if (stored) await this.deps.vault.delete(ref).catch(() => {});
      throw e;
    } finally {
      this.subscribers?.evict(userId);
    }
    return { ...subscriptionView(row), secret };
  }

  async listSubscriptions(userId: string): Promise<SubscriptionView[]> {
    return (await this.store.listSubscriptions(userId)).map(subscriptionView);
  }

  async getSubscription(userId: string, id: string): Promise<SubscriptionView> {
    const r = isUuid(id) ? await this.store.getSubscription(userId, id) : undefined;
    if (!r) throw notFound('Webhook subscription');
    return subscriptionView(r);
  }

  /** Deletes the subscription and its secret; its pending deliveries end failed. */
  async deleteSubscription(userId: string, id: string): Promise<{ id: string; deleted: true }> {
    this.subscribers?.evict(userId);
    const gone =
      isUuid(id) &&
      (await this.deps.db
        .transaction()
        .execute(async (trx) => {
          if (!(await this.store.deleteSubscription(trx, userId, id))) return false;
          await this.deps.vault.delete({ ownerId: userId, secretId: id });
          return true;
        })
        .finally(() => this.subscribers?.evict(userId)));
    if (!gone) throw notFound('Webhook subscription');
    return { id, deleted: true };
  }

  // --- the per-user signing secret (per-request webhook_urls) ---

  /** The user's signing secret, created on first use. */
  async signingSecret(userId: string): Promise<{ secret: string; created_at: string }> {
    for (let i = 0; i < 3; i++) {
      const row = await this.store.signingSecretRow(userId);
      if (row) {
        const v = await this.deps.vault.get({ ownerId: userId, secretId: row.vault_id });
        if (v?.type === 'string') return { secret: v.value, created_at: row.created_at };
        continue; // rotated meanwhile: read the new row
      }
      const created = await this.putSecret(userId);
      if (await this.store.insertSigningSecret(userId, created.vaultId, created.created_at)) {
        return { secret: created.secret, created_at: created.created_at };
      }
      // Another request created it first: theirs is the one.
      await this.deps.vault.delete({ ownerId: userId, secretId: created.vaultId });
    }
    throw conflict('The signing secret is being changed by another request; try again');
  }

  /** Replaces the user's signing secret; per-request deliveries are signed with the new one from now on. */
  async rotateSigningSecret(userId: string): Promise<{ secret: string; created_at: string }> {
    const row = await this.store.signingSecretRow(userId);
    if (!row) return this.signingSecret(userId);
    const created = await this.putSecret(userId);
    if (!(await this.store.swapSigningSecret(userId, row.vault_id, created.vaultId, created.created_at))) {
      await this.deps.vault.delete({ ownerId: userId, secretId: created.vaultId });
      throw conflict('The signing secret was changed by another request meanwhile; read it again');
    }
    await this.deps.vault.delete({ ownerId: userId, secretId: row.vault_id });
    return { secret: created.secret, created_at: created.created_at };
  }

  private async putSecret(userId: string): Promise<{ vaultId: string; secret: string; created_at: string }> {
    const vaultId = newId();
    const secret = newSigningSecret();
    await this.deps.vault.put({ ownerId: userId, secretId: vaultId }, secretValue(secret));
    return { vaultId, secret, created_at: nowIso() };
  }

  /** The secret that signs a delivery now: its subscription's, or the user's signing secret. */
  private async secretFor(d: DeliveryRow): Promise<string | null> {
    if (d.subscription_id === null) return (await this.signingSecret(d.user_id)).secret;
    const v = await this.deps.vault.get({ ownerId: d.user_id, secretId: d.subscription_id });
    return v?.type === 'string' ? v.value : null;
  }

  // --- the delivery log ---

  async listDeliveries(userId: string, p: ListDeliveriesParams): Promise<Page<DeliveryView>> {
    const cursor = decodeCursor(p.cursor, 'created_at', 'desc');
    const rows = await this.store.listDeliveries(
      userId,
      { subscription_id: p.subscription_id, status: p.status, resource_id: p.resource_id },
      cursor,
      p.limit,
    );
    const attempts = await this.store.attemptsOf(rows.slice(0, p.limit).map((r) => r.id));
    return toPage(
      rows,
      p.limit,
      'created_at',
      'desc',
      (r) => r.created_at,
      (r) => deliveryView(r, attempts.get(r.id) ?? []),
    );
  }

  async getDelivery(userId: string, id: string): Promise<DeliveryView> {
    const r = isUuid(id) ? await this.store.getDelivery(userId, id) : undefined;
    if (!r) throw notFound('Webhook delivery');
    return deliveryView(r, (await this.store.attemptsOf([r.id])).get(r.id) ?? []);
  }

  /** Queues the delivery again (fresh attempt budget, due now), whatever its status. */
  async redeliver(userId: string, id: string): Promise<DeliveryView> {
    const r = isUuid(id) ? await this.store.getDelivery(userId, id) : undefined;
    if (!r) throw notFound('Webhook delivery');
    if (r.subscription_id !== null && !(await this.store.getSubscription(userId, r.subscription_id))) {
      throw conflict('The delivery’s subscription was deleted; it can no longer be redelivered');
    }
    if (!(await this.store.redeliver(userId, id))) throw conflict('The delivery is being attempted right now; try again in a moment');
    this.dispatcher.poke();
    return this.getDelivery(userId, id);
  }

  // --- events ---

  /**
   * Queues a delivery of each event to its webhook_url and to every matching subscription of its
   * user, inside `trx` (the producer's transaction that records the terminal state). Never
   * throws: a failure of its writes rolls back only them (a savepoint) and is logged, so a
   * webhook problem can never undo a run's, a session's or a task's end. The savepoint is taken
   * only when there is something to write: most events have no webhook_url and no subscriber, and
   * then the subscriptions' read is the only statement (a savepoint and its release were two more
   * round trips to PostgreSQL on every terminal write). The read is outside the savepoint: it
   * fails only when the database does, and then the producer's own statements fail too.
   */
  async enqueue(trx: Kysely<Database>, build: () => WebhookEvent[]): Promise<void> {
    try {
      const events = build();
      if (!events.length) return;
      const users = [...new Set(events.map((e) => e.userId))];
      const read = async (ids: string[]) => await this.store.subscriptionsOf(trx, ids);
      const subs = this.subscribers ? await this.subscribers.of(users, read) : (await read(users)).map(subscriberOf);
      const now = nowIso();
      const rows: DeliveryRow[] = [];
      for (const e of events) {
        const targets: { sub: string | null; url: string }[] = e.webhookUrl ? [{ sub: null, url: e.webhookUrl }] : [];
        for (const s of subs) {
          if (s.userId === e.userId && subscribed(s.eventTypes, e.type)) targets.push({ sub: s.id, url: s.url });
        }
        if (!targets.length) continue;
        const eventId = `evt_${newId().replaceAll('-', '')}`;
        const payload = payloadOf(e, now);
        for (const t of targets) rows.push(this.deliveryRow(e, t.sub, t.url, eventId, payload, now));
      }
      if (!rows.length) return;
      await inSavepoint(trx, () => this.store.insertDeliveries(trx, rows));
      // After the producer's commit (a moment later): this process sends them at once.
      this.dispatcher.poke(20);
    } catch (err) {
      this.log.error({ err }, 'webhooks: queueing the deliveries of an event failed; the event is not delivered');
    }
  }

  private deliveryRow(e: WebhookEvent, sub: string | null, url: string, eventId: string, payload: string, now: string): DeliveryRow {
    return {
      id: newId(),
      user_id: e.userId,
      subscription_id: sub,
      event_id: eventId,
      event_type: e.type satisfies EventType,
      resource_id: e.resourceId,
      target_url: url,
      payload,
      status: 'pending',
      attempts: 0,
      round_attempts: 0,
      next_attempt_at: now,
      lease_until: null,
      lease_token: null,
      last_response_status: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
  }

  start(): void {
    this.dispatcher.start();
  }

  stop(): Promise<void> {
    return this.dispatcher.stop();
  }
}
