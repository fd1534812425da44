// Every SQL statement on `runs` and `run_logs`: the one place a run's row changes. A run is a
// `pending` row before anything executes it (durable), `running` once a dispatcher claimed it
// (a compare-and-set, so it executes at most once), and terminal with its logs in one write.
// Leases: the process executing a run renews `lease_until`; so does the process holding a queued
// run's secret_values (only it can run it). A lease that ran out means that process died.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, RunStatus, RunsTable } from '../../adapters/db/schema.js';
import { afterCursor, type Cursor } from '../../lib/cursor.js';
import { nowIso } from '../../lib/ids.js';
import { retryTransaction } from '../../adapters/db/retry.js';
import { ShapedQueries } from '../../adapters/db/shaped-queries.js';
import { unindexed } from '../../adapters/db/unindexed.js';
import type { KeyLocks } from '../../adapters/db/advisory-locks.js';
import { pollingRunSignals, type RunSignals } from '../../adapters/db/run-signals.js';
import { Batcher } from './batcher.js';
import type { RunsFinished } from '../ports.js';

export type RunRow = Selectable<RunsTable>;

/** A run's timeout when the request gives none, and the longest one allowed. */
export const DEFAULT_RUN_TIMEOUT_S = 300;
export const MAX_RUN_TIMEOUT_S = 3600;

/** Rows per INSERT statement of a batch (well under both databases' bound-parameter limits). */
const INSERT_BATCH_MAX = 500;

export interface ClaimRequest {
  id: string;
  userId: string;
  /** Queued runs of the same user to claim instead when `id` is gone (shared databases only). */
  alternatives?: string[];
}

/** The claimed row (possibly an alternative's), or why nothing was claimed. */
export type ClaimResult = RunRow | 'capped' | 'lost';

/** A run's end: its terminal status, its result and error (JSON text) and its whole log. */
export interface TerminalWrite {
  runId: string;
  status: RunStatus;
  /** The stored result (null when none is stored: an error, or a result too large to keep). */
  result: string | null;
  resultSizeBytes: number | null;
  error: string | null;
  finishedAt: string;
  logs: string;
}

/** `runs.status` tested on the rows found by id (unindexed.ts). */
const statusOfRow = unindexed('runs.status');

export class RunStore {
  constructor(
    private readonly db: Kysely<Database>,
    /** Told of every terminal write, in its transaction. */
    private readonly onFinished?: RunsFinished,
    /** Wake-ups between processes (PostgreSQL); polling alone without. */
    readonly signals: RunSignals = pollingRunSignals,
    /** Locks between processes (PostgreSQL): with them, the per-user run limit holds across workers. */
    private readonly userLocks?: KeyLocks,
  ) {}

  private async told(trx: Kysely<Database>, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.toldRows(trx, await trx.selectFrom('runs').selectAll().where('id', 'in', ids).execute());
  }

  /** The ended rows as written (the terminal UPDATE returns them: no read back). */
  private async toldRows(trx: Kysely<Database>, rows: RunRow[]): Promise<void> {
    if (!rows.length) return;
    // Only a sync run has a caller waiting for its end (waitTerminal): a bulk of async runs sends
    // no notices (each NOTIFY also serializes commits on PostgreSQL's notification queue).
    const waited = rows.filter((r) => !r.is_async).map((r) => r.id);
    if (waited.length) await this.signals.announceEnded(trx, waited);
    if (this.onFinished) await this.onFinished(trx, rows);
  }

  /** Stores a new run; `announce`: tell the worker processes it is pending (ROLE=api). */
  async insert(row: RunRow, announce = false): Promise<void> {
    const failure = await this.inserts.add(row);
    if (failure) throw failure;
    if (announce) await this.signals.announcePending(this.db, { id: row.id, userId: row.user_id, sync: !row.is_async });
  }

  /** The run path's statements, compiled once per batch size (shaped-queries.ts). */
  private readonly shaped = new ShapedQueries();

  /**
   * Group commit for run creation: the new runs of one event-loop turn are stored with one
   * statement and one commit (under load, a commit per run was the largest write cost of a run).
   * Each caller still hears only after its row is stored. A batch the database refuses is stored
   * again row by row, so only a row that is itself refused fails.
   */
  private readonly inserts = new Batcher<RunRow, Error | null>(async (rows) => {
    const insert = (part: RunRow[]) => {
      const cols = Object.keys(part[0]!) as (keyof RunRow)[];
      // Rows with the same columns only (the service builds every row alike); anything else is built afresh.
      const alike = (r: RunRow) => Object.keys(r).length === cols.length && cols.every((c) => c in r);
      if (!part.every(alike)) return this.db.insertInto('runs').values(part).execute();
      const values = part.flatMap((r) => cols.map((c) => r[c]));
      const rowsOf = (v: readonly unknown[]) =>
        part.map((_, i) => Object.fromEntries(cols.map((c, j) => [c, v[i * cols.length + j]])) as unknown as RunRow);
      return this.db.executeQuery(
        this.shaped.compile(`insert runs ${part.length} ${cols.join()}`, values, (v) =>
          this.db.insertInto('runs').values(rowsOf(v)).compile(),
        ),
      );
    };
    const out: (Error | null)[] = [];
    // A multi-row INSERT is atomic: the chunks before a refused one are stored, the rest are not.
    for (let i = 0; i < rows.length; i += INSERT_BATCH_MAX) {
      const part = rows.slice(i, i + INSERT_BATCH_MAX);
      try {
        await insert(part);
        out.push(...part.map(() => null));
      } catch (e) {
        if (part.length === 1) out.push(e as Error);
        else
          for (const r of part)
            out.push(
              await insert([r]).then(
                () => null,
                (err: Error) => err,
              ),
            );
      }
    }
    return out;
  });

  byId(id: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  owned(userId: string, id: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('runs').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  }

  /**
   * Waits for a run another process executes to end, reading its row (every 100 ms, then every
   * 500 ms after 5 s); its status when it ended, or when `maxMs` passed or `stop()` says so.
   */
  async waitTerminal(id: string, maxMs: number, stop: () => boolean): Promise<RunStatus> {
    const t0 = Date.now();
    for (;;) {
      const r = await this.db.selectFrom('runs').select('status').where('id', '=', id).executeTakeFirst();
      const status = r?.status ?? 'internal_error';
      if ((status !== 'pending' && status !== 'running') || stop() || Date.now() - t0 > maxMs) return status;
      // The end notice wakes this early; the read above stays the truth (a notice can be lost).
      await this.signals.ended(id, this.signals.live ? 1000 : Date.now() - t0 < 5000 ? 100 : 500);
    }
  }

  /** How many runs are in each status (metrics: queue depth is the `pending` count). */
  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('runs')
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  async logs(runId: string): Promise<string> {
    const l = await this.db.selectFrom('run_logs').select('logs').where('run_id', '=', runId).executeTakeFirst();
    return l?.logs ?? '';
  }

  /** Runs of one connector version, newest first, after the cursor; `limit + 1` rows for paging. */
  list(userId: string, connectorId: string, version: number, cursor: Cursor | null, limit: number): Promise<RunRow[]> {
    let q = this.db
      .selectFrom('runs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('connector_id', '=', connectorId)
      .where('connector_version', '=', version);
    if (cursor) q = q.where((eb) => afterCursor(eb, 'created_at', cursor));
    return q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
  }

  /** A user's runs of any connector (optionally one connector, one status), newest first; `limit + 1` rows. */
  listByUser(userId: string, filter: { connectorId?: string; status?: string }, cursor: Cursor | null, limit: number): Promise<RunRow[]> {
    let q = this.db.selectFrom('runs').selectAll().where('user_id', '=', userId);
    if (filter.connectorId !== undefined) q = q.where('connector_id', '=', filter.connectorId);
    if (filter.status !== undefined) q = q.where('status', '=', filter.status as RunRow['status']);
    if (cursor) q = q.where((eb) => afterCursor(eb, 'created_at', cursor));
    return q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
  }

  /**
   * Claims pending runs (compare-and-set to `running`), in the order given; one result per request:
   * the claimed row, `capped` (the per-user limit held it back: it stays pending) or `lost`.
   *
   * With `perUser` on a shared database (workers on one PostgreSQL), a user also has at most that
   * many runs running across every process: a lock per user serializes their claims, then one
   * statement reads the named runs and counts the user's running rows, and one claims what fits.
   * There a request may name `alternatives`, runs of the same user queued after it: when its run
   * was claimed elsewhere, the first alternative still pending is claimed instead. Workers queue
   * the same pending rows, so without them about half the claims of two workers were lost to each
   * other, each one a transaction. `gone`: alternatives no longer pending (to drop from the caller's queue).
   */
  async claim(
    reqs: ClaimRequest[],
    leaseUntil: string,
    perUser?: number,
  ): Promise<{ results: ClaimResult[]; gone: { id: string; userId: string }[] }> {
    const lockUsers = this.userLocks;
    if (!lockUsers || perUser === undefined) {
      const { rows } = await this.db.executeQuery(
        this.shaped.compile(`claim ${reqs.length}`, [nowIso(), leaseUntil, ...reqs.map((r) => r.id)], ([startedAt, lease, ...ids]) =>
          this.db
            .updateTable('runs')
            .set({ status: 'running', started_at: startedAt as string, lease_until: lease as string, progress: null })
            .where('id', 'in', ids as string[])
            .where(statusOfRow, '=', 'pending')
            .returningAll()
            .compile(),
        ),
      );
      const won = new Map(rows.map((r) => [r.id, r]));
      return { results: reqs.map((r) => won.get(r.id) ?? 'lost'), gone: [] };
    }
    // Per user: how many runs it asks for, and the ids it would take: the requested ones first
    // (a requested run still pending is always among those claimed, unless the limit binds).
    const byUser = new Map<string, { want: number; ids: string[] }>();
    for (const r of reqs) {
      const u = byUser.get(r.userId) ?? { want: 0, ids: [] };
      byUser.set(r.userId, u);
      u.want++;
      u.ids.push(r.id);
    }
    for (const r of reqs) {
      const u = byUser.get(r.userId)!;
      for (const id of r.alternatives ?? []) if (!u.ids.includes(id)) u.ids.push(id);
    }
    const users = [...byUser.keys()];
    const ids = [...byUser.values()].flatMap((u) => u.ids);
    const { won, pendingOf, seen } = await retryTransaction(() =>
      this.db.transaction().execute(async (trx) => {
        await lockUsers(
          trx,
          users.map((u) => `runs-of:${u}`),
        );
        // Statements after the locks: their snapshots see every claim the locks waited for. First
        // what is to be decided (the named runs by primary key, the users' running runs in the
        // partial index of running rows), then one plain UPDATE of the runs that fit. As one
        // statement with CTEs the claim cost PostgreSQL ≈ 300 µs more CPU than this read and
        // update together (docs/architecture.md, "The run queue across processes").
        const read = await sql<{ id: string | null; user_id: string; status: string | null; running: number | null }>`
          select id, user_id, status, null::int as running from runs where id = any(${ids}::text[])
          union all
          select null, user_id, null, count(*)::int from runs where status = 'running' and user_id = any(${users}::text[]) group by user_id`.execute(
          trx,
        );
        const pendingOwner = new Map<string, string>(); // named runs still pending, and whose they are
        const running = new Map<string, number>();
        for (const r of read.rows) {
          if (r.id === null) running.set(r.user_id, Number(r.running));
          else if (r.status === 'pending') pendingOwner.set(r.id, r.user_id);
        }
        // Per user: its pending named runs in the order asked, and as many of them as fit.
        const fits: string[] = [];
        const held: { id: string; userId: string }[] = [];
        for (const [userId, u] of byUser) {
          const pending = u.ids.filter((id) => pendingOwner.get(id) === userId);
          const room = Math.max(0, Math.min(u.want, perUser - (running.get(userId) ?? 0)));
          fits.push(...pending.slice(0, room));
          held.push(...pending.slice(room).map((id) => ({ id, userId })));
        }
        const claimed = fits.length
          ? (
              await sql<RunRow>`
                update runs set status = 'running', started_at = ${nowIso()}, lease_until = ${leaseUntil}, progress = null
                where id = any(${fits}::text[]) and ${statusOfRow} = 'pending' returning *`.execute(trx)
            ).rows
          : [];
        return {
          won: new Map(claimed.map((r) => [r.id, r])),
          // Users with runs still pending among their ids (held back by the limit).
          pendingOf: new Set(held.map((h) => h.userId)),
          seen: new Set([...claimed.map((r) => r.id), ...held.map((h) => h.id)]),
        };
      }),
    );
    // Each request takes its own run if it was won, else the next won one of its user.
    const results: ClaimResult[] = reqs.map((r) => won.get(r.id) ?? 'lost');
    const taken = new Set(reqs.filter((r) => won.has(r.id)).map((r) => r.id));
    reqs.forEach((r, i) => {
      if (results[i] !== 'lost') return;
      const spare = byUser.get(r.userId)!.ids.find((id) => won.has(id) && !taken.has(id));
      if (spare) {
        taken.add(spare);
        results[i] = won.get(spare)!;
      } else if (pendingOf.has(r.userId)) results[i] = 'capped';
    });
    const asked = new Set(reqs.map((r) => r.id));
    const gone = [...byUser].flatMap(([userId, u]) => u.ids.filter((id) => !seen.has(id) && !asked.has(id)).map((id) => ({ id, userId })));
    return { results, gone };
  }

  /** Renews the leases of runs this process executes or holds secret_values for. */
  async renew(unsorted: string[], leaseUntil: string): Promise<void> {
    const ids = [...unsorted].sort();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      await retryTransaction(() =>
        this.db
          .updateTable('runs')
          .set({ lease_until: leaseUntil })
          .where('id', 'in', chunk)
          .where('status', 'in', ['pending', 'running'])
          .execute(),
      );
    }
  }

  /** Each user's oldest pending runs (at most `perUser` each, `total` in all), interleaved by rank. */
  pending(perUser: number, total: number): Promise<{ id: string; user_id: string; is_async: number }[]> {
    // Window functions exist in SQLite ≥ 3.25 and PostgreSQL alike.
    const ranked = this.db
      .selectFrom('runs')
      .select([
        'id',
        'user_id',
        'is_async',
        'created_at',
        sql<number>`row_number() over (partition by user_id order by created_at, id)`.as('rn'),
      ])
      .where('status', '=', 'pending')
      // A run with secret_values can only be executed by the process holding them (it announced
      // the run in memory); the others leave it alone.
      .where('ephemeral_secrets', '=', 0)
      .as('p');
    return this.db
      .selectFrom(ranked)
      .select(['p.id', 'p.user_id', 'p.is_async'])
      .where('p.rn', '<=', perUser)
      .orderBy('p.rn')
      .orderBy('p.created_at')
      .orderBy('p.id')
      .limit(total)
      .execute();
  }

  /**
   * Runs whose process died: executing with a lease that ran out (or none: rows from before
   * leases), or waiting with secret_values only a dead process held.
   */
  async orphans(now: string): Promise<{ running: string[]; lostSecrets: string[] }> {
    const expired = (eb: any) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]);
    const running = await this.db.selectFrom('runs').select('id').where('status', '=', 'running').where(expired).execute();
    const lost = await this.db
      .selectFrom('runs')
      .select('id')
      .where('status', '=', 'pending')
      .where('ephemeral_secrets', '=', 1)
      .where(expired)
      .execute();
    return { running: running.map((r) => r.id), lostSecrets: lost.map((r) => r.id) };
  }

  /** Ends a run that has not finished as internal_error, appending `line` to its logs. */
  async endAsInternalError(id: string, line: string): Promise<void> {
    const now = nowIso();
    await this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('runs')
        .set({ status: 'internal_error', finished_at: now, has_logs: 1 })
        .where('id', '=', id)
        .where('status', 'in', ['running', 'pending'])
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return;
      const old = await trx.selectFrom('run_logs').select('logs').where('run_id', '=', id).executeTakeFirst();
      const stamped = `${now} ${line}`;
      if (old)
        await trx
          .updateTable('run_logs')
          .set({ logs: `${old.logs}\n${stamped}` })
          .where('run_id', '=', id)
          .execute();
      else await trx.insertInto('run_logs').values({ run_id: id, logs: stamped }).execute();
      await this.told(trx, [id]);
    });
  }

  /**
   * The log so far of a running run. The terminal write replaces it; a live write that arrives
   * after it (another pooled connection) changes nothing, as the run is no longer running.
   */
  async saveLiveLogs(runId: string, logs: string): Promise<void> {
    await this.db
      .insertInto('run_logs')
      .values({ run_id: runId, logs })
      .onConflict((oc) =>
        oc
          .column('run_id')
          .doUpdateSet({ logs })
          .where(({ exists, selectFrom }) =>
            exists(selectFrom('runs').select('runs.id').whereRef('runs.id', '=', 'run_logs.run_id').where('runs.status', '=', 'running')),
          ),
      )
      .execute();
  }

  /** A running run's latest progress (JSON); a run that has ended keeps its terminal null. */
  async saveProgress(runId: string, progress: string | null): Promise<void> {
    await this.db.updateTable('runs').set({ progress }).where('id', '=', runId).where('status', '=', 'running').execute();
  }

  /** pending → cancelled; false when the run was no longer pending (claimed, or ended). */
  async cancelPending(id: string, line: string): Promise<boolean> {
    const now = nowIso();
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('runs')
        .set({ status: 'cancelled', finished_at: now, has_logs: 1, lease_until: null })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await trx
        .insertInto('run_logs')
        .values({ run_id: id, logs: `${now} ${line}` })
        .execute();
      await this.told(trx, [id]);
      return true;
    });
  }

  /** Asks whichever process executes a running run to stop it (read with lease renewals). */
  async requestCancel(id: string): Promise<void> {
    await this.db.updateTable('runs').set({ cancel_requested: 1 }).where('id', '=', id).where('status', '=', 'running').execute();
  }

  /** Of these runs, the ones a cancel was asked for. */
  async cancelRequested(ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await this.db
      .selectFrom('runs')
      .select('id')
      .where('id', 'in', ids)
      .where('cancel_requested', '=', 1)
      .where('status', '=', 'running')
      .execute();
    return rows.map((r) => r.id);
  }

  /** Terminal state and logs; writes of runs finishing in the same event-loop turn share one transaction. */
  finish(w: TerminalWrite): Promise<void> {
    return this.terminal.add(w);
  }

  // The batch is listed in id order, as lease renewals lock theirs; the database may still lock
  // the rows in another order, and a deadlock with a renewal of the same rows makes PostgreSQL
  // abort one side: then the batch is written again.
  private readonly terminal = new Batcher<TerminalWrite, void>(async (unsorted) => {
    const batch = [...unsorted].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    await retryTransaction(() => this.writeTerminal(batch));
    return unsorted.map(() => undefined);
  });

  /**
   * A terminal status is written once: a run another process already ended (its lease ran out)
   * keeps that end. The batch's rows are ended by one statement (from a VALUES list), not one
   * UPDATE each: on PostgreSQL every statement is a round trip. A batch holds at most the runs this
   * process executes (RUN_CONCURRENCY ≤ 256, 8 parameters each): well within both databases'
   * parameter limits.
   */
  private writeTerminal(batch: TerminalWrite[]): Promise<void> {
    const values = batch.flatMap((b) => [
      b.runId,
      b.status,
      b.result,
      b.result === null ? 0 : 1,
      b.resultSizeBytes,
      b.error,
      b.logs ? 1 : 0,
      b.finishedAt,
    ]);
    const end = this.shaped.compile(`terminal ${batch.length}`, values, (v) => {
      const list = sql.join(batch.map((_, i) => sql`(${sql.join(v.slice(i * 8, i * 8 + 8))})`));
      // A row-valued SET from the list: both databases, and `returning *` stays the runs row.
      // Casts: PostgreSQL types a VALUES list of parameters as text.
      return sql<RunRow>`
        with v(id, status, result, result_stored, result_size_bytes, error, has_logs, finished_at) as (values ${list})
        update runs set (status, result, result_stored, result_size_bytes, error, has_logs, finished_at, progress) = (
          select v.status, v.result, cast(v.result_stored as integer), cast(v.result_size_bytes as bigint), v.error,
            cast(v.has_logs as integer), v.finished_at, null
          from v where v.id = runs.id
        )
        where runs.id in (select id from v) and (${statusOfRow}) in ('pending', 'running')
        returning *`.compile(this.db);
    });
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await trx.executeQuery(end);
      const ended = new Set(rows.map((r) => r.id));
      const logs = batch.filter((b) => b.logs && ended.has(b.runId)).flatMap((b) => [b.runId, b.logs]);
      // Upsert: a running run's log may already be there (saveLiveLogs).
      if (logs.length)
        await trx.executeQuery(
          this.shaped.compile(`run_logs ${logs.length}`, logs, (v) =>
            this.db
              .insertInto('run_logs')
              .values(Array.from({ length: v.length / 2 }, (_, i) => ({ run_id: v[2 * i] as string, logs: v[2 * i + 1] as string })))
              .onConflict((oc) => oc.column('run_id').doUpdateSet((eb) => ({ logs: eb.ref('excluded.logs') })))
              .compile(),
          ),
        );
      await this.toldRows(trx, rows);
    });
  }
}
