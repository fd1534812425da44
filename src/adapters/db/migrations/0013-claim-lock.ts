// PostgreSQL: the claim of runs with the per-user limit across workers (RunStore.claim) as one
// statement, one round trip. It used to be four — BEGIN, the users' advisory locks, the claim,
// COMMIT — with the locks held across the last two. Each round trip costs the worker and the server
// a wake-up (about 0.1 ms of CPU each on a small VM), and one user's claims wait for each other on
// the lock, so the time it is held bounds one user's claim rate across the whole fleet.
//
// The claim must see the users' runs as they are once its lock is granted (claims the lock waited
// for included), but a statement's snapshot is taken before it runs. So the lock and the reads
// that decide what to claim are this function's: in a PL/pgSQL function each statement takes its
// own snapshot (READ COMMITTED), so after PERFORM took the locks it reads which of the named runs
// are still pending and how many of each user's are running, claims the wait was for included. The
// UPDATE of the claim then takes those runs (it re-checks `status = 'pending'` on each row's latest
// version, which leaves a run cancelled meanwhile).
//
// The locks are the same keys as before (`runs-of:<user id>`, in the order given, which the caller
// sorts), so claims of this version and the one before wait for each other during a rolling
// upgrade; they end with the claim's implicit transaction. `rows 20` tells the claim's planner the
// function returns a handful of rows (not the default 1,000), so it takes the runs it names by
// primary key rather than by scanning the table. The two reads are planned with each
// call's values (`plan_cache_mode = force_custom_plan`, cheap for index lookups): a plan kept for
// the connection's life could be a sequential scan made while `runs` was nearly empty. The claim
// itself is a named statement of the pool's client, whose plans are made again every 10 s
// (pg-prepared-client.ts).
//
// Never edit this once shipped: a changed function is a new migration with `create or replace`.
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export const m0013: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await sql`
      create or replace function lock_and_read_claimable(users text[], ids text[])
        returns table (run_id text, for_user text, running bigint)
      language plpgsql volatile rows 20
      set plan_cache_mode = force_custom_plan
      as $fn$
      begin
        perform pg_advisory_xact_lock(hashtextextended('runs-of:' || u, 0)) from unnest(users) as u;
        -- The named runs still pending, then each user's running count.
        return query select r.id, r.user_id, null::bigint from runs r where r.id = any(ids) and r.status = 'pending';
        return query select null::text, r.user_id, count(*) from runs r where r.status = 'running' and r.user_id = any(users) group by r.user_id;
      end
      $fn$`.execute(db);
  },
  async down(db: Kysely<any>) {
    if (isPostgres(db)) await sql`drop function if exists lock_and_read_claimable(text[], text[])`.execute(db);
  },
};
