// Synthesis stages on a page saved from a twentieth real application, Tomcat 10.1's Manager
// (Debian's tomcat10-admin; scripts/acceptance-setup.sh): its applications table writes the header
// in <td> cells (class "header-left") under a title row, and each application spans two rows.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';

const manager = fs.readFileSync(path.join(__dirname, '../../fixtures/real/tomcat/manager.html'), 'utf8');
const URL_ = 'http://127.0.0.1:8975/manager/html';
const read = (x: NonNullable<ReturnType<typeof extractHtml>>, text: string) =>
  extractValue(x.extractor, new View({ url: URL_, status: 200, text }), 't') as Record<string, unknown>[];

describe("Tomcat Manager's page", () => {
  it('a header row of <td> cells names the columns, and is no record', () => {
    const x = extractHtml(manager, [], [])!;
    expect(x.why).toMatch(/6 rows, columns from its header cells \(path, path_url, version, display_name, running, sessions/);
    const rows = read(x, manager);
    expect(rows.map((r) => r.path)).toEqual(['/', '/cellar', '/host-manager', '/manager', '/orchard', '/pantry']);
    expect(rows.find((r) => r.path === '/pantry')).toMatchObject({ display_name: 'Pantry Stock', running: 'true', sessions: 0 });
  });

  it('at run time the columns are found by their header text, though a column was added before them', () => {
    const x = extractHtml(manager, [], [])!;
    // Another release adds a column after "Path", and an application is stopped.
    const later = manager
      .replace('<td class="header-left"><small>Version</small></td>', '<td class="header-left"><small>Owner</small></td>$&')
      .replace(/(rowspan="2"><small><a href="\/[a-z-]*\/?"[^\n]*\n)/g, '$1 <td class="row-left" rowspan="2"><small>ops</small></td>\n')
      .replace(/(Cellar Book<\/small><\/td>\n[^\n]*<small>)true/, '$1false');
    const rows = read(x, later);
    expect(rows).toHaveLength(6);
    expect(rows.find((r) => r.path === '/cellar')).toMatchObject({ display_name: 'Cellar Book', running: 'false' });
    expect(rows.every((r) => r.version === 'None specified')).toBe(true);
  });

  it('a first row styled like the rows after it is a record, not a header', () => {
    const plain = `<table>
      <tr><td class="row">Apples</td><td class="row">12</td><td class="row">Shed</td></tr>
      <tr><td class="row">Pears</td><td class="row">7</td><td class="row">Barn</td></tr>
      <tr><td class="row">Plums</td><td class="row">3</td><td class="row">Cellar</td></tr></table>`;
    const x = extractHtml(`<html><body><main>${plain}</main></body></html>`, [], [])!;
    const rows = read(x, `<html><body><main>${plain}</main></body></html>`);
    expect(rows).toHaveLength(3);
    expect(JSON.stringify(rows[0])).toContain('Apples');
  });

  it('a first row of bold cells over plain rows is a header', () => {
    const page = `<html><body><main><table>
      <tr><td><b>Fruit</b></td><td><b>Crates</b></td></tr>
      <tr><td>Apples</td><td>12</td></tr><tr><td>Pears</td><td>7</td></tr><tr><td>Plums</td><td>3</td></tr>
      </table></main></body></html>`;
    const x = extractHtml(page, [], [])!;
    expect(read(x, page)).toEqual([
      { fruit: 'Apples', crates: 12 },
      { fruit: 'Pears', crates: 7 },
      { fruit: 'Plums', crates: 3 },
    ]);
  });
});

describe("Tomcat Manager's answer to a command", () => {
  const deployed = fs.readFileSync(path.join(__dirname, '../../fixtures/real/tomcat/deployed.html'), 'utf8');

  it('a table row labelled "Message:" is a label/value record, though it is the only row', () => {
    const x = extractHtml(deployed, ['OK - Deployed application at context path [/plum]'], [])!;
    expect(x.extractor).toMatchObject({ from: 'css', fields: { message: expect.anything() } });
    const other = deployed.replace('[&#47;plum]', '[&#47;quince]');
    expect(extractValue(x.extractor, new View({ url: URL_, status: 200, text: other }), 't')).toEqual({
      message: 'OK - Deployed application at context path [/quince]',
    });
  });
});
