// Wake-ups for the run queue between processes. The runs table stays the truth (a worker claims
// by compare-and-set, a sync caller reads the row); these notices only cut the waiting: on
// PostgreSQL an API process announces a new pending run (workers scan at once instead of at their
// next tick) and every terminal write announces the ended ids (a sync caller on another process
// reads its row at once instead of at its next poll). A lost notice costs one polling interval.
// SQLite (one machine, usually one process) has no notices: the polling alone serves it.
import type { Kysely } from 'kysely';
import { channelName, type Listener, listen, notify } from './notify.js';

export interface RunSignals {
  /** Whether notices arrive (waiters may then poll slowly). */
  readonly live: boolean;
  /** Tells the workers a pending run was stored (after it committed). */
  announcePending(db: Kysely<any>): Promise<void>;
  /** Tells waiting callers these runs ended; call inside the transaction that ends them. */
  announceEnded(trx: Kysely<any>, ids: string[]): Promise<void>;
  /** Calls `cb` on each announced pending run (starts listening). */
  onPending(cb: () => void): void;
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

export function postgresRunSignals(url: string, schema: string | undefined): RunSignals {
  const pendingChannel = channelName('runs_pending', schema);
  const endedChannel = channelName('runs_ended', schema);
  const waiters = new Map<string, Set<() => void>>();
  const pendingCbs: (() => void)[] = [];
  let pendingListener: Listener | null = null;
  let endedListener: Listener | null = null;
  const wake = (id: string) => {
    for (const w of waiters.get(id) ?? []) w();
  };
  // One pending notice at a time per process; runs stored meanwhile are told by one more after it
  // (a notice says "read the table", not which run). A burst of stores sends a few, not one each.
  let telling: Promise<void> | null = null;
  let tellAgain = false;
  const tellPending = (db: Kysely<any>): Promise<void> => {
    if (telling) {
      tellAgain = true;
      return telling;
    }
    telling = notify(db, pendingChannel, '')
      .catch(() => {})
      .finally(() => {
        telling = null;
        if (tellAgain) {
          tellAgain = false;
          void tellPending(db);
        }
      });
    return telling;
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
        () => {
          for (const f of pendingCbs) f();
        },
        () => {},
      );
    },
    ended(id, ms) {
      endedListener ??= listen(
        url,
        endedChannel,
        (payload) => payload.split(',').forEach(wake),
        () => {},
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
