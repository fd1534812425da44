// Synthesis stages on pages saved from a thirty-ninth real application, hledger-web 1.25 (Debian's
// hledger-web; scripts/acceptance-setup.sh): the general journal, one table in which each
// transaction is a heading row (its date, and its description spanning two columns) followed by
// its postings' rows (account and amount, date and description left blank).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';

const page = (name: string) => fs.readFileSync(path.join(__dirname, `../../fixtures/real/hledger/${name}.html`), 'utf8');
const read = (html: string, x: unknown) =>
  extractValue(x as any, new View({ url: 'http://127.0.0.1:9013/', status: 200, text: html }), 'items');
type Row = Record<string, unknown>;
const line = (r: Row) => `${r.date} ${r.description}: ${r.account} ${r.amount}`;

describe("hledger's journal", () => {
  it("reads each posting with its transaction's date and description, not the postings alone", () => {
    const cider = page('journal-cider');
    const r = extractHtml(cider, [], ['cider'])!;
    expect(r.extractor).toMatchObject({ from: 'css', all: true, headings: true });
    expect((r.extractor as any).fields.date).toMatchObject({ column: 'Date', fill_down: true });
    expect((r.extractor as any).fields.description).toMatchObject({ column: 'Description', fill_down: true });
    expect((r.schema as any).items.properties.date).toMatchObject({ type: 'string' });
    expect((read(cider, r.extractor) as Row[]).map(line)).toEqual([
      '2026-11-20 Cider sales to the pub: assets:bank:checking 320.00 EUR',
      '2026-11-20 Cider sales to the pub: income:cider -320.00 EUR',
      '2026-11-07 Cider sales at the gate: assets:cash 180.00 EUR',
      '2026-11-07 Cider sales at the gate: income:cider -180.00 EUR',
    ]);
    // The same rule on the whole journal: every transaction's postings, the headings no records.
    const all = read(page('journal'), r.extractor) as Row[];
    expect(all).toHaveLength(20);
    expect(all.map(line)).toContain('2026-11-21 Grafting knife from Swiss supplier: expenses:tools 45.00 CHF');
    expect(all.every((x) => x.account && x.amount && x.date && x.description)).toBe(true);
  });

  it("an account's register (one row per transaction) stays a plain table", () => {
    const reg = page('register-cash');
    // (Recorded after the journal, as a person reaches it: the sidebar both pages print is template.)
    const r = extractHtml(reg, [], ['assets:cash'], undefined, [page('journal')])!;
    expect((r.extractor as any).headings).toBeUndefined();
    expect((read(reg, r.extractor) as Row[]).map((x) => x.description)).toEqual([
      'Bakery and cheese',
      'Cider sales at the gate',
      'Farmers market',
    ]);
  });
});

describe('heading rows in general', () => {
  const table = (body: string) =>
    `<html><body><main><table><thead><tr><th>Date</th><th>Order</th><th>Item</th><th>Qty</th></tr></thead><tbody>${body}</tbody></table></main></body></html>`;
  const heading = (d: string, o: string) => `<tr><td>${d}</td><td colspan="2">${o}</td><td></td></tr>`;
  const item = (i: string, q: number) => `<tr><td></td><td></td><td>${i}</td><td>${q}</td></tr>`;

  it('fill the columns they hold onto the rows under them, and a row missing its data still fails the run', () => {
    const html = table(
      heading('2026-11-01', 'Order 17') + item('Bramley', 4) + item('Cox', 2) + heading('2026-11-03', 'Order 18') + item('Quince', 1),
    );
    const r = extractHtml(html, [], [])!;
    expect((read(html, r.extractor) as Row[]).map((x) => `${x.date}/${x.order}/${x.item}/${x.qty}`)).toEqual([
      '2026-11-01/Order 17/Bramley/4',
      '2026-11-01/Order 17/Cox/2',
      '2026-11-03/Order 18/Quince/1',
    ]);
    // (A record row that lost its Item cell is the site changed, not a heading.)
    const broken = table(
      `${heading('2026-11-01', 'Order 17')}<tr><td></td><td></td><td>3</td></tr>${item('Cox', 2)}${heading('2026-11-03', 'Order 18')}`,
    );
    expect(() => read(broken, r.extractor)).toThrow(/not found/);
  });

  it('controls: headings that share the records columns, or a spanning total row at the end, are no headings', () => {
    // (Records that fill the date themselves: the spanning rows are not their headings.)
    const dated = table(
      `${heading('2026-11-01', 'Order 17')}<tr><td>2026-11-01</td><td></td><td>Cox</td><td>2</td></tr><tr><td>2026-11-02</td><td></td><td>Gala</td><td>5</td></tr>${heading('2026-11-03', 'Order 18')}<tr><td>2026-11-03</td><td></td><td>Quince</td><td>1</td></tr>`,
    );
    expect((extractHtml(dated, [], [])!.extractor as any).headings).toBeUndefined();
    const rows = `<tr><td>2026-11-01</td><td>17</td><td>Cox</td><td>2</td></tr><tr><td>2026-11-02</td><td>18</td><td>Gala</td><td>5</td></tr><tr><td>2026-11-03</td><td>19</td><td>Quince</td><td>1</td></tr>`;
    const totalled = table(`${rows}<tr><td colspan="3">Total</td><td>8</td></tr>`);
    const t = extractHtml(totalled, [], [])!;
    expect((t.extractor as any).headings).toBeUndefined();
    expect(read(totalled, t.extractor)).toHaveLength(3);
  });

  it('a cell spanning columns is read under the column it starts at, not under the next', () => {
    const html = table(`${item('Cox', 2)}<tr><td>2026-11-02</td><td colspan="2">Order 18</td><td>7</td></tr>`);
    const x = {
      from: 'css',
      selector: 'table > tbody > tr',
      all: true,
      fields: { item: { column: 'Item', required: false }, qty: { column: 'Qty' } },
    };
    expect(read(html, x)).toEqual([
      { item: 'Cox', qty: '2' },
      { item: null, qty: '7' },
    ]);
  });
});
