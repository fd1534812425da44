// Wake-ups for the run queue between processes. The runs table stays the truth (a worker claims
// by compare-and-set, a sync caller reads the row); these notices only cut the waiting: on
// PostgreSQL an API process announces each new pending run (id, user, sync) and workers queue it
// without reading the table, and every terminal write announces the ended ids (a sync caller on
// another process reads its row at once instead of at its next poll). A lost notice costs one
// polling interval: the workers' periodic scan of the table finds the run.
// SQLite (one machine, usually one process) has no notices: the polling alone serves it.
import type { Kysely } from 'kysely';
import { channelName, type Listener, listen, notify } from './notify.js';

/** A pending run as announced to the workers: what they need to queue it. */
export interface PendingRun {
  id: string;
  userId: string;
  sync: boolean;
}

export interface RunSignals {
  /** Whether notices arrive (waiters may then poll slowly). */
  readonly live: boolean;
  /** Tells the workers a pending run was stored (after it committed). */
  announcePending(db: Kysely<any>, run: PendingRun): Promise<void>;
  /** Tells waiting callers these runs ended; call inside the transaction that ends them. */
  announceEnded(trx: Kysely<any>, ids: string[]): Promise<void>;
  /**
   * Calls `cb` with the pending runs announced (starts listening); with null when notices may have
   * been missed (before listening began or resumed, while the connection was down, or one could not
   * be read): read the table then.
   */
  onPending(cb: (runs: PendingRun[] | null) => void): void;
  /** Resolves when run `id` is announced ended, or after `ms`. */
  ended(id: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const pollingRunSignals: RunSignals = {
  live: false,
  announcePending: async () => {},
  announceEnded: async () => {},
  onPending: () => {},
  ended: (_id, ms) => sleep(ms),
  close: async () => {},
};

/** pg_notify payloads stay under PostgreSQL's 8000-byte limit: ids go in chunks. */
const IDS_PER_NOTICE = 200;
/** Bytes of announced pending runs per notice (each takes ~85). */
const PENDING_NOTICE_BYTES = 7000;

/** Announced runs as notice payloads: JSON arrays of [id, userId, sync?1:0], each under the limit. */
export function pendingPayloads(runs: PendingRun[]): string[] {
  const out: string[] = [];
  let part: string[] = [];
  let bytes = 2;
  for (const r of runs) {
    const item = JSON.stringify([r.id, r.userId, r.sync ? 1 : 0]);
    if (part.length && bytes + item.length + 1 > PENDING_NOTICE_BYTES) {
      out.push(`[${part.join(',')}]`);
      part = [];
      bytes = 2;
    }
    part.push(item);
    bytes += item.length + 1;
  }
  if (part.length) out.push(`[${part.join(',')}]`);
  return out;
}

/** A payload read back; null when it isn't one (the caller then reads the table). */
export function parsePendingPayload(payload: string): PendingRun[] | null {
  try {
    const items: unknown = JSON.parse(payload);
    if (!Array.isArray(items)) return null;
    const runs: PendingRun[] = [];
    for (const it of items) {
      if (!Array.isArray(it) || typeof it[0] !== 'string' || typeof it[1] !== 'string') return null;
      runs.push({ id: it[0], userId: it[1], sync: it[2] === 1 });
    }
    return runs;
  } catch {
    return null;
  }
}

export function postgresRunSignals(url: string, schema: string | undefined): RunSignals {
  const pendingChannel = channelName('runs_pending', schema);
  const endedChannel = channelName('runs_ended', schema);
  const waiters = new Map<string, Set<() => void>>();
  const pendingCbs: ((runs: PendingRun[] | null) => void)[] = [];
  let pendingListener: Listener | null = null;
  let endedListener: Listener | null = null;
  const wake = (id: string) => {
    for (const w of waiters.get(id) ?? []) w();
  };
  // One pending notice in flight per process; runs stored meanwhile go together in the next one.
  // A burst of stores sends a few notices, not one each.
  let toTell: PendingRun[] = [];
  let telling: Promise<void> | null = null;
  const tellQueued = (db: Kysely<any>): Promise<void> => {
    const runs = toTell;
    toTell = [];
    telling = (async () => {
      for (const payload of pendingPayloads(runs)) await notify(db, pendingChannel, payload);
    })()
      .catch(() => {})
      .finally(() => {
        telling = null;
        if (toTell.length) void tellQueued(db);
      });
    return telling;
  };
  const tellPending = (db: Kysely<any>, run: PendingRun): Promise<void> => {
    toTell.push(run);
    // Resolves once the notice carrying this run went out (the one after the notice in flight).
    return telling ? telling.then(() => telling ?? undefined) : tellQueued(db);
  };
  const toPendingCbs = (runs: PendingRun[] | null) => {
    for (const f of pendingCbs) f(runs);
  };
  return {
    get live() {
      return endedListener?.connected ?? false;
    },
    announcePending: tellPending,
    async announceEnded(trx, ids) {
      for (let i = 0; i < ids.length; i += IDS_PER_NOTICE) await notify(trx, endedChannel, ids.slice(i, i + IDS_PER_NOTICE).join(','));
    },
    onPending(cb) {
      pendingCbs.push(cb);
      pendingListener ??= listen(
        url,
        pendingChannel,
        (payload) => toPendingCbs(parsePendingPayload(payload)),
        () => toPendingCbs(null),
        // Runs stored between the caller's last read and this LISTEN (start-up, a reconnect) were
        // announced to nobody here.
        () => toPendingCbs(null),
      );
    },
    ended(id, ms) {
      endedListener ??= listen(
        url,
        endedChannel,
        (payload) => payload.split(',').forEach(wake),
        () => {},
        // Ends announced while nobody here listened: every waiter reads its run again.
        () => {
          for (const id of [...waiters.keys()]) wake(id);
        },
      );
      return new Promise((resolve) => {
        const set = waiters.get(id) ?? new Set();
        waiters.set(id, set);
        const done = () => {
          clearTimeout(timer);
          set.delete(done);
          if (!set.size) waiters.delete(id);
          resolve();
        };
        const timer = setTimeout(done, ms);
        set.add(done);
      });
    },
    async close() {
      await Promise.all([pendingListener?.close(), endedListener?.close()]);
      for (const id of [...waiters.keys()]) wake(id);
    },
  };
}
