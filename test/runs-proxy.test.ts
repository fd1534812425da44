// Proxy routing: PROXY_URLS maps (type, country) to an upstream proxy; a run with proxy_settings
// sends its traffic (http engine and browser) through it. The proxy is a local forward proxy that
// records every request line it relays.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { publish, run } from './helpers/runs.js';

interface RecordingProxy {
  url: string;
  seen: string[];
  close(): Promise<void>;
}

async function startRecordingProxy(tag: string): Promise<RecordingProxy> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url!);
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: { ...req.headers, 'x-via-proxy': tag },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

describe('proxy routing', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let de: RecordingProxy;
  let us: RecordingProxy;
  beforeAll(async () => {
    site = await startDemoSite();
    de = await startRecordingProxy('de');
    us = await startRecordingProxy('us');
    h = await startHarness('sqlite', { PROXY_URLS: `residential:de=${de.url},isp:us=${us.url}` });
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([de?.close(), us?.close(), site?.close()]);
  });

  it('routes http-engine traffic through the mapped proxy, and none without proxy_settings', async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        steps: [{ id: 'status', url: `${site.url}/api/flaky`, extract: { ok: { from: 'json', path: '$.ok' } } }],
        result: { ok: '{{vars.ok}}' },
      },
    });
    const r = await run(h, { connector_id: c.id, proxy_settings: { type: 'residential', location: 'de' } });
    expect(r.result).toEqual({ ok: true });
    expect(de.seen).toEqual([`GET ${site.url}/api/flaky`]);
    expect(us.seen).toEqual([]);
    await run(h, { connector_id: c.id, proxy_settings: { type: 'isp', location: 'us' } });
    expect(us.seen).toEqual([`GET ${site.url}/api/flaky`]);
    await run(h, { connector_id: c.id });
    expect(de.seen.length + us.seen.length).toBe(2);
  });

  it('routes the browser through it too', async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'browser',
        steps: [
          { action: 'navigate', url: `${site.url}/` },
          { action: 'extract', values: { title: { from: 'css', selector: 'title' } } },
        ],
        result: { title: '{{vars.title}}' },
      },
    });
    const before = de.seen.length;
    const r = await run(h, { connector_id: c.id, proxy_settings: { type: 'residential', location: 'de' } });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(de.seen.slice(before)).toContain(`GET ${site.url}/`);
  });
});
