// Run leases across processes on one database: a second process starting (or scanning) never
// touches a run another live process executes — even long past the lease period — nor a queued run
// whose secret_values only the other process holds; runs of a dead process are found by their
// expired lease (the SIGKILL case is test/runs-restart.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { createServices, type Services } from '../src/services.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { publish, run, waitRun } from './helpers/runs.js';

for (const backend of await backends()) {
  describe(`run leases (${backend})`, () => {
    let h: Harness;
    let other: Services | null = null;
    let site: Awaited<ReturnType<typeof startDemoSite>>;
    beforeAll(async () => {
      site = await startDemoSite();
      h = await startHarness(backend, { RUN_LEASE_S: '2', RUN_CONCURRENCY: '2' });
    });
    afterAll(async () => {
      await other?.close();
      await h?.close();
      await site?.close();
    });

    const slow = (ms: number, slots: unknown[] = []) =>
      publish(h, {
        required_secrets: slots,
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          steps: [{ id: 'wait', url: `${site.url}/api/slow?ms=${ms}`, extract: { w: { from: 'json', path: '$.waited_ms' } } }],
          result: { waited: '{{vars.w}}' },
        },
      });

    it("a second process leaves the first one's running and held runs alone, well past the lease period", async () => {
      const long = await slow(6000);
      const withValue = await slow(10, [{ name: 'token', type: 'string' }]);
      const r1 = await run(h, { connector_id: long.id, async: true });
      for (let i = 0; i < 200 && (await h.api('GET', `/v1beta/runs/${r1.id}`)).json.status !== 'running'; i++)
        await new Promise((r) => setTimeout(r, 25));
      // Another process on the same database starts its loops (recovery, scans) while r1 runs.
      other = await createServices(h.config, { pgSchema: h.pgSchema });
      await other.start();
      // A run created with secret_values on the first process: the second must not claim it.
      const row = await h.services.runtime.store.byId(r1.id);
      expect(row?.status).toBe('running');
      expect(row?.lease_until).toBeTruthy();
      const r2 = await run(h, { connector_id: withValue.id, async: true, secret_values: { token: { value: 'held-here' } } });
      // Three lease periods: leases are renewed, so nothing is mistaken for a dead process's run.
      await new Promise((r) => setTimeout(r, 6500));
      expect(await waitRun(h, r1.id, 30_000)).toMatchObject({ status: 'success', result: { waited: 6000 } });
      expect(await waitRun(h, r2.id, 30_000)).toMatchObject({ status: 'success', result: { waited: 10 } });
    }, 60_000);

    it('a running run whose lease ran out is ended internal_error, with a log line saying why', async () => {
      const quick = await slow(10);
      const r = await run(h, { connector_id: quick.id, async: true });
      await waitRun(h, r.id);
      // A run some process claimed and then died with: running, lease long gone.
      await h.services.db
        .updateTable('runs')
        .set({ status: 'running', finished_at: null, lease_until: new Date(Date.now() - 60_000).toISOString() })
        .where('id', '=', r.id)
        .execute();
      const done = await waitRun(h, r.id, 15_000);
      expect(done.status).toBe('internal_error');
      const logs = (await h.api('GET', `/v1beta/runs/${r.id}/logs`)).json.logs;
      expect(logs).toMatch(/server stopped while this run was executing \(its lease ran out\)/);
    }, 30_000);
  });
}
