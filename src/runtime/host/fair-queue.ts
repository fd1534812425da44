// Which run starts next (issue 9, finding 9): one FIFO per user, users served round-robin, and at
// most `perUser` runs of one user executing at once. A user's backlog of thousands of runs then
// delays another user's run by at most one pick per user, not by the whole backlog; the per-user
// limit keeps slots free for others even while one user's runs are slow. Within a user, sync runs
// (a client is waiting on the request) go before that user's queued async runs.
interface UserQueue {
  sync: string[];
  async: string[];
}

export class FairQueue {
  /** Users with queued runs, in round-robin order (Map keeps insertion order). */
  private readonly queues = new Map<string, UserQueue>();
  private readonly runningByUser = new Map<string, number>();
  /** Every run queued or running here, so a rescan doesn't queue it twice. */
  private readonly known = new Set<string>();
  /** Users skipped until then (see giveBack). */
  private readonly heldUntil = new Map<string, number>();

  constructor(private readonly perUser: number) {}

  get size(): number {
    return this.known.size;
  }

  /** Queues a run; false if it is already queued or running. */
  push(userId: string, runId: string, sync = false): boolean {
    if (this.known.has(runId)) return false;
    this.known.add(runId);
    let q = this.queues.get(userId);
    if (!q) this.queues.set(userId, (q = { sync: [], async: [] }));
    (sync ? q.sync : q.async).push(runId);
    return true;
  }

  /** How many runs of a user wait here (not counting those running). */
  queuedOf(userId: string): number {
    const q = this.queues.get(userId);
    return q ? q.sync.length + q.async.length : 0;
  }

  /** The next run to start, counted as running; null when no user with queued runs is under the limit. */
  next(): { userId: string; runId: string; sync: boolean } | null {
    const now = Date.now();
    for (const [userId, q] of this.queues) {
      const running = this.runningByUser.get(userId) ?? 0;
      if (running >= this.perUser) continue;
      const held = this.heldUntil.get(userId);
      if (held !== undefined) {
        if (held > now) continue;
        this.heldUntil.delete(userId);
      }
      const sync = q.sync.length > 0;
      const runId = (sync ? q.sync : q.async).shift()!;
      this.runningByUser.set(userId, running + 1);
      // To the back of the round: every other waiting user goes before this one's next run.
      this.queues.delete(userId);
      if (q.sync.length || q.async.length) this.queues.set(userId, q);
      return { userId, runId, sync };
    }
    return null;
  }

  /**
   * A run handed out by next() that the limit across processes held back: first in its user's
   * queue again, and that user skipped for `holdMs` (its runs elsewhere take time to end).
   */
  giveBack(userId: string, runId: string, sync: boolean, holdMs: number): void {
    this.release(userId);
    let q = this.queues.get(userId);
    if (!q) this.queues.set(userId, (q = { sync: [], async: [] }));
    (sync ? q.sync : q.async).unshift(runId);
    this.heldUntil.set(userId, Date.now() + holdMs);
  }

  /** Up to `n` of a user's queued runs, in the order next() would take them (not taken). */
  peek(userId: string, n: number): string[] {
    const q = this.queues.get(userId);
    return q ? [...q.sync.slice(0, n), ...q.async.slice(0, n)].slice(0, n) : [];
  }

  /**
   * A run handed out by next() turned out to be gone (claimed elsewhere) and its claim took
   * `instead`, a queued run of the same user: that one leaves the queue and holds the slot.
   */
  swap(userId: string, runId: string, instead: string): void {
    this.known.delete(runId);
    this.unqueue(userId, instead);
  }

  /** A queued run that is no longer pending (claimed elsewhere): dropped from the queue. */
  forget(userId: string, runId: string): void {
    if (this.unqueue(userId, runId)) this.known.delete(runId);
  }

  private unqueue(userId: string, runId: string): boolean {
    const q = this.queues.get(userId);
    if (!q) return false;
    for (const list of [q.sync, q.async]) {
      const i = list.indexOf(runId);
      if (i < 0) continue;
      list.splice(i, 1);
      if (!q.sync.length && !q.async.length) this.queues.delete(userId);
      return true;
    }
    return false;
  }

  /** A run handed out by next() finished (or lost its claim). */
  done(userId: string, runId: string): void {
    this.known.delete(runId);
    this.release(userId);
  }

  private release(userId: string): void {
    const n = (this.runningByUser.get(userId) ?? 1) - 1;
    if (n > 0) this.runningByUser.set(userId, n);
    else this.runningByUser.delete(userId);
  }
}
