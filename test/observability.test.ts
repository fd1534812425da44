// Observability through the real server: X-Request-Id in and out and in the log lines, /metrics
// scraped and parsed after real runs, capture sessions and syntheses, lifecycle log lines without
// secrets, /healthz liveness and /readyz with the real cause of a failing part.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, BOB_TOTP_SEED } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { httpSearchDefinition, LOGIN_SLOT, SEARCH_INPUT, SEARCH_OUTPUT } from './fixtures/definitions.js';
import { loginSecret, publish } from './helpers/runs.js';
import { fixtureHar, synthesizeFrom } from './helpers/synth.js';

/** Prometheus text format → { 'name{a="b"}': value } (labels as written, sorted by the client). */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

function sample(m: Map<string, number>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const [k, v] of m) {
    const brace = k.indexOf('{');
    if ((brace < 0 ? k : k.slice(0, brace)) !== name) continue;
    if (Object.entries(labels).every(([l, val]) => k.includes(`${l}="${val}"`))) return v;
  }
  return undefined;
}

const lines = (h: Harness) => h.logs.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((l) => JSON.parse(l));

describe.each(await backends())('observability (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let scrape: () => Promise<Map<string, number>>;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend, { TOTP_CODE_REUSE: 'allow' });
    scrape = async () => {
      const r = await fetch(`${h.url}/metrics`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return parseMetrics(await r.text());
    };
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('keeps a plain X-Request-Id, replaces a hostile one, and puts it in every line of the request', async () => {
    const given = `req-${Date.now()}`;
    const r = await fetch(`${h.url}/v1beta/connectors`, { headers: { authorization: `Bearer ${h.key}`, 'x-request-id': given } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe(given);
    const mine = lines(h).filter((l) => l.request_id === given);
    expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));

    const hostile = 'a b\u0000'.repeat(3);
    const r2 = await fetch(`${h.url}/healthz`, { headers: { 'x-request-id': encodeURIComponent(hostile).repeat(20) } });
    const id2 = r2.headers.get('x-request-id')!;
    expect(id2).toMatch(/^[0-9a-f-]{36}$/);
    const r3 = await fetch(`${h.url}/nowhere`);
    expect(r3.status).toBe(404);
    expect(r3.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(r3.headers.get('x-request-id')).not.toBe(id2);
  });

  it('counts requests by route template, runs by status and engine, with lifecycle lines free of secrets', async () => {
    const connector = await publish(h, {
      definition: httpSearchDefinition(site.url),
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
      website: site.url,
    });
    const bob = await loginSecret(h, 'bob', 'builder', BOB_TOTP_SEED);
    const before = await scrape();
    const ok = await h.api('POST', '/v1beta/runs', {
      connector_id: connector.id,
      arguments: { query: 'gamma', page_size: 3 },
      secret_bindings: { account: bob },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.status).toBe('success');
    for (let i = 0; i < 3; i++) expect((await h.api('GET', '/v1beta/files/nope')).status).toBe(404);

    const after = await scrape();
    const finished = (s: Map<string, number>) => sample(s, 'connector_runs_finished_total', { status: 'success', engine: 'http' }) ?? 0;
    expect(finished(after) - finished(before)).toBe(1);
    expect(sample(after, 'connector_runs_started_total', { engine: 'http' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'connector_run_duration_seconds_count', { engine: 'http', status: 'success' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'connector_runs', { status: 'success' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'connector_runs', { status: 'running' })).toBe(0);
    expect(sample(after, 'connector_run_queue_depth')).toBe(0);
    // Route templates, not raw URLs: one series for every file id.
    expect(sample(after, 'http_request_duration_seconds_count', { route: '/v1beta/files/:file_id', status_code: '404' })).toBe(3);
    expect([...after.keys()].some((k) => k.includes('/v1beta/files/nope'))).toBe(false);
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    const runLines = lines(h).filter((l) => l.run_id === ok.json.id);
    expect(runLines.map((l) => l.msg)).toEqual(['run started', 'run finished']);
    expect(runLines[1]).toMatchObject({ status: 'success', engine: 'http', connector_id: connector.id });
    expect(runLines[1].duration_ms).toBeGreaterThan(0);
    const all = h.logs.join('');
    expect(all).not.toContain(BOB_TOTP_SEED);
    expect(all).not.toContain('builder');
  });

  it('counts syntheses by outcome and the stage that refused a recording', async () => {
    const alice = await loginSecret(h, 'alice', 'wonderland');
    const good = await synthesizeFrom(h, fixtureHar('a-search', site.url), {
      website: site.url,
      hints: { arguments: { query: 'gamma' }, secrets: { account: alice } },
    });
    expect(good.status, good.text).toBe(200);
    const bad = await synthesizeFrom(h, 'this is not a HAR', {});
    expect(bad.status).toBe(422);
    const m = await scrape();
    expect(sample(m, 'connector_synthesis_total', { outcome: 'ok', stage: 'none' })).toBe(1);
    expect(sample(m, 'connector_synthesis_total', { outcome: 'failed', stage: 'read' })).toBe(1);
    expect(sample(m, 'connector_synthesis_duration_seconds_count', { outcome: 'ok' })).toBe(1);
    const synthLines = lines(h).filter((l) => l.msg?.startsWith('synthesis '));
    expect(synthLines.map((l) => [l.outcome, l.stage])).toEqual([
      ['ok', null],
      ['failed', 'read'],
    ]);
    expect(h.logs.join('')).not.toContain('wonderland');
  });

  it('shows live capture sessions, their transitions and the capture browser', async () => {
    const c = await h.api('POST', '/v1beta/capture_sessions', {});
    expect(c.status, c.text).toBe(200);
    let m = await scrape();
    expect(sample(m, 'connector_capture_sessions_live')).toBe(1);
    expect(sample(m, 'connector_capture_sessions', { state: 'active' })).toBe(1);
    expect(sample(m, 'connector_browser_launches_total', { role: 'capture' })).toBe(1);
    expect((await h.api('POST', `/v1beta/capture_sessions/${c.json.id}/abandon`)).status).toBe(200);
    m = await scrape();
    expect(sample(m, 'connector_capture_sessions_live')).toBe(0);
    expect(sample(m, 'connector_capture_sessions', { state: 'abandoned' })).toBe(1);
    expect(sample(m, 'connector_capture_session_transitions_total', { state: 'abandoned' })).toBe(1);
    expect(
      lines(h)
        .filter((l) => l.capture_session_id === c.json.id)
        .map((l) => l.state),
    ).toEqual(['active', 'abandoned']);
  });

  it('answers /healthz for liveness and /readyz with each part it checked', async () => {
    expect((await h.api('GET', '/healthz', undefined, null)).json).toEqual({ status: 'ok' });
    const r = await h.api('GET', '/readyz', undefined, null);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({
      status: 'ready',
      checks: { database: { ok: true }, blob_store: { ok: true }, browser: { ok: true }, sandbox: { ok: true } },
    });
  });
});

describe('observability: readiness failures and a protected /metrics', () => {
  it('names the unreachable browser endpoint in a 503 and keeps liveness green', async () => {
    // A port that refuses connections: bound, then closed.
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const h = await startHarness('sqlite', { BROWSER_CDP_URL: `http://127.0.0.1:${port}`, METRICS_TOKEN: 'scrape-token-123' });
    try {
      const r = await h.api('GET', '/readyz', undefined, null);
      expect(r.status).toBe(503);
      expect(r.json.status).toBe('unavailable');
      expect(r.json.checks.database).toEqual({ ok: true });
      expect(r.json.checks.browser.ok).toBe(false);
      expect(r.json.detail).toMatch(new RegExp(`^browser: browser endpoint 127\\.0\\.0\\.1:${port} unreachable: .*ECONNREFUSED`));
      expect((await h.api('GET', '/healthz', undefined, null)).status).toBe(200);

      expect((await fetch(`${h.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${h.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-123' } })).status).toBe(401);
      const ok = await fetch(`${h.url}/metrics`, { headers: { authorization: 'Bearer scrape-token-123' } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('http_request_duration_seconds_bucket');
    } finally {
      await h.close();
    }
  });
});
