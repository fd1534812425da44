// Run creation is group-committed (RunStore.insert): the new runs of one event-loop turn go to the
// database in one statement. Each caller still learns the fate of its own row: a row the database
// refuses fails alone, and the rows beside it in the batch are stored. And on a shared database
// (PostgreSQL), a claim whose run another worker took takes a queued alternative instead.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { publish, run, waitRun } from './helpers/runs.js';

for (const backend of await backends()) {
  describe(`run creation in batches (${backend})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(backend);
    });
    afterAll(async () => {
      await h?.close();
    });

    /** The row of a run that ended, as a template for rows written straight to the store. */
    const endedRow = async () => {
      const c = await publish(h, {
        definition: { format: 'connector-definition/v1', engine: 'script', source: 'export default async () => 1' },
      });
      const first = await run(h, { connector_id: c.id });
      await waitRun(h, first.id);
      return (await h.services.runtime.store.byId(first.id))!;
    };

    it('stores every row of a turn, and a refused row fails alone', async () => {
      const store = h.services.runtime.store;
      const template = await endedRow();
      // Ended rows, so no dispatcher picks them up while the test looks at them.
      const fresh = () => ({ ...template, id: crypto.randomUUID(), status: 'cancelled' as const });
      const rows = [fresh(), fresh(), { ...template }, fresh()];
      // One turn: all four are in one batch; the third repeats an existing id.
      const results = await Promise.allSettled(rows.map((r) => store.insert(r)));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      for (const r of [rows[0], rows[1], rows[3]]) expect((await store.byId(r.id))?.status).toBe('cancelled');
      expect((await store.byId(template.id))?.status).toBe('success');
      // And a batch without a bad row: all stored.
      const more = [fresh(), fresh(), fresh()];
      await Promise.all(more.map((r) => store.insert(r)));
      for (const r of more) expect(await store.byId(r.id)).toBeTruthy();
    });

    it.runIf(backend === 'postgres')('a claim whose run another worker took claims the first alternative still pending', async () => {
      const store = h.services.runtime.store;
      const template = await endedRow();
      const lease = new Date(Date.now() + 3600_000).toISOString();
      // Pending rows no dispatcher here picks up (as if their secret_values lived in another process).
      const [a, b, cc, d, e, f] = Array.from({ length: 6 }, () => crypto.randomUUID());
      for (const id of [a, b, cc, d, e, f])
        await store.insert({
          ...template,
          id,
          status: 'pending',
          ephemeral_secrets: 1,
          lease_until: lease,
          started_at: null,
          finished_at: null,
        });
      const userId = template.user_id;
      const claimed = async (reqs: { id: string; alternatives?: string[] }[], perUser = 100) => {
        const r = await store.claim(
          reqs.map((q) => ({ ...q, userId })),
          lease,
          perUser,
        );
        return { ids: r.results.map((x) => (typeof x === 'object' ? x.id : x)), gone: r.gone.map((g) => g.id).sort() };
      };
      expect(await claimed([{ id: a }])).toEqual({ ids: [a], gone: [] });
      // `a` is taken (another worker): the claim takes b, and c stays queued.
      expect(await claimed([{ id: a, alternatives: [b, cc] }])).toEqual({ ids: [b], gone: [] });
      expect(await claimed([{ id: cc }])).toEqual({ ids: [cc], gone: [] });
      // Two requests in one batch: each gets a run; c is reported gone (to drop from the queue).
      expect(await claimed([{ id: a, alternatives: [cc, d] }, { id: e }])).toEqual({ ids: [d, e], gone: [cc] });
      expect(await claimed([{ id: a, alternatives: [b, cc] }])).toEqual({ ids: ['lost'], gone: [b, cc].sort() });
      // The per-user limit binds: nothing claimed, the run stays pending.
      const running = (
        await h.services.db.selectFrom('runs').select('id').where('user_id', '=', userId).where('status', '=', 'running').execute()
      ).length;
      expect(await claimed([{ id: a, alternatives: [f] }], running)).toEqual({ ids: ['capped'], gone: [] });
      expect((await store.byId(f))?.status).toBe('pending');
      expect(await claimed([{ id: a, alternatives: [f] }], running + 1)).toEqual({ ids: [f], gone: [] });
      await h.services.db.updateTable('runs').set({ status: 'cancelled' }).where('id', 'in', [a, b, cc, d, e, f]).execute();
    });

    it('ends the runs of one turn with one write, each with its own values; a run already ended keeps its end', async () => {
      const store = h.services.runtime.store;
      const template = await endedRow();
      const lease = new Date(Date.now() + 3600_000).toISOString();
      const [a, b, cc, d] = Array.from({ length: 4 }, () => crypto.randomUUID());
      // Running rows of another process (a live lease): nothing here executes or sweeps them.
      for (const id of [a, b, cc])
        await store.insert({ ...template, id, status: 'running', lease_until: lease, finished_at: null, result: null, has_logs: 0 });
      await store.insert({ ...template, id: d, status: 'timed_out', result: null, error: null, has_logs: 0 });
      const at = new Date().toISOString();
      await Promise.all([
        store.finish({ runId: a, status: 'success', result: '{"n":1}', resultSizeBytes: 7, error: null, finishedAt: at, logs: 'line a' }),
        store.finish({ runId: b, status: 'success', result: null, resultSizeBytes: 5_000_000, error: null, finishedAt: at, logs: '' }),
        store.finish({
          runId: cc,
          status: 'connector_error',
          result: null,
          resultSizeBytes: null,
          error: '{"type":"x"}',
          finishedAt: at,
          logs: 'line c',
        }),
        store.finish({
          runId: d,
          status: 'success',
          result: '{"late":true}',
          resultSizeBytes: 13,
          error: null,
          finishedAt: at,
          logs: 'late',
        }),
      ]);
      const row = async (id: string) => {
        const r = (await store.byId(id))!;
        return [
          r.status,
          r.result,
          r.result_stored,
          r.result_size_bytes,
          r.error,
          r.has_logs,
          r.finished_at,
          r.progress,
          await store.logs(id),
        ];
      };
      expect(await row(a)).toEqual(['success', '{"n":1}', 1, 7, null, 1, at, null, 'line a']);
      expect(await row(b)).toEqual(['success', null, 0, 5_000_000, null, 0, at, null, '']);
      expect(await row(cc)).toEqual(['connector_error', null, 0, null, '{"type":"x"}', 1, at, null, 'line c']);
      // Ended before (its lease ran out, say): the late write changes nothing, logs included.
      expect(await row(d)).toEqual([
        'timed_out',
        null,
        template.result_stored,
        template.result_size_bytes,
        null,
        0,
        template.finished_at,
        null,
        '',
      ]);
    });

    it('runs created side by side through the API all execute', async () => {
      const c = await publish(h, {
        definition: { format: 'connector-definition/v1', engine: 'script', source: 'export default async () => 2' },
      });
      const created = await Promise.all(Array.from({ length: 12 }, () => run(h, { connector_id: c.id, async: true })));
      expect(new Set(created.map((r) => r.id)).size).toBe(12);
      for (const r of created) expect((await waitRun(h, r.id)).status).toBe('success');
    });
  });
}
