// Tables about a record, each under its own heading after the record (html-related.ts), on a page
// of our own: which tables are the record's, what they are named, and how each is found again.
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { readRule as read } from '../../helpers/saved-recordings.js';

const table = (head: string[], rows: string[][]) =>
  `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
const page = (extra = '') => `<html><body><h1>Customer</h1>
<div>${table(
  ['Code', 'Region'],
  [
    ['N1', 'North'],
    ['S2', 'South'],
  ],
)}</div>
<form method="post" action="/customers/7" id="customer">
  <p><label for="n">Name</label> <input id="n" name="name" value="Ada Moreno"></p>
  <p><label for="e">Email</label> <input id="e" name="email" value="ada@example.test"></p>
  <p><label for="c">City</label> <input id="c" name="city" value="Leeds"></p>
  <button>Save</button>
</form>
<div><h2>Orders</h2>${table(
  ['Number', 'Total', 'Status'],
  [
    ['1001', '12.50', 'paid'],
    ['1002', '8.00', 'open'],
  ],
)}</div>
<div><h2>Invoices</h2>${table(
  ['Number', 'Total', 'Status'],
  [
    ['I-9', '20.50', 'sent'],
    ['I-10', '8.00', 'draft'],
  ],
)}</div>
<div>${table(
  ['Ref', 'When'],
  [
    ['x1', 'today'],
    ['x2', 'yesterday'],
  ],
)}</div>${extra}
</body></html>`;

describe('tables about a record', () => {
  it("are the headed tables after the record's form, named by their headings and found by them", () => {
    const html = page();
    const h = extractHtml(html)!;
    expect(h.kind).toBe('detail');
    expect(h.related?.map((l) => l.name)).toEqual(['orders', 'invoices']);
    const [orders, invoices] = h.related!;
    // (Both tables have the same header cells: each is found by its heading.)
    expect(orders!.extractor.selector).toContain('h2:contains("Orders")');
    expect(read(orders!.extractor, html).map((r: any) => r.status)).toEqual(['paid', 'open']);
    expect(read(invoices!.extractor, html).map((r: any) => r.number)).toEqual(['I-9', 'I-10']);
    // (Another record without invoices: an empty list, not a failure.)
    expect(read(invoices!.extractor, html.replace(/<div><h2>Invoices<\/h2>[\s\S]*?<\/table><\/div>/, ''))).toEqual([]);
  });
});
