// Sandbox worker sharing (RUN_SANDBOX_SHARE, src/runtime/host/pool.ts) through the real server
// and real sandbox processes: HTTP runs of one user run together in one worker, each with its own
// arguments, secret and log; runs of two users, and script runs, never share one; a shared run
// that is cancelled or times out is stopped alone (its request is aborted in the worker, which
// lives on for the others), and a worker that does not confirm a stop is killed 2 s later (a forged
// worker that ignores it). A control with RUN_SANDBOX_SHARE=1 shows one process per run.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgedWorker } from './helpers/forged-worker.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { logsOf, publish, run, waitRun } from './helpers/runs.js';

/**
 * The site: /echo answers after `ms` with the tag and whether the token is the tag's own
 * (`SENTINEL-<tag>`); /hang never answers, and counts the requests whose connection the client closed.
 */
async function startTarget() {
  let hangsClosed = 0;
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    if (u.pathname === '/hang') {
      req.socket.once('close', () => hangsClosed++);
      return;
    }
    const tag = u.searchParams.get('tag');
    setTimeout(
      () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ tag, token_ok: u.searchParams.get('token') === `SENTINEL-${tag}` }));
      },
      Number(u.searchParams.get('ms') ?? 0),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hangsClosed: () => hangsClosed,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const echo = (base: string, path = '/echo') => ({
  required_secrets: [{ name: 'token', type: 'string' }],
  input_schema: { type: 'object', properties: { tag: { type: 'string' }, ms: { type: 'integer' } } },
  definition: {
    format: 'connector-definition/v1',
    engine: 'http',
    steps: [
      {
        id: 'echo',
        url: `${base}${path}`,
        query: { tag: '{{args.tag}}', ms: '{{args.ms}}', token: '{{secrets.token.value}}' },
        extract: { tag: { from: 'json', path: '$.tag' }, ok: { from: 'json', path: '$.token_ok' } },
      },
    ],
    result: { tag: '{{vars.tag}}', token_ok: '{{vars.ok}}' },
  },
});

const sleeper = (ms: number) => ({
  definition: {
    format: 'connector-definition/v1',
    engine: 'script',
    source: `export default async () => { await new Promise((r) => setTimeout(r, ${ms})); return { slept: true }; }`,
  },
});

/** Starts runs at once; the PID of each one's worker, read while all of them execute. */
async function pidsWhileRunning(h: Harness, bodies: { body: Record<string, unknown>; key?: string }[]) {
  const runs = await Promise.all(bodies.map((b) => run(h, { ...b.body, async: true }, b.key)));
  const pids = new Map<string, number>();
  for (let i = 0; i < 400 && pids.size < runs.length; i++) {
    for (const r of runs) {
      const pid = h.services.runtime.pool.pidOf(r.id);
      if (pid) pids.set(r.id, pid);
    }
    await new Promise((res) => setTimeout(res, 10));
  }
  expect(pids.size, 'every run was seen executing').toBe(runs.length);
  return { runs, pids: runs.map((r) => pids.get(r.id)!) };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('sandbox worker sharing (RUN_SANDBOX_SHARE=4)', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startTarget>>;
  let conn: any;
  let hang: any;
  beforeAll(async () => {
    site = await startTarget();
    h = await startHarness('sqlite', { RUN_CONCURRENCY: '6', RUN_MAX_CONCURRENCY_PER_USER: '6', RUN_SANDBOX_SHARE: '4' });
    conn = await publish(h, echo(site.url));
    hang = await publish(h, echo(site.url, '/hang'));
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  const echoRun = (tag: string, ms: number) => ({
    body: { connector_id: conn.id, arguments: { tag, ms }, secret_values: { token: { value: `SENTINEL-${tag}` } } },
  });

  it("one user's HTTP runs share one worker; each keeps its own arguments, secret and log", async () => {
    const tags = ['a', 'b', 'c', 'd'];
    const { runs, pids } = await pidsWhileRunning(
      h,
      tags.map((t) => echoRun(t, 800)),
    );
    expect(new Set(pids).size).toBe(1);
    for (const [i, r] of runs.entries()) {
      const done = await waitRun(h, r.id);
      expect(done.status, JSON.stringify(done.error)).toBe('success');
      expect(done.result).toEqual({ tag: tags[i], token_ok: true });
      const logs = await logsOf(h, r.id);
      expect(logs).toMatch(new RegExp(`GET \\S+/echo\\?tag=${tags[i]}&ms=800&token=\\[redacted\\] → 200`));
      for (const other of tags.filter((t) => t !== tags[i])) expect(logs).not.toContain(`tag=${other}`);
      expect(logs).not.toContain('SENTINEL');
    }
  });

  it("two users' runs never share a worker", async () => {
    const other = await h.newUser('sharing-other');
    const theirs = await publish(h, echo(site.url), other.key);
    const body = (c: string, tag: string, key?: string) => ({
      body: { connector_id: c, arguments: { tag, ms: 800 }, secret_values: { token: { value: `SENTINEL-${tag}` } } },
      key,
    });
    const { runs, pids } = await pidsWhileRunning(h, [
      body(conn.id, 'm1'),
      body(theirs.id, 'o1', other.key),
      body(conn.id, 'm2'),
      body(theirs.id, 'o2', other.key),
    ]);
    expect(pids[0]).toBe(pids[2]);
    expect(pids[1]).toBe(pids[3]);
    expect(pids[0]).not.toBe(pids[1]);
    for (const [i, r] of runs.entries()) expect((await waitRun(h, r.id, 30_000, i % 2 ? other.key : undefined)).status).toBe('success');
  });

  it('script runs get a worker of their own', async () => {
    const s = await publish(h, sleeper(800));
    const { runs, pids } = await pidsWhileRunning(h, [
      { body: { connector_id: s.id } },
      { body: { connector_id: s.id } },
      echoRun('e', 800),
    ]);
    expect(new Set(pids).size).toBe(3);
    for (const r of runs) expect((await waitRun(h, r.id)).status).toBe('success');
  });

  it('a cancelled shared run stops alone: its request is aborted, the worker and the other run go on', async () => {
    const closedBefore = site.hangsClosed();
    const hanging = { body: { connector_id: hang.id, arguments: { tag: 'h' }, secret_values: { token: { value: 'SENTINEL-h' } } } };
    const { runs, pids } = await pidsWhileRunning(h, [hanging, echoRun('f', 1500)]);
    expect(pids[0]).toBe(pids[1]);
    expect((await h.api('POST', `/v1beta/runs/${runs[0].id}/cancel`)).status).toBe(200);
    expect((await waitRun(h, runs[0].id)).status).toBe('cancelled');
    const other = await waitRun(h, runs[1].id);
    expect(other.status, JSON.stringify(other.error)).toBe('success');
    expect(other.result).toEqual({ tag: 'f', token_ok: true });
    expect(alive(pids[0])).toBe(true);
    // The worker aborted the cancelled run's request (the site saw its connection close).
    for (let i = 0; i < 100 && site.hangsClosed() === closedBefore; i++) await new Promise((r) => setTimeout(r, 20));
    expect(site.hangsClosed()).toBe(closedBefore + 1);
  });

  it('a shared run that times out ends timed_out alone; the worker lives on', async () => {
    const hanging = {
      body: { connector_id: hang.id, arguments: { tag: 't' }, max_timeout_s: 1, secret_values: { token: { value: 'SENTINEL-t' } } },
    };
    const { runs, pids } = await pidsWhileRunning(h, [hanging, echoRun('g', 2500)]);
    expect(pids[0]).toBe(pids[1]);
    expect((await waitRun(h, runs[0].id)).status).toBe('timed_out');
    const other = await waitRun(h, runs[1].id);
    expect(other.status, JSON.stringify(other.error)).toBe('success');
    expect(alive(pids[0])).toBe(true);
    expect(h.services.runtime.pool.pidOf(runs[1].id)).toBeUndefined();
  });

  it('a shared worker that dies fails only the runs it held', async () => {
    const s = await publish(h, sleeper(1500));
    const { runs, pids } = await pidsWhileRunning(h, [echoRun('k1', 3000), echoRun('k2', 3000), { body: { connector_id: s.id } }]);
    expect(pids[0]).toBe(pids[1]);
    expect(pids[2]).not.toBe(pids[0]);
    process.kill(pids[0], 'SIGKILL');
    for (const r of runs.slice(0, 2)) {
      const done = await waitRun(h, r.id);
      expect(done.status).toBe('connector_error');
      expect(done.error).toMatchObject({ type: 'crash', message: expect.stringMatching(/sandbox process died \(SIGKILL\)/) });
    }
    expect((await waitRun(h, runs[2].id)).status).toBe('success');
    // The pool replaced it: the next runs execute.
    const next = await run(h, echoRun('k3', 0).body);
    expect(next).toMatchObject({ status: 'success', result: { tag: 'k3', token_ok: true } });
  });
});

describe('sandbox worker sharing off (RUN_SANDBOX_SHARE=1)', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startTarget>>;
  beforeAll(async () => {
    site = await startTarget();
    h = await startHarness('sqlite', { RUN_CONCURRENCY: '4', RUN_MAX_CONCURRENCY_PER_USER: '4', RUN_SANDBOX_SHARE: '1' });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('every run gets a process of its own', async () => {
    const c = await publish(h, echo(site.url));
    const { runs, pids } = await pidsWhileRunning(
      h,
      ['a', 'b', 'c', 'd'].map((t) => ({
        body: { connector_id: c.id, arguments: { tag: t, ms: 800 }, secret_values: { token: { value: `SENTINEL-${t}` } } },
      })),
    );
    expect(new Set(pids).size).toBe(4);
    for (const r of runs) expect((await waitRun(h, r.id)).status).toBe('success');
  });
});

describe('a shared worker that ignores a stop (forged worker)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { RUN_CONCURRENCY: '4' }, { workerEntry: forgedWorker() });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is killed 2 s after the stop it did not confirm: its other run fails crash, and the next run gets a new worker', async () => {
    // An http connector (only those share); the forged worker never sends a request.
    const c = await publish(h, {
      input_schema: { type: 'object' },
      definition: { format: 'connector-definition/v1', engine: 'http', steps: [{ id: 'x', url: 'http://127.0.0.1:9/' }], result: {} },
    });
    const { runs, pids } = await pidsWhileRunning(h, [
      { body: { connector_id: c.id, arguments: { mode: 'hang' }, max_timeout_s: 1 } },
      { body: { connector_id: c.id, arguments: { mode: 'hang' }, max_timeout_s: 60 } },
    ]);
    expect(pids[0]).toBe(pids[1]);
    expect((await waitRun(h, runs[0].id)).status).toBe('timed_out');
    const stoppedAt = Date.now();
    // Its place stays taken until the stop is confirmed: the worker holds the neighbour and the stop.
    expect(alive(pids[0])).toBe(true);
    const other = await waitRun(h, runs[1].id, 15_000);
    const killedAfter = Date.now() - stoppedAt;
    expect(other).toMatchObject({ status: 'connector_error', error: { type: 'crash' } });
    expect(other.error.message).toMatch(/sandbox process died \(SIGKILL\)/);
    // About STOP_GRACE_MS after the timeout, far before the neighbour's own 60 s.
    expect(killedAfter).toBeGreaterThan(1000);
    expect(killedAfter).toBeLessThan(10_000);
    expect(alive(pids[0])).toBe(false);
    const next = await run(h, {
      connector_id: c.id,
      arguments: { mode: 'raw', message: { t: 'done', outcome: 'ok', json: '{"fine":true}' } },
    });
    expect(next).toMatchObject({ status: 'success', result: { fine: true } });
    expect(h.services.runtime.pool.pidOf(next.id)).toBeUndefined();
  });
});
