// Run control through the real server: cancel a running browser run (its sandbox and browser
// context stop; logs readable while it ran), a pending run (it never starts), a sync caller's run
// (the caller gets the cancelled run), a cancel asked by another process (the database flag), and
// the refusals (409 once ended, 404 for another user's run).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { logsOf, publish, run, waitRun } from './helpers/runs.js';

/** A browser run that opens the demo site, then waits far longer than any test. */
const slowBrowser = (base: string) => ({
  format: 'connector-definition/v1',
  engine: 'browser',
  steps: [
    { action: 'navigate', url: `${base}/items?q={{args.query | urlencode}}` },
    { action: 'wait', ms: 120_000 },
  ],
  result: { done: true },
});

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(await backends())('run cancel (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let slow: any;
  const running = (id: string) =>
    until(`run ${id} running`, async () => (await h.api('GET', `/v1beta/runs/${id}`)).json.status === 'running');
  beforeAll(async () => {
    site = await startDemoSite();
    // One run at a time: a second run stays pending while the first executes.
    h = await startHarness(backend, { RUN_CONCURRENCY: '1', RUN_MAX_CONCURRENCY_PER_USER: '1' });
    slow = await publish(h, {
      definition: slowBrowser(site.url),
      input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      output_schema: { type: 'object', properties: { done: { type: 'boolean' } } },
      website: site.url,
    });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('stops a running browser run whose logs were readable while it ran; the next run gets a fresh sandbox', async () => {
    const r = await run(h, { connector_id: slow.id, arguments: { query: 'gamma' }, async: true });
    await running(r.id);
    // Logs while it executes: the browser engine's lines so far, written within about a second.
    const live = await until('live logs', async () => {
      const l = await h.api('GET', `/v1beta/runs/${r.id}/logs`);
      return l.status === 200 && l.json.logs.includes('/items?q=gamma') && l.json.logs;
    });
    expect(live).not.toContain('cancelled');
    const t0 = Date.now();
    const c = await h.api('POST', `/v1beta/runs/${r.id}/cancel`);
    expect(c.status, c.text).toBe(200);
    expect(c.json).toMatchObject({ id: r.id, status: 'cancelled', error: null });
    expect(c.json.finished_at).toBeTruthy();
    expect(Date.now() - t0).toBeLessThan(5000);
    const logs = await logsOf(h, r.id);
    expect(logs.startsWith(live.split('\n')[0])).toBe(true);
    expect(logs).toMatch(/cancelled on request; the sandbox was stopped/);
    expect((await h.api('POST', `/v1beta/runs/${r.id}/cancel`)).status).toBe(409);

    const next = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        steps: [
          {
            id: 'page',
            method: 'GET',
            url: `${site.url}/items?q={{args.query | urlencode}}`,
            extract: { title: { from: 'css', selector: 'title' } },
          },
        ],
        result: { title: '{{vars.title}}' },
      },
      input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      output_schema: { type: 'object', properties: { title: { type: 'string' } } },
    });
    const ok = await h.api('POST', '/v1beta/runs', { connector_id: next.id, arguments: { query: 'x' } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.status).toBe('success');
    expect(ok.json.result.title).toBeTruthy();
  });

  it('ends a pending run at once, before it starts; the run ahead of it is unaffected until cancelled', async () => {
    const first = await run(h, { connector_id: slow.id, arguments: { query: 'first' }, async: true });
    await running(first.id);
    const second = await run(h, { connector_id: slow.id, arguments: { query: 'second' }, async: true });
    expect((await h.api('GET', `/v1beta/runs/${second.id}`)).json.status).toBe('pending');
    const c = await h.api('POST', `/v1beta/runs/${second.id}/cancel`);
    expect(c.status, c.text).toBe(200);
    expect(c.json.status).toBe('cancelled');
    expect(await logsOf(h, second.id)).toMatch(/cancelled on request before it started$/);
    expect((await h.api('GET', `/v1beta/runs/${first.id}`)).json.status).toBe('running');
    expect((await h.api('POST', `/v1beta/runs/${first.id}/cancel`)).json.status).toBe('cancelled');
    // The cancelled pending run never ran: its log has only the cancel line.
    expect((await logsOf(h, second.id)).split('\n')).toHaveLength(1);
  });

  it('answers a sync caller waiting for the run with the cancelled run', async () => {
    const pending = h.api('POST', '/v1beta/runs', { connector_id: slow.id, arguments: { query: 'sync' } });
    const id = await until('the sync run', async () => {
      const list = await h.api('GET', `/v1beta/runs?connector_id=${slow.id}&limit=5`);
      return list.json.data.find((x: any) => x.arguments.query === 'sync' && x.status === 'running')?.id as string | undefined;
    });
    expect((await h.api('POST', `/v1beta/runs/${id}/cancel`)).json.status).toBe('cancelled');
    const r = await pending;
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id, status: 'cancelled' });
  });

  it('stops a run when another process asks (the cancel flag in the database)', async () => {
    const r = await run(h, { connector_id: slow.id, arguments: { query: 'elsewhere' }, async: true });
    await running(r.id);
    // What POST .../cancel on another process does for a run it doesn't execute.
    await h.services.runtime.store.requestCancel(r.id);
    const done = await waitRun(h, r.id, 10_000);
    expect(done.status).toBe('cancelled');
  });

  it('refuses what cannot be cancelled: 409 once ended, 404 for another user or an unknown id', async () => {
    const r = await run(h, { connector_id: slow.id, arguments: { query: 'other' }, async: true });
    const other = await h.newUser('mallory');
    expect((await h.api('POST', `/v1beta/runs/${r.id}/cancel`, undefined, other.key)).status).toBe(404);
    expect((await h.api('POST', '/v1beta/runs/00000000-0000-7000-8000-000000000000/cancel')).status).toBe(404);
    expect((await h.api('POST', `/v1beta/runs/${r.id}/cancel`)).json.status).toBe('cancelled');
    const again = await h.api('POST', `/v1beta/runs/${r.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.json.detail).toBe('Run is cancelled; only a pending or running run can be cancelled');
  });
});
