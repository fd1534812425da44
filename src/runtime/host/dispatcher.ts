// The run queue. RunQueue is the seam: EmbeddedDispatcher (this file) runs in every process that
// executes runs (`serve`, `worker`) over the runs table — durable because a run is a `pending` row
// before it is announced. Several dispatchers (workers) share one PostgreSQL.
//
// Claiming is a compare-and-set (`pending` → `running` with a lease), so a run executes at most
// once even if two dispatchers saw it. Runs whose lease ran out (their process died) end
// `internal_error`; `pending` runs are read again by every scan.
//
// Fairness (FairQueue): runs wait in one queue per user, users are served round-robin, and one
// user has at most RUN_MAX_CONCURRENCY_PER_USER runs executing — here, and on PostgreSQL across
// every worker (RunStore.claim reads the user's running count under a lock; a run held back goes
// first again after a short hold). The periodic scan reads the oldest pending runs of every user
// (a bounded number each), not the oldest overall, so a backlog found in the database (restart,
// another process) can't hide another user's run either.
import type { RunExecutor } from './executor.js';
import { Batcher } from './batcher.js';
import type { ClaimRequest, ClaimResult, RunStore } from './run-store.js';
import type { PendingRun } from '../../adapters/db/run-signals.js';
import { FairQueue } from './fair-queue.js';

/** Pending runs a scan reads per user, and in all. */
const SCAN_PER_USER = 100;
const SCAN_TOTAL = 1000;

/**
 * Announced runs queued here per user at most. Beyond it the user's announcements are dropped (the
 * runs stay pending in the table) and its runs are read from the table, SCAN_PER_USER at a time
 * when its queue runs low, in their order, until a read finds no more. Bounds a worker's memory
 * when one user queues a huge backlog.
 */
const QUEUED_PER_USER_MAX = 2000;

/** Queued runs of the same user a claim may take instead of its own (shared databases). */
const ALTERNATIVES = 8;

/** How long a user the per-user limit held back is skipped before its next claim. */
const CAPPED_HOLD_MS = 200;

type ClaimOutcome = 'won' | 'lost' | 'capped';

export interface RunQueue {
  /** Announces a run already inserted as `pending`. */
  submit(runId: string, userId: string, sync?: boolean): void;
  start(): Promise<void>;
  close(): Promise<void>;
}

export class EmbeddedDispatcher implements RunQueue {
  private readonly queue: FairQueue;
  private active = 0;
  private running = new Set<Promise<void>>();
  private scanTimer: NodeJS.Timeout | null = null;
  private leaseTimer: NodeJS.Timeout | null = null;
  /** Runs this process is executing (their leases are renewed). */
  private readonly executing = new Set<string>();
  private closed = false;

  constructor(
    private readonly d: {
      store: RunStore;
      executor: RunExecutor;
      concurrency: number;
      perUser: number;
      leaseS: number;
      scanIntervalMs?: number;
    },
  ) {
    this.queue = new FairQueue(d.perUser);
  }

  async start(): Promise<void> {
    await this.scan();
    this.scanTimer = setInterval(() => void this.scan().catch(() => {}), this.d.scanIntervalMs ?? 2000);
    this.scanTimer.unref();
    // Leases of what this process executes or holds, renewed three times per lease period.
    this.leaseTimer = setInterval(() => void this.renewLeases().catch(() => {}), (this.d.leaseS * 1000) / 3);
    this.leaseTimer.unref();
  }

  private leaseUntil(): string {
    return new Date(Date.now() + this.d.leaseS * 1000).toISOString();
  }

  private async renewLeases(): Promise<void> {
    const ids = [...this.executing, ...this.d.executor.heldSecretRuns()];
    if (ids.length) await this.d.store.renew(ids, this.leaseUntil());
  }

  /**
   * Runs of a dead process end internal_error, with a log line saying why. They are found by
   * leases that ran out, so runs another live process executes are never touched; checked at
   * start and with every scan.
   */
  private async recover(): Promise<void> {
    const { running, lostSecrets } = await this.d.store.orphans(new Date().toISOString());
    for (const id of running) {
      await this.d.store.endAsInternalError(id, 'the server stopped while this run was executing (its lease ran out); it was not retried');
    }
    for (const id of lostSecrets) {
      await this.d.store.endAsInternalError(
        id,
        'the server restarted before this run started and its secret_values (never stored) were lost; run it again',
      );
    }
  }

  /** Pending rows not announced in memory (restart, or inserted by another process). */
  private async scan(): Promise<void> {
    if (this.closed) return;
    await this.recover();
    await this.scanPending();
  }

  private async scanPending(): Promise<void> {
    const rows = await this.d.store.pending(SCAN_PER_USER, SCAN_TOTAL).finally(() => {
      this.refilling = false;
    });
    const read = new Map<string, number>();
    for (const r of rows) {
      this.queue.push(r.user_id, r.id, !r.is_async);
      read.set(r.user_id, (read.get(r.user_id) ?? 0) + 1);
    }
    // An overflowed user takes announcements again once a read finds all its pending runs.
    if (rows.length < SCAN_TOTAL) for (const u of this.overflowed) if ((read.get(u) ?? 0) < SCAN_PER_USER) this.overflowed.delete(u);
    this.pump();
  }

  private waking = false;
  private wakeAgain = false;
  /** Users whose announced runs were dropped (their queue here was full): read from the table. */
  private readonly overflowed = new Set<string>();
  private refilling = false;

  /**
   * Another process stored pending runs (its notice names them): they are queued here at once,
   * without reading the table. Without names (notices may have been lost) the pending runs are read
   * now rather than at the next tick: one read at a time, and notices arriving during one cause one
   * more read after it.
   */
  wake(runs: PendingRun[] | null = null): void {
    if (this.closed) return;
    if (runs) {
      for (const r of runs) {
        if (this.overflowed.has(r.userId)) continue;
        if (this.queue.queuedOf(r.userId) >= QUEUED_PER_USER_MAX) this.overflowed.add(r.userId);
        else this.queue.push(r.userId, r.id, r.sync);
      }
      return this.pump();
    }
    if (this.waking) {
      this.wakeAgain = true;
      return;
    }
    this.waking = true;
    void this.scanPending()
      .catch(() => {})
      .finally(() => {
        this.waking = false;
        if (this.wakeAgain) {
          this.wakeAgain = false;
          this.wake();
        }
      });
  }

  /** Runs queued here, waiting for a claim. */
  get queuedRuns(): number {
    return this.queue.size;
  }

  submit(runId: string, userId: string, sync = false): void {
    this.queue.push(userId, runId, sync);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.active < this.d.concurrency) {
      const next = this.queue.next();
      if (!next) break;
      const { userId, runId: id, sync } = next;
      if (this.overflowed.has(userId) && !this.refilling && this.queue.queuedOf(userId) <= SCAN_PER_USER / 2) {
        this.refilling = true;
        this.wake();
      }
      this.active++;
      const p = this.claimAndRun(id, userId)
        .catch(() => ({ outcome: 'lost' as const, ran: id }))
        .then(({ outcome, ran }) => {
          if (outcome !== 'capped') return this.queue.done(userId, ran);
          this.queue.giveBack(userId, id, sync, CAPPED_HOLD_MS);
          setTimeout(() => this.pump(), CAPPED_HOLD_MS).unref();
        })
        .finally(() => {
          this.active--;
          this.running.delete(p);
          this.pump();
        });
      this.running.add(p);
    }
  }

  /**
   * Claims of one event-loop turn: one compare-and-set for all of them, within the per-user limit
   * across processes (see RunStore.claim).
   */
  private readonly claims = new Batcher<ClaimRequest, ClaimResult>(async (reqs) => {
    const { results, gone } = await this.d.store.claim(reqs, this.leaseUntil(), this.d.perUser);
    // The claimed rows come back with the claim: execution needn't read them again.
    for (const r of results) if (typeof r === 'object') this.d.executor.holdRow(r, false);
    for (const g of gone) this.queue.forget(g.userId, g.id);
    return results;
  });

  /** Claims `id` (or, when another worker took it, a queued run of the same user) and runs it. */
  private async claimAndRun(id: string, userId: string): Promise<{ outcome: ClaimOutcome; ran: string }> {
    const alternatives = this.queue.peek(userId, ALTERNATIVES);
    const result = await this.claims.add({ id, userId, alternatives }).catch((): ClaimResult => 'lost');
    if (typeof result !== 'object') return { outcome: result, ran: id };
    const ran = result.id;
    if (ran !== id) this.queue.swap(userId, id, ran);
    this.executing.add(ran);
    try {
      await this.d.executor.execute(ran);
    } finally {
      this.executing.delete(ran);
    }
    return { outcome: 'won', ran };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.scanTimer) clearInterval(this.scanTimer);
    // Runs in flight finish (or are ended by the pool shutting down) before the database closes;
    // their leases are renewed until then (a shutdown grace period may outlast a lease).
    await Promise.allSettled([...this.running]);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
  }
}
