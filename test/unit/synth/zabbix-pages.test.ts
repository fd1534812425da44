// Synthesis stages on a page saved from a twenty-fifth real application, Zabbix 6.0's frontend
// (Debian's zabbix-frontend-php; scripts/acceptance-setup.sh): the host list a name filter returns,
// whose rows each hide tables of their own (the availability hint box), whose status link only
// runs script, and whose items cell is a link followed by its count.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';

const list = fs.readFileSync(path.join(__dirname, '../../fixtures/real/zabbix/host-list.html'), 'utf8');
const read = (x: unknown) =>
  extractValue(x as any, new View({ url: 'http://127.0.0.1:8991/zabbix.php', status: 200, text: list }), 'items');

describe("Zabbix's host list", () => {
  it('is a table of hosts though each row hides a table; the hidden tables are no candidates', () => {
    const r = extractHtml(list, [], ['press'])!;
    expect(r.extractor).toMatchObject({ from: 'css', all: true });
    const rows = read(r.extractor) as Record<string, unknown>[];
    expect(rows.map((x) => x.name)).toEqual(['Apple press 2', 'Pear press 1']);
    expect(rows[0]).toMatchObject({ interface: '10.20.0.12:10050', status: 'Enabled' });
    // (The count after the link is part of the value: "Items&nbsp;<sup>3</sup>".)
    expect(rows[0]!.items).toMatch(/^Items\s3$/);
    expect(rows[0]!.name_url).toMatch(/hostid=\d+/);
    // (The status link runs script: no URL field; nothing of the hidden hint boxes is a candidate.)
    expect(Object.keys(rows[0]!)).not.toContain('status_url');
    expect(r.considered?.join('\n')).not.toMatch(/td:nth-of-type\(\d+\) > div > div > table/);
  });

  it('a page laid out by a table holding visible tables is still no list', () => {
    const layout = `<html><body><table><tr><td><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table></td><td>menu</td></tr>
      <tr><td>x</td><td>y</td></tr></table></body></html>`;
    const r = extractHtml(layout, [], [])!;
    // (The visible inner table is the list; the outer one, holding it, is no candidate at all.)
    const rows = extractValue(r.extractor, new View({ url: 'http://x/', status: 200, text: layout }), 'items');
    expect(rows).toEqual([
      { a: 1, b: 2 },
      { a: 3, b: 4 },
    ]);
    expect(r.considered?.filter((c) => / table [^:]*: /.test(c) && !/td:nth-of-type\(1\) > table/.test(c))).toEqual([]);
  });
});
