// The run queue. RunQueue is the seam: EmbeddedDispatcher (this file) serves one process over the
// runs table — durable because a run is a `pending` row before it is announced — and a pg-boss
// implementation can later feed workers on other machines from the same rows.
//
// Claiming is a compare-and-set (`pending` → `running`), so a run executes at most once even if
// two dispatchers saw it. On start, runs left `running` by a dead process end `internal_error`
// (their sandbox died with it), and `pending` runs are picked up again.
//
// Fairness (FairQueue): runs wait in one queue per user, users are served round-robin, and one
// user has at most RUN_MAX_CONCURRENCY_PER_USER runs executing. The periodic scan reads the oldest
// pending runs of every user (a bounded number each), not the oldest overall, so a backlog found
// in the database (restart, another process) can't hide another user's run either.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../adapters/db/schema.js';
import { nowIso } from '../lib/ids.js';
import type { RunExecutor } from './executor.js';
import { Batcher } from './batcher.js';
import { FairQueue } from './fair-queue.js';

/** Pending runs a scan reads per user, and in all. */
const SCAN_PER_USER = 100;
const SCAN_TOTAL = 1000;

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
  private closed = false;

  constructor(
    private readonly d: { db: Kysely<Database>; executor: RunExecutor; concurrency: number; perUser: number; scanIntervalMs?: number },
  ) {
    this.queue = new FairQueue(d.perUser);
  }

  async start(): Promise<void> {
    await this.recover();
    await this.scan();
    this.scanTimer = setInterval(() => void this.scan().catch(() => {}), this.d.scanIntervalMs ?? 2000);
    this.scanTimer.unref();
  }

  /** Orphans of a previous process end internal_error, with a log line saying why. */
  private async recover(): Promise<void> {
    const orphans = await this.d.db.selectFrom('runs').select('id').where('status', '=', 'running').execute();
    const lost = await this.d.db.selectFrom('runs').select('id').where('status', '=', 'pending').where('ephemeral_secrets', '=', 1).execute();
    const now = nowIso();
    for (const [rows, why] of [
      [orphans, 'the server stopped while this run was executing; it was not retried'],
      [lost, "the server restarted before this run started and its secret_values (never stored) were lost; run it again"],
    ] as const) {
      for (const { id } of rows) {
        await this.d.db.transaction().execute(async (trx) => {
          const r = await trx.updateTable('runs').set({ status: 'internal_error', finished_at: now, has_logs: 1 }).where('id', '=', id).where('status', 'in', ['running', 'pending']).executeTakeFirst();
          if (Number(r.numUpdatedRows) === 1) {
            const old = await trx.selectFrom('run_logs').select('logs').where('run_id', '=', id).executeTakeFirst();
            const line = `${now} ${why}`;
            if (old) await trx.updateTable('run_logs').set({ logs: `${old.logs}\n${line}` }).where('run_id', '=', id).execute();
            else await trx.insertInto('run_logs').values({ run_id: id, logs: line }).execute();
          }
        });
      }
    }
  }

  /** Pending rows not announced in memory (restart, or inserted by another process). */
  private async scan(): Promise<void> {
    if (this.closed) return;
    // Each user's oldest runs, interleaved (rank within the user first): window functions exist in
    // SQLite ≥ 3.25 and PostgreSQL alike.
    const ranked = this.d.db
      .selectFrom('runs')
      .select(['id', 'user_id', 'is_async', 'created_at', sql<number>`row_number() over (partition by user_id order by created_at, id)`.as('rn')])
      .where('status', '=', 'pending')
      .as('p');
    const rows = await this.d.db
      .selectFrom(ranked)
      .select(['p.id', 'p.user_id', 'p.is_async'])
      .where('p.rn', '<=', SCAN_PER_USER)
      .orderBy('p.rn')
      .orderBy('p.created_at')
      .orderBy('p.id')
      .limit(SCAN_TOTAL)
      .execute();
    for (const r of rows) this.queue.push(r.user_id, r.id, !r.is_async);
    this.pump();
  }

  submit(runId: string, userId: string, sync = false): void {
    this.queue.push(userId, runId, sync);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.active < this.d.concurrency) {
      const next = this.queue.next();
      if (!next) break;
      const { userId, runId: id } = next;
      this.active++;
      const p = this.claimAndRun(id).finally(() => {
        this.queue.done(userId, id);
        this.active--;
        this.running.delete(p);
        this.pump();
      });
      this.running.add(p);
    }
  }

  /** Claims of one event-loop turn: one compare-and-set UPDATE … RETURNING for all of them. */
  private readonly claims = new Batcher<string, boolean>(async (ids) => {
    const won = await this.d.db
      .updateTable('runs')
      .set({ status: 'running', started_at: nowIso() })
      .where('id', 'in', ids)
      .where('status', '=', 'pending')
      .returning('id')
      .execute();
    const set = new Set(won.map((r) => r.id));
    return ids.map((id) => set.has(id));
  });

  private async claimAndRun(id: string): Promise<void> {
    const claimed = await this.claims.add(id).catch(() => false);
    if (!claimed) return;
    await this.d.executor.execute(id);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.scanTimer) clearInterval(this.scanTimer);
    // Runs in flight finish (or are ended by the pool shutting down) before the database closes.
    await Promise.allSettled([...this.running]);
  }
}
