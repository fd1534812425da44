// Synthesis stages on pages saved from a fortieth real application, HAProxy 2.6's statistics page
// (Debian's haproxy; scripts/acceptance-setup.sh), and the general rules it showed: a header of two
// rows (groups spanning their columns, a rowspan corner), text hidden by the page's own stylesheet
// (hover tooltips holding tables), a row that joins columns into one cell, a headerless first
// column of names, in-page anchors that are no URLs, and a message box marked only by its dismiss link.
import fs from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { extractValue, View, visibleText } from '../../../src/runtime/worker/engines/extract.js';
import { hidingSelectors } from '../../../src/runtime/worker/engines/style-hidden.js';
import { columnNames } from '../../../src/runtime/worker/engines/table-headers.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { outcomeMessage } from '../../../src/synth/html-outcome.js';

const page = (name: string) => fs.readFileSync(path.join(__dirname, `../../fixtures/real/haproxy/${name}.html`), 'utf8');
const read = (html: string, x: unknown) =>
  extractValue(x as any, new View({ url: 'http://127.0.0.1:9015/', status: 200, text: html }), 'out');
type Row = Record<string, unknown>;

describe("HAProxy's statistics page", () => {
  it("reads a backend's servers by name, each column named by the group above it, tooltips left out", () => {
    const html = page('stats');
    const r = extractHtml(html, [], ['shop-b'])!;
    const fields = (r.extractor as any).fields;
    expect(fields.name).toBeDefined();
    expect(fields.server_status).toMatchObject({ column: 'Server Status' });
    expect(fields.sessions_total).toMatchObject({ column: 'Sessions Total', type: 'integer' });
    expect(fields.queue_cur).toMatchObject({ column: 'Queue Cur' });
    // (`#be_shop/shop-a` moves within the page: no URL field.)
    expect(fields.name_url).toBeUndefined();
    const rows = read(html, r.extractor) as Row[];
    expect(rows.map((x) => x.name)).toEqual(['shop-a', 'shop-b', 'shop-c']);
    expect(rows.map((x) => x.server_status)).toEqual(['no check', expect.stringMatching(/DRAIN/), 'no check']);
    // (Under the three check columns the row has one empty cell: the throttle column is still found.)
    expect(rows.map((x) => x.server_wght)).toEqual(['10/10', '20/20', '30/30']);
    expect(rows.every((x) => x.server_thrtle === '-')).toBe(true);
    expect(JSON.stringify(rows)).not.toMatch(/IPv4|Cum\. sessions/);
  });

  it("the admin form's landing page: its message, marked only by the [X] that removes it", () => {
    const done = outcomeMessage(page('stats-done'), [page('stats')])!;
    expect(done.text).toBe('Action processed successfully.');
    expect(done.extract.message_url).toBeUndefined(); // (the [X] leads back to the page: no link of the message)
    expect(read(page('stats-errp'), done.extract.message)).toMatch(/^Action not processed because of invalid parameters\./);
  });
});

describe('header rows joined into column names', () => {
  const cell = (text: string, colspan = 1, rowspan = 1) => ({ text, colspan, rowspan });

  it('one row: a cell spanning columns names none of them (as before)', () => {
    expect(columnNames([[cell('Name'), cell('Actions', 2)]])).toEqual(['Name', '', '']);
  });

  it('two rows: a group above its columns, a corner spanning both rows', () => {
    const names = columnNames([
      [cell('', 1, 2), cell('Host', 1, 2), cell('Sessions', 3), cell('Bytes', 2)],
      [cell('Cur'), cell('Max'), cell('Limit'), cell('In'), cell('Out')],
    ]);
    expect(names).toEqual(['', 'Host', 'Sessions Cur', 'Sessions Max', 'Sessions Limit', 'Bytes In', 'Bytes Out']);
  });

  it("a caption row over the whole width is no part of a name, nor is a filter row's blank", () => {
    expect(columnNames([[cell('People', 2)], [cell('First'), cell('Last')], [cell(''), cell('')]])).toEqual(['First', 'Last']);
  });

  it("the runtime finds a column by its joined name, and by one row's text (a definition made before)", () => {
    const html = `<table><thead><tr><th colspan="2">Person</th><th rowspan="2">Age</th></tr><tr><th>First</th><th>Last</th></tr></thead>
      <tbody><tr><td>Ada</td><td>Lovelace</td><td>36</td></tr><tr><td>Alan</td><td>Turing</td><td>41</td></tr></tbody></table>`;
    const x = (fields: Record<string, unknown>) => ({ from: 'css', selector: 'tbody > tr', all: true, fields });
    expect(read(html, x({ first: { column: 'Person First' }, last: { column: 'Person Last' }, age: { column: 'Age' } }))).toEqual([
      { first: 'Ada', last: 'Lovelace', age: '36' },
      { first: 'Alan', last: 'Turing', age: '41' },
    ]);
    expect(read(html, x({ last: { column: 'Last' } }))).toEqual([{ last: 'Lovelace' }, { last: 'Turing' }]);
  });
});

describe("text the page's own stylesheet hides", () => {
  it('is read from top-level rules that hide, not from @media blocks or :hover rules', () => {
    const css = `/* tips */ div.tips { display:block; visibility:hidden; z-index:9 }
      u:hover div.tips { visibility: visible }
      .menu, .drop > ul { display: none !important }
      @media print { .noprint { display: none } }
      .shown { display: block }`;
    expect(hidingSelectors(css)).toEqual(['div.tips', '.menu', '.drop > ul']);
  });

  it("is no part of an element's visible text; markup-hidden text and a message's dismiss control neither", () => {
    const $ = cheerio.load(`<html><head><style>.tip { visibility: hidden }</style></head><body>
      <p id="a">shop-a<span class="tip">IPv4: 10.0.0.1</span> <span hidden>x</span>up</p>
      <div id="m"><button data-bs-dismiss="alert">×</button>Saved.</div></body></html>`);
    expect(visibleText($('#a')).replace(/\s+/g, ' ')).toBe('shop-a up');
    expect(visibleText($('#m')).trim()).toBe('Saved.');
    // (Without the rule the tip is text, as the page shows it.)
    const plain = cheerio.load('<p id="a">shop-a<span class="tip">IPv4</span></p>');
    expect(visibleText(plain('#a'))).toBe('shop-aIPv4');
  });

  it('a hash route is a URL, an in-page anchor is none', () => {
    const rows = (href: (i: number) => string) =>
      `<html><body><main><table><thead><tr><th>Name</th><th>Size</th></tr></thead><tbody>${[1, 2, 3]
        .map((i) => `<tr><td><a href="${href(i)}">Item ${i}</a></td><td>${i * 10}</td></tr>`)
        .join('')}</tbody></table></main></body></html>`;
    expect(
      (
        extractHtml(
          rows((i) => `#/items/${i}`),
          [],
          ['Item 2'],
        )!.extractor as any
      ).fields.name_url,
    ).toBeDefined();
    expect(
      (
        extractHtml(
          rows((i) => `#item-${i}`),
          [],
          ['Item 2'],
        )!.extractor as any
      ).fields.name_url,
    ).toBeUndefined();
  });
});
