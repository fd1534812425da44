// Synthesis over the API on a REAL application's recorded pages (DokuWiki's catalogue table,
// recorded with Playwright; test/fixtures/real): the recorded responses are served again on
// 127.0.0.1, the HAR is uploaded, synthesized, replay-validated and run by the real server.
// A read flow that would return no data, or not the values the person said they want, is a 422
// and nothing is published; the documented opt-in publishes it with the problem in meta.warnings.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { serveHar } from './helpers/har-replay-server.js';
import { APPS, rebaseHar } from './helpers/real-apps.js';
import { run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

const RAW = fs.readFileSync(path.join(__dirname, 'fixtures/real/dokuwiki/dw-catalogue.har'), 'utf8');

describe.each(await backends())('synthesis on real pages over the API (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof serveHar>>;
  let har: string;
  beforeAll(async () => {
    site = await serveHar(JSON.parse(RAW));
    har = rebaseHar(RAW, APPS.dokuwiki.recordedPort, site.port);
    h = await startHarness(backend);
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });
  const count = async () => (await h.api('GET', '/v1beta/connectors')).json.data.length;

  it('a plain HTML table becomes typed records keyed by its header cells, and the run returns them', async () => {
    const r = await synthesizeFrom(h, har, { hints: { result: ['Banana', '900'] } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.validation).toMatchObject({ replayed: true });
    expect(def.meta.notes).toMatch(/result rules considered/);
    expect(def.meta.decisions).toMatchObject({
      target: { request: expect.stringContaining('id=fruit:catalogue') },
      result: { kind: 'html', rule: expect.stringMatching(/^table .*header cells/) },
      login: [],
    });
    expect(JSON.stringify(def.steps)).not.toMatch(/"selector":"[^"]*\.(inline|row|col)/); // no class names
    const out = await run(h, { connector_id: r.json.id });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.items).toHaveLength(5);
    expect(out.result.items[1]).toEqual({
      fruit: 'Banana',
      fruit_url: '/doku.php?id=fruit:banana',
      colour: 'Yellow',
      price_per_kg: 0.35,
      stock: 900,
    });
  });

  it('hinted result values the page does not show: 422 at stage output naming them, nothing published', async () => {
    const before = await count();
    const r = await synthesizeFrom(h, har, { hints: { result: ['Quince', 'Banana'] } });
    expect(r.status, r.text).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'recording_file_id'], type: 'value_error', ctx: { stage: 'output' } });
    expect(r.json.detail[0].msg).toContain('"Quince"');
    expect(r.json.detail[0].msg).not.toContain('"Banana"');
    expect(await count()).toBe(before);
  });

  it('hints.allow_empty_result publishes anyway, with the problem in meta.warnings', async () => {
    const r = await synthesizeFrom(h, har, { hints: { result: ['Quince'], allow_empty_result: true } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.warnings.join('\n')).toMatch(/allow_empty_result.*"Quince"/);
  });

  it('the live site must give the hinted values too: a replay that lacks them is a 422 at stage replay', async () => {
    // The site now answers without the Banana row (and with an empty table for the other test).
    const changed = JSON.parse(RAW);
    const t = changed.log.entries.find((e: any) => e.request.url.includes('catalogue'));
    t.response.content.text = t.response.content.text.replace(/<tr[^>]*>\s*<td[^>]*>\s*<a[^>]*fruit:banana[\s\S]*?<\/tr>/, '');
    const live = await serveHar(changed);
    try {
      const r = await synthesizeFrom(h, rebaseHar(RAW, APPS.dokuwiki.recordedPort, live.port), { hints: { result: ['Banana', 'Cherry'] } });
      expect(r.status, r.text).toBe(422);
      expect(r.json.detail[0].ctx.stage).toBe('replay');
      expect(r.json.detail[0].msg).toContain('"Banana"');
      expect(r.json.detail[0].msg).not.toContain('"Cherry"');
    } finally {
      await live.close();
    }
  });

  it('a read flow whose target holds no data from the page is a 422, not a status-code stub', async () => {
    const stub = JSON.parse(har);
    const target = stub.log.entries.find((e: any) => e.request.url.includes('catalogue'));
    target.response.content = { size: 40, mimeType: 'text/html', text: '<html><head><title>OK</title></head><body></body></html>' };
    const r = await synthesizeFrom(h, JSON.stringify(stub), { hints: {} });
    expect(r.status, r.text).toBe(422);
    expect(r.json.detail[0].ctx.stage).toBe('output');
    expect(r.json.detail[0].msg).toMatch(/only status and URL/);
  });
});
