// Synthesis stages on pages saved from a twenty-eighth real application, Nagios Core 4.4 (Debian's
// nagios4 CGIs; scripts/acceptance-setup.sh): a host group's service list, whose every host and
// service cell lays out its link and icons in small tables of its own and names a host only on its
// first service's row; and a service's page, whose command links and comments table all name the
// service in their URLs while its state is a label/value table.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';

const page = (name: string) => fs.readFileSync(path.join(__dirname, `../../fixtures/real/nagios/${name}.html`), 'utf8');
const read = (html: string, x: unknown) =>
  extractValue(x as any, new View({ url: 'http://127.0.0.1:8999/', status: 200, text: html }), 'items');

describe("Nagios's service list", () => {
  const list = page('service-list');

  it('is a list of services though its cells hold tables, and a host named once heads the rows under it', () => {
    const r = extractHtml(list, [], ['orchard'])!;
    expect(r.extractor).toMatchObject({ from: 'css', all: true });
    const rows = read(list, r.extractor) as Record<string, unknown>[];
    expect(rows.map((x) => `${x.host} / ${x.service} / ${x.status}`)).toEqual([
      'orchard-db / Disk / / OK',
      'orchard-db / PostgreSQL / OK',
      'orchard-db / Replication lag / CRITICAL',
      'orchard-web / Disk /var / CRITICAL',
      'orchard-web / HTTP / OK',
      'orchard-web / TLS certificate / WARNING',
    ]);
    expect(rows[2]).toMatchObject({
      host_url: 'extinfo.cgi?type=1&host=orchard-db',
      status_information: 'CRITICAL: replica is 340 seconds behind',
    });
    expect((r.extractor as any).fields.host).toMatchObject({ column: 'Host', fill_down: true });
    expect((r.schema as any).items.properties.host).toEqual({ type: 'string' });
  });

  it('controls: a sparse first column is no grouping, and a table holding a list of rows still lays out a page', () => {
    const sparse = `<html><body><table><tr><th>Assignee</th><th>Task</th></tr>
      <tr><td>Ann</td><td>Prune</td></tr><tr><td>Bob</td><td>Water</td></tr><tr><td></td><td>Graft</td></tr><tr><td>Cora</td><td>Pick</td></tr></table></body></html>`;
    const s = extractHtml(sparse, [], [])!;
    expect((read(sparse, s.extractor) as any[]).map((x) => x.assignee)).toEqual(['Ann', 'Bob', '', 'Cora']);
    // (An outer table whose cell holds a table of several rows, or with headers, is page layout.)
    const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => `<tr><td>item ${i}</td><td>${i}</td></tr>`).join('');
    const layout = `<html><body><table><tr><th>Left</th><th>Right</th></tr><tr><td><table>${rowsOf(5)}</table></td><td>menu</td></tr>
      <tr><td>x</td><td>y</td></tr></table></body></html>`;
    const l = extractHtml(layout, [], [])!;
    expect(l.considered.filter((c) => /^\d+: table body > table: /.test(c))).toEqual([]);
  });
});

describe("Nagios's service page", () => {
  const detail = page('service-detail');

  it("reads the service's state, not the table of command links that name it", () => {
    const r = extractHtml(detail, [], ['orchard-db', 'Replication lag'])!;
    expect(r.kind).toBe('detail');
    const v = read(detail, r.extractor) as Record<string, unknown>;
    expect(v).toMatchObject({ status_information: 'CRITICAL: replica is 340 seconds behind', check_type: 'ACTIVE' });
    expect(v.current_status).toMatch(/^CRITICAL/);
  });
});
