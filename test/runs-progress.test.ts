import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgedWorker } from './helpers/forged-worker.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { publish, run, waitRun } from './helpers/runs.js';
import { progressText } from '../sdk/src/cli.js';

const SLOW_MS = 1500;

/** A site on 127.0.0.1: /list?p=2 and /slow answer after SLOW_MS, everything else at once; a page's title is its path and query. */
async function startSlowSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const slow = u.pathname === '/slow' || (u.pathname === '/list' && u.searchParams.get('p') === '2');
    const t = setTimeout(
      () => res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${u.pathname}${u.search}</title>`),
      slow ? SLOW_MS : 0,
    );
    res.on('close', () => clearTimeout(t));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Polls the run until it ended; every progress seen while it was running (and its view). */
async function progressSeen(h: Harness, id: string): Promise<{ final: any; seen: any[]; views: any[] }> {
  const seen: any[] = [];
  const views: any[] = [];
  const end = Date.now() + 15_000;
  for (;;) {
    const r = await h.api('GET', `/v1beta/runs/${id}`);
    expect(r.status, r.text).toBe(200);
    if (r.json.status !== 'running') expect(r.json.progress).toBeNull();
    if (r.json.progress) {
      seen.push(r.json.progress);
      views.push(r.json);
    }
    if (!['pending', 'running'].includes(r.json.status)) return { final: r.json, seen, views };
    if (Date.now() > end) throw new Error(`run ${id} still ${r.json.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

const all = await backends();

describe.each(all)('run progress (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startSlowSite>>;
  beforeAll(async () => {
    site = await startSlowSite();
    h = await startHarness(backend, { RUN_CONCURRENCY: '1' });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('an http run shows "step 2 of 3" with its page while the slow page loads; null before it runs and after it ended', async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        base_url: site.url,
        steps: [
          { id: 'home', url: '/home', extract: { home: { from: 'css', selector: 'title' } } },
          {
            id: 'get_list',
            url: '/list',
            paginate: { mode: 'page', param: 'p', max_pages: 2 },
            extract: { titles: { from: 'css', selector: 'title', all: true } },
          },
          { id: 'done', url: '/done', extract: { last: { from: 'css', selector: 'title' } } },
        ],
        result: { titles: '{{vars.titles}}', last: '{{vars.last}}' },
      },
    });
    const r = await run(h, { connector_id: c.id, async: true });
    expect(r.progress).toBeNull();
    const { final, seen, views } = await progressSeen(h, r.id);
    expect(final.status, JSON.stringify(final.error)).toBe('success');
    expect(final.result).toEqual({ titles: ['/list?p=1', '/list?p=2'], last: '/done' });
    // The slow second page is on screen for about 1.5 s: the 1 s tick writes it at least once.
    expect(seen).toContainEqual({ step: 2, of: 3, label: 'get_list: page 2' });
    for (const p of seen) expect(p.of).toBe(3);
    // The CLI's `runs create --wait` spinner line.
    const v = views.find((x) => x.progress.label === 'get_list: page 2');
    expect(progressText(v)).toBe(', step 2 of 3: get_list: page 2');
    expect(progressText(final)).toBe('');
  });

  it('a run that ends within 100 ms sends no progress; a slower one does', async () => {
    // A spy on the real pool: the progress messages the sandbox worker sent, per run.
    const pool = h.services.runtime.pool;
    const sent = new Map<string, number>();
    const execute = pool.execute.bind(pool);
    pool.execute = (job, timeoutMs, hooks) =>
      execute(job, timeoutMs, {
        ...hooks,
        progress: (p) => {
          sent.set(job.runId, (sent.get(job.runId) ?? 0) + 1);
          hooks.progress?.(p);
        },
      });
    try {
      /** Two GETs: the second to `last` (`/slow` answers after SLOW_MS). */
      const twoGets = (last: string) =>
        publish(h, {
          definition: {
            format: 'connector-definition/v1',
            engine: 'http',
            base_url: site.url,
            steps: [
              { id: 'a', url: '/a' },
              { id: 'b', url: last },
            ],
            result: {},
          },
        });
      const quick = await twoGets('/b');
      const slow = await twoGets('/slow');
      const q = await run(h, { connector_id: quick.id });
      expect(q.status, JSON.stringify(q.error)).toBe('success');
      const s = await run(h, { connector_id: slow.id });
      expect(s.status, JSON.stringify(s.error)).toBe('success');
      expect(sent.get(q.id) ?? 0).toBe(0);
      expect(sent.get(s.id)).toBeGreaterThanOrEqual(1);
    } finally {
      pool.execute = execute;
    }
  });

  // The engine reports it the same on either backend: the browser (slower to start) runs on one.
  it.runIf(backend === all[0])('a browser run shows its top-level step while the slow page loads', async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'browser',
        steps: [
          { action: 'navigate', url: `${site.url}/home` },
          { id: 'open_slow', action: 'navigate', url: `${site.url}/slow` },
          { action: 'extract', values: { title: { from: 'css', selector: 'title' } } },
        ],
        result: { title: '{{vars.title}}' },
      },
    });
    const r = await run(h, { connector_id: c.id, async: true });
    const { final, seen } = await progressSeen(h, r.id);
    expect(final.status, JSON.stringify(final.error)).toBe('success');
    expect(final.result).toEqual({ title: '/slow' });
    expect(seen).toContainEqual({ step: 2, of: 3, label: 'open_slow' });
  });

  it("a script run counts its requests (no total known): the slow second request is 'request 2'", async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'script',
        source: `export default async (ctx) => {
          await ctx.http.get(ctx.args.base + '/home');
          await ctx.http.get(ctx.args.base + '/slow');
          return { ok: true };
        }`,
      },
    });
    const r = await run(h, { connector_id: c.id, arguments: { base: site.url }, async: true });
    const { final, seen, views } = await progressSeen(h, r.id);
    expect(final.status, JSON.stringify(final.error)).toBe('success');
    expect(progressText(views.at(-1))).toMatch(/^, step 2: request 2: GET /);
    expect(seen).toContainEqual({ step: 2, of: null, label: `request 2: GET ${new URL(site.url).host}` });
  });
});

describe('progress from a forged worker', () => {
  let h: Harness;
  let c: any;
  beforeAll(async () => {
    h = await startHarness('sqlite', { RUN_CONCURRENCY: '1' }, { workerEntry: forgedWorker() });
    c = await publish(h, {
      definition: { format: 'connector-definition/v1', engine: 'script', source: 'export default async () => 1' },
      input_schema: { type: 'object' },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('malformed progress stops the worker and fails the run', async () => {
    const ok = { t: 'progress', step: 1, of: 2, label: 'x' };
    const bad = [
      { ...ok, step: -1 },
      { ...ok, step: 1.5 },
      { ...ok, step: 2_000_000, of: null },
      { ...ok, step: 3, of: 2 },
      { ...ok, of: '2' },
      { ...ok, label: 'x'.repeat(201) },
      { ...ok, label: undefined },
      { ...ok, extra: 'x' },
    ];
    for (const message of bad) {
      const r = await run(h, { connector_id: c.id, arguments: { mode: 'then_ok', message, ms: 0 } });
      expect(r, JSON.stringify(message)).toMatchObject({ status: 'connector_error', error: { type: 'crash' }, progress: null });
      expect(r.error.message).toMatch(
        /the sandbox was stopped: it sent (a malformed or unknown message \(progress\)|progress step 3 of 2)/,
      );
    }
  });

  it("a label holding a secret of the run is redacted by the parent; the run's end clears it", async () => {
    const secret = 'hunter2-progress-secret';
    const withSlot = await publish(h, {
      definition: { format: 'connector-definition/v1', engine: 'script', source: 'export default async () => 1' },
      required_secrets: [{ name: 'token', type: 'string' }],
    });
    // The worker appends the slot's value to the label (the arguments never see it).
    const message = { t: 'progress', step: 1, of: null, label: 'fetching with ' };
    const r = await run(h, {
      connector_id: withSlot.id,
      arguments: { mode: 'then_ok', message, slot: 'token', ms: 2000 },
      secret_values: { token: { value: secret } },
      async: true,
    });
    const { final, seen } = await progressSeen(h, r.id);
    expect(final.status).toBe('success');
    expect(seen.length).toBeGreaterThan(0);
    for (const p of seen) expect(p).toEqual({ step: 1, of: null, label: 'fetching with [redacted]' });
    expect(JSON.stringify(await waitRun(h, r.id))).not.toContain(secret);
  });

  it('a flood of progress costs no database writes: the tick writes the latest about once a second', async () => {
    // SQLite's count of rows changed on the server's one connection (every write of the app).
    const changes = async () => (await sql<{ n: number }>`select total_changes() as n`.execute(h.services.db)).rows[0].n;
    const before = await changes();
    const r = await run(h, { connector_id: c.id, arguments: { mode: 'progress_flood', count: 5000, ms: 500 }, async: true });
    const { final, seen } = await progressSeen(h, r.id);
    expect(final.status).toBe('success');
    expect(seen).toContainEqual({ step: 5000, of: 5000, label: 'request 5000' });
    // Insert, claim, lease, a few ticks and the terminal write: tens of rows, never thousands.
    expect((await changes()) - before).toBeLessThan(40);
  });
});
