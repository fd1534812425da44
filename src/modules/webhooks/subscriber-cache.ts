// Users' webhook subscriptions kept in process, so the terminal write of every run does not read
// them again: most users have none, and on the embedded server that read (with its query building)
// was ~4% of the API process's CPU under bench/workers.ts. Exact as long as the change signal is:
// this process evicts around its own changes, and drops everything when the signal says another
// process may have changed the table (SQLite's data_version, read once per event-loop turn).
import type { ChangeSignal } from '../../adapters/db/change-signal.js';
import type { SubscriptionRow } from './store.js';

/** A subscription as an event is matched against it (event_types parsed once). */
export interface Subscriber {
  id: string;
  userId: string;
  url: string;
  eventTypes: readonly string[];
}

export const subscriberOf = (r: SubscriptionRow): Subscriber => ({
  id: r.id,
  userId: r.user_id,
  url: r.url,
  eventTypes: JSON.parse(r.event_types) as string[],
});

export class SubscriberCache {
  private readonly byUser = new Map<string, readonly Subscriber[]>();
  /** Moves on every eviction: a read that began before one must not cache what it read. */
  private gen = 0;

  constructor(
    private readonly signal: ChangeSignal,
    /** Users kept (with or without subscriptions); the oldest go first. */
    private readonly max = 10_000,
  ) {}

  /** The subscriptions of these users: cached ones, and the others from `read` (then kept). */
  async of(userIds: readonly string[], read: (ids: string[]) => Promise<SubscriptionRow[]>): Promise<Subscriber[]> {
    if (this.signal.changedElsewhere()) this.clear();
    const missing = userIds.filter((u) => !this.byUser.has(u));
    const out = userIds.flatMap((u) => this.byUser.get(u) ?? []);
    if (!missing.length) return out;
    const seen = this.gen;
    const fresh = (await read(missing)).map(subscriberOf);
    if (seen === this.gen) {
      for (const u of missing) {
        if (this.byUser.size >= this.max) this.byUser.delete(this.byUser.keys().next().value!);
        this.byUser.set(
          u,
          fresh.filter((s) => s.userId === u),
        );
      }
    }
    return out.concat(fresh);
  }

  /** Forgets a user's subscriptions: call before and after a change to them commits. */
  evict(userId: string): void {
    this.gen++;
    this.byUser.delete(userId);
  }

  private clear(): void {
    this.gen++;
    this.byUser.clear();
  }
}
