// A write addressed by a name in its URL path (Node-RED's `POST /inject/<node id>`, a job's "run
// now"): the validation replay first sends free-text arguments with a fresh suffix (so a create
// flow does not meet what its recording made); a fresh name that the site has no record for
// (HTTP 404) shows the argument names a record, and the replay goes again with the recorded one.
// The site answers in a few words of plain text, which the run returns.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { har } from './helpers/har-fragment.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

describe.each(await backends())('a write addressed by a record name in its path (%s)', (backend) => {
  let h: Harness;
  let base = '';
  const hits: string[] = [];
  const jobs = new Set(['nightly_backup', 'weekly_report']);
  const server = http.createServer((req, res) => {
    const m = /^\/jobs\/([^/]+)\/run$/.exec(req.url ?? '');
    const job = m ? decodeURIComponent(m[1]!) : '';
    if (req.method !== 'POST' || !m) return res.writeHead(404).end();
    hits.push(job);
    if (!jobs.has(job)) return res.writeHead(404, { 'content-type': 'text/plain' }).end('No such job');
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`Job ${job} queued as #${hits.length}\n`);
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    h = await startHarness(backend);
  });
  afterAll(async () => {
    await h?.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('validates with the recorded name once a fresh one addressed nothing, and the run returns what the site said', async () => {
    const recording = har(
      { url: `${base}/jobs`, html: '<html><body><button>Run nightly_backup</button></body></html>' },
      { method: 'POST', url: `${base}/jobs/nightly_backup/run`, json: {}, body: 'Job nightly_backup queued as #1\n', mime: 'text/plain' },
    );
    const c = await synthesizeFrom(h, JSON.stringify(recording), {
      hints: { arguments: { job: 'nightly_backup' }, allow_side_effects: true },
    });
    expect(c.status, c.text).toBe(200);
    // (A fresh suffix first — the site has no such job — then the recorded name.)
    expect(hits).toHaveLength(2);
    expect(hits[0]).toMatch(/^nightly_backup_[0-9a-f]{4}$/); // (a value of one piece keeps its shape)
    expect(hits[1]).toBe('nightly_backup');
    const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    expect(def.meta.validation).toMatchObject({ replayed: true });
    expect(def.meta.validation.reason).not.toMatch(/fresh values/);
    const out = await run(h, { connector_id: c.json.id, arguments: { job: 'weekly_report' } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({ message: 'Job weekly_report queued as #3', status: 200, url: `${base}/jobs/weekly_report/run` });
  });
});
