// A filter chosen in a drop-down, through the real server: a person picks "Closed" in an issue
// tracker's status <select> (the page sends `status=5`), and the connector is asked for with
// hints.arguments.status = "Closed", as the person read it. Recorded in Chromium, uploaded,
// synthesized, replay-validated (the recorded label goes through `choose`), published, and run with
// another label, another label's case, and a code.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { recordLive } from './helpers/acceptance.js';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

const STATUSES: Record<string, string> = { '1': 'Open', '2': 'In progress', '5': 'Closed' };
const ISSUES = [
  { id: 1, subject: 'Prune the pear trees', status: '1' },
  { id: 2, subject: 'Graft the quinces', status: '2' },
  { id: 3, subject: 'Net the cherries', status: '5' },
  { id: 4, subject: 'Mulch row 4', status: '5' },
];
const PAGE = `<!doctype html><title>Issues</title><form action="/issues"><label>Status <select name="status">${Object.entries(STATUSES)
  .map(([v, l]) => `<option value="${v}">${l}</option>`)
  .join('')}</select></label><button>Filter</button></form><ul id=out></ul>`;

describe.each(await backends())('a drop-down choice given by its label (%s)', (backend) => {
  let h: Harness;
  let site: http.Server;
  let base = '';
  let browser: Browser;
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/issues') {
        const status = u.searchParams.get('status') ?? '';
        const rows = ISSUES.filter((i) => i.status === status);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `${PAGE}<table id=issues><thead><tr><th>Id</th><th>Subject</th><th>Status</th></tr></thead><tbody>${rows
              .map((i) => `<tr><td>${i.id}</td><td>${i.subject}</td><td>${STATUSES[i.status]}</td></tr>`)
              .join('')}</tbody></table>`,
          );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    h = await startHarness(backend);
    browser = await openChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    site?.close();
  });

  it('the connector takes the label the person read, any other label, or the code', async () => {
    const har = await recordLive(browser, h.dataDir, 'choice', base, async (page, b) => {
      await page.goto(b);
      await page.selectOption('select[name=status]', { label: 'Closed' });
      await Promise.all([page.waitForURL(/status=5/), page.click('button')]);
    });
    const r = await synthesizeFrom(h, har, { hints: { arguments: { status: 'Closed' } } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.input_schema.properties.status).toMatchObject({ type: 'string', examples: ['Closed'] });
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.validation).toMatchObject({ replayed: true });
    const subjects = async (status: string) => {
      const out = await run(h, { connector_id: r.json.id, arguments: { status } });
      expect(out.status, JSON.stringify(out.error)).toBe('success');
      return JSON.stringify(out.result);
    };
    const open = await subjects('Open');
    expect(open).toContain('Prune the pear trees');
    expect(open).not.toContain('Net the cherries');
    expect(await subjects('in progress')).toContain('Graft the quinces');
    const closed = await subjects('5');
    expect(closed).toContain('Net the cherries');
    expect(closed).toContain('Mulch row 4');
  });
});
