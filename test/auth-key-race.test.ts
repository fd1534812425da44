// A key lookup that was already reading the database when the key was revoked elsewhere must not
// leave the key cached. On PostgreSQL the lookup is an asynchronous query: its answer ("valid", read
// before the revocation committed) can come back after the revocation's notice cleared the cache,
// and caching it then would let the revoked key in for the cache's lifetime. The lookup's query is
// held at a gate to make that order happen every time. Real PostgreSQL, two service instances.
import type { KyselyPlugin } from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChangeSignal, postgresChangeSignal } from '../src/adapters/db/change-signal.js';
import type { DbHandle } from '../src/adapters/db/connect.js';
import type { Database } from '../src/adapters/db/schema.js';
import { UsersService } from '../src/modules/users/service.js';
import { backends, PG_URL } from './helpers/harness.js';
import { until } from './helpers/processes.js';
import { openScratchDb } from './helpers/scratch-db.js';

const pgOnly = (await backends()).includes('postgres');

describe.runIf(pgOnly)('a key revoked while its lookup runs (postgres)', () => {
  let h: DbHandle<Database> & { schema?: string };
  const signals: ChangeSignal[] = [];
  let here: UsersService;
  let elsewhere: UsersService;
  // Key lookups of `here` wait at the gate while `holding`; `reached` resolves when one does.
  let holding = false;
  let release: () => void = () => {};
  let reached: () => void = () => {};
  const gate: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      if (holding && args.result.rows.some((r) => 'revoked_at' in (r as object))) {
        holding = false;
        reached();
        await new Promise<void>((r) => (release = r));
      }
      return args.result;
    },
  };

  beforeAll(async () => {
    h = await openScratchDb('postgres');
    const signal = () => {
      const s = postgresChangeSignal(PG_URL, h.schema, 'api_keys');
      signals.push(s);
      return s;
    };
    here = new UsersService(h.db.withPlugin(gate), signal());
    elsewhere = new UsersService(h.db, signal());
  });
  afterAll(async () => {
    await Promise.all(signals.map((s) => s.close()));
    await h?.close();
  });

  it('refuses the key on the next request', async () => {
    const user = await elsewhere.createUser('racer');
    const revoked = await elsewhere.createKey(user.id, 'revoked');
    const other = await elsewhere.createKey(user.id, 'other');
    // Both listeners up: a first lookup through `here` clears nothing it needs later.
    const listening = async () =>
      Number(
        (await sql<{ n: string }>`select count(*) as n from pg_stat_activity where query like 'LISTEN api_keys%'`.execute(h.db)).rows[0].n,
      );
    await until('both listeners', async () => (await listening()) === 2, 10_000);
    expect(await here.authenticate(other.key)).toBe(user.id);

    // The lookup reads "valid" and is held before it can cache the answer.
    holding = true;
    const atGate = new Promise<void>((r) => (reached = r));
    const inFlight = here.authenticate(revoked.key);
    await atGate;
    // Revoked elsewhere; its notice reaches this process, and a request with another key clears
    // the cache on it.
    expect(await elsewhere.revokeKey(revoked.info.id)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(await here.authenticate(other.key)).toBe(user.id);
    // The held lookup ends: it answers with what it read (it began before the revocation)...
    release();
    expect(await inFlight).toBe(user.id);
    // ...but the next request with the revoked key is refused.
    expect(await here.authenticate(revoked.key)).toBeNull();
  }, 30_000);
});
