// PostgreSQL plans every unnamed statement afresh, and Kysely sends every query unnamed. Measured
// under the run benchmark, planning was 30% of PostgreSQL's time (a primary-key lookup: 0.02 ms to
// run, 0.08 ms to plan). This client gives each parameterized statement a name by its text, so
// each connection parses it once and PostgreSQL keeps its plan (its plan cache picks a generic
// plan after five runs when that costs no more than the custom ones). The counterpart of the
// statement cache on SQLite (connect.ts).
//
// Bounded: at most MAX_NAMES texts in all and MAX_PER_CONNECTION per connection are named (a
// multi-row INSERT has one text per row count); the rest run unnamed, as before.
//
// A kept plan is never made again by itself: one made while a table was nearly empty (a sequential
// scan is then cheapest) would stay after the table grew, until an ANALYZE invalidates it — never,
// where autovacuum is off. So a connection prepares a statement again once its plan is
// REPLAN_AFTER_MS old: plans follow the tables' growth, at one planning per statement and
// connection that often.
//
// A prepared statement whose result columns change under it (a migration added a column to a
// table read with `*`) fails once with 0A000 "cached plan must not change result type". The
// text is then sent unnamed on that connection from then on; outside a transaction the query is
// sent again at once, inside one the error stands (the transaction is already aborted).
import pg from 'pg';

const MAX_NAMES = 2000;
const MAX_PER_CONNECTION = 300;
export const REPLAN_AFTER_MS = 10_000;

/** Statement names by text, the same on every connection (a name always means one text). */
const names = new Map<string, string>();

function nameFor(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMES) names.set(text, (name = `cs_${names.size + 1}`));
  return name;
}

export class PreparingClient extends pg.Client {
  private namedHere = 0;
  /** Names whose plan went stale here (0A000): their texts run unnamed on this connection. */
  private readonly stale = new Set<string>();
  private inTransaction = false;
  /** When each statement was last prepared here. */
  private readonly preparedAt = new Map<string, number>();
  /** How old a plan may get (tests shorten it). */
  replanAfterMs = REPLAN_AFTER_MS;

  // pg's query() has many overloads; Kysely calls query(text, values).
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config !== 'string') return super.query(config, values, callback);
    this.track(config);
    const name = Array.isArray(values) && values.length > 0 && typeof callback !== 'function' ? this.nameHere(config) : undefined;
    if (!name) return super.query(config, values, callback);
    const inTransaction = this.inTransaction;
    if (this.spent(name)) {
      // Queued in order on this connection: the statement is dropped, then parsed and planned anew.
      // (DEALLOCATE is not transactional. Should it fail — an aborted transaction — the statement
      // still exists, so its text runs unnamed here from then on.)
      super.query(`DEALLOCATE ${name}`).catch(() => this.stale.add(name));
      delete this.parsed()[name];
    }
    const named = super.query({ name, text: config, values }) as unknown as Promise<unknown>;
    return named.catch((e: { code?: string }) => {
      if (e?.code !== '0A000') throw e;
      this.stale.add(name);
      if (inTransaction) throw e;
      return super.query(config, values);
    });
  }

  /** Statements this connection has prepared (pg's own record, by name). */
  private parsed(): Record<string, string> {
    return (this as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements;
  }

  /** Whether a prepared statement is due to be prepared again (notes when it will be). */
  private spent(name: string): boolean {
    const now = Date.now();
    const at = this.preparedAt.get(name);
    const due = name in this.parsed() && at !== undefined && now - at >= this.replanAfterMs;
    if (due || at === undefined) this.preparedAt.set(name, now);
    return due;
  }

  private nameHere(text: string): string | undefined {
    const name = nameFor(text);
    if (name === undefined || this.stale.has(name)) return undefined;
    if (name in this.parsed()) return name;
    if (this.namedHere >= MAX_PER_CONNECTION) return undefined;
    this.namedHere++;
    return name;
  }

  /** Whether a transaction is open on this connection (Kysely begins and ends them with plain text). */
  private track(text: string): void {
    if (text.length > 80) return;
    const t = text.trim().toLowerCase();
    if (t === 'begin' || t.startsWith('start transaction')) this.inTransaction = true;
    else if (t === 'commit' || t === 'rollback' || t === 'end') this.inTransaction = false;
  }
}

/** The client class for a pool whose plans are made again once `replanAfterMs` old. */
export function preparingClient(replanAfterMs: number): typeof PreparingClient {
  return class extends PreparingClient {
    override replanAfterMs = replanAfterMs;
  };
}
