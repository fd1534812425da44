// Issue 9, finding 9: no user can hold the runs of another back. User A piles up a backlog of slow
// async runs (submitted over the API, or found in the database by the periodic scan); user B's one
// sync run still completes within a few seconds, long before A's backlog drains, and A never has
// more than RUN_MAX_CONCURRENCY_PER_USER runs executing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { pendingRunRow, publish, run } from './helpers/runs.js';
import { newId } from '../src/lib/ids.js';

const SLOW_MS = 300;
const waitFor = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(await backends())('fair scheduling of runs across users (%s)', (backend) => {
  let site: DemoSite;
  const open: Harness[] = [];
  beforeAll(async () => {
    site = await startDemoSite();
  });
  afterAll(async () => {
    for (const h of open) await h.close();
    await site?.close();
  });

  const slowDef = () => ({
    definition: {
      format: 'connector-definition/v1',
      engine: 'http',
      steps: [{ id: 'wait', url: `${site.url}/api/slow?ms=${SLOW_MS}` }],
      result: { waited: true },
    },
  });
  const quickDef = () => ({
    definition: {
      format: 'connector-definition/v1',
      engine: 'http',
      steps: [{ id: 'wait', url: `${site.url}/api/slow?ms=10` }],
      result: { quick: true },
    },
  });

  async function setup(env: Record<string, string>) {
    const h = await startHarness(backend, env);
    open.push(h);
    const b = await h.newUser('bystander');
    const slow = await publish(h, slowDef());
    const quick = await publish(h, quickDef(), b.key);
    return { h, b, slow, quick };
  }

  const countA = async (h: Harness, status: 'pending' | 'running') =>
    Number(
      (
        await h.services.db
          .selectFrom('runs')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('user_id', '=', h.userId)
          .where('status', '=', status)
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** B's sync run: its latency, and A's runs still pending when it came back. */
  async function bystanderRun(h: Harness, b: { key: string }, quickId: string) {
    const t0 = Date.now();
    const r = await run(h, { connector_id: quickId }, b.key);
    const ms = Date.now() - t0;
    expect(r).toMatchObject({ status: 'success', result: { quick: true } });
    return { ms, pendingA: await countA(h, 'pending') };
  }

  it("a backlog of 300 slow async runs doesn't hold another user's sync run; one user runs at most its share", async () => {
    const { h, b, slow, quick } = await setup({ RUN_CONCURRENCY: '4' });
    expect(h.config.runMaxConcurrencyPerUser).toBe(2); // the default: half of RUN_CONCURRENCY
    for (let i = 0; i < 300; i += 30) {
      const batch = await Promise.all(
        Array.from({ length: 30 }, () => h.api('POST', '/v1beta/runs', { connector_id: slow.id, async: true })),
      );
      for (const r of batch) expect(r.status).toBe(202);
    }
    // A's runs execute two at a time at most (300 × 300 ms / 2 = 45 s of backlog).
    for (let i = 0; i < 5; i++) {
      expect(await countA(h, 'running')).toBeLessThanOrEqual(2);
      await waitFor(50);
    }
    const { ms, pendingA } = await bystanderRun(h, b, quick.id);
    expect(ms).toBeLessThan(3000);
    expect(pendingA).toBeGreaterThan(250);
    // A's own sync run (a client is waiting) goes before A's queued async runs.
    const mine = await publish(h, quickDef());
    const t0 = Date.now();
    expect(await run(h, { connector_id: mine.id })).toMatchObject({ status: 'success', result: { quick: true } });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(await countA(h, 'pending')).toBeGreaterThan(240);
  }, 120_000);

  it('round-robin alone: with no slot to spare, the next free one goes to the waiting user', async () => {
    const { h, b, slow, quick } = await setup({ RUN_CONCURRENCY: '2', RUN_MAX_CONCURRENCY_PER_USER: '2' });
    for (let i = 0; i < 100; i += 25)
      await Promise.all(Array.from({ length: 25 }, () => h.api('POST', '/v1beta/runs', { connector_id: slow.id, async: true })));
    // Both slots are A's: B waits for one of A's runs (≤ 300 ms), not for A's 100 (~15 s).
    const { ms, pendingA } = await bystanderRun(h, b, quick.id);
    expect(ms).toBeLessThan(4000);
    expect(pendingA).toBeGreaterThan(60);
  }, 60_000);

  it('the periodic scan interleaves users: a backlog found in the database (restart, another process) hides no one', async () => {
    const { h, b, slow, quick } = await setup({ RUN_CONCURRENCY: '4' });
    // 700 of A's runs and then one of B's, inserted as pending rows the way another process (or a
    // server before its restart) leaves them: no in-memory announcement, only the scan finds them.
    const base = Date.now() - 60_000;
    const row = (userId: string, connectorId: string, i: number) =>
      pendingRunRow({ id: newId(), user_id: userId, connector_id: connectorId, created_at: new Date(base + i).toISOString() });
    for (let k = 0; k < 700; k += 100) {
      await h.services.db
        .insertInto('runs')
        .values(Array.from({ length: 100 }, (_, i) => row(h.userId, slow.id, k + i)))
        .execute();
    }
    const mine = row(b.userId, quick.id, 1000);
    await h.services.db.insertInto('runs').values(mine).execute();
    const t0 = Date.now();
    let status = 'pending';
    while (status !== 'success' && Date.now() - t0 < 30_000) {
      await waitFor(100);
      status = (await h.api('GET', `/v1beta/runs/${mine.id}`, undefined, b.key)).json.status;
    }
    // One scan interval (2 s) and a free slot: not the ~100 s of A's backlog ahead of it.
    expect(status).toBe('success');
    expect(Date.now() - t0).toBeLessThan(6000);
    expect(await countA(h, 'pending')).toBeGreaterThan(600);
  }, 60_000);
});
