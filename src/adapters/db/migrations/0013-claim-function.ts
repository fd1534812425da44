// PostgreSQL: the claim of runs with the per-user limit across workers (RunStore.claim) as one
// function call, one round trip. It used to be four — BEGIN, the users' advisory locks, the claim,
// COMMIT — with the locks held across the last two. Each round trip costs the worker and the server
// a wake-up (about 0.1 ms of CPU each on a small VM), and one user's claims wait for each other on
// the lock, so the time it is held bounds one user's claim rate across the whole fleet.
//
// Why a function: the per-user count must see every claim the lock waited for, so it needs a
// snapshot taken after the lock. A plain statement's snapshot is taken before it runs; in a
// PL/pgSQL function each statement takes its own (READ COMMITTED), so the claim after PERFORM sees
// them. The locks (the same keys as before: `runs-of:<user id>`, taken in the order given, sorted
// by the caller) end with the call's implicit transaction.
//
// Plans: `plan_cache_mode = force_custom_plan` plans the claim with each call's values. A cached
// generic plan would be made once per connection and kept (like a named statement, see
// pg-prepared-client.ts): one made while `runs` was nearly empty could stay a sequential scan.
//
// Never edit this once shipped: a changed claim is a new migration with `create or replace`.
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * The claim, with the function's parameters as $1..$6: users (text[], sorted), how many runs each
 * asks for (int[]), the ids it may take in order of preference (text[]), the per-user limit, started_at,
 * lease_until. Rows come back as the table's: the claimed ones `running`, the candidates the limit
 * held back `pending`. Exported so a test can explain its plan as the function runs it.
 */
export const CLAIM_RUNS_QUERY = `
  with req as (
    select * from unnest($1::text[], $2::int[]) as t(user_id, want)
  ), named as materialized (
    -- By primary key alone (materialized: the status test can't steer the plan to the much larger
    -- status index when the table's statistics are stale, as on a young database).
    select id, user_id, status from runs where id = any($3::text[])
  ), cand as (
    select id, user_id, row_number() over (partition by user_id order by array_position($3::text[], id)) as rn
    from named where status = 'pending'
  ), busy as (
    select user_id, count(*) as n from runs
    where status = 'running' and user_id in (select user_id from cand) group by user_id
  ), fits as (
    select cand.id from cand join req on req.user_id = cand.user_id left join busy on busy.user_id = cand.user_id
    where cand.rn <= least(req.want, $4::int - coalesce(busy.n, 0))
  ), won as (
    update runs set status = 'running', started_at = $5::text, lease_until = $6::text, progress = null
    where id in (select id from fits) and status = 'pending' returning *
  )
  select won.* from won
  union all select runs.* from runs where id in (select id from cand where id not in (select id from fits))`;

export const m0013: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await sql`
      create or replace function claim_runs(text[], int[], text[], int, text, text) returns setof runs
      language plpgsql volatile
      set plan_cache_mode = force_custom_plan
      as $fn$
      begin
        perform pg_advisory_xact_lock(hashtextextended('runs-of:' || u, 0)) from unnest($1) as u;
        return query ${sql.raw(CLAIM_RUNS_QUERY)};
      end
      $fn$`.execute(db);
  },
  async down(db: Kysely<any>) {
    if (isPostgres(db)) await sql`drop function if exists claim_runs(text[], int[], text[], int, text, text)`.execute(db);
  },
};
