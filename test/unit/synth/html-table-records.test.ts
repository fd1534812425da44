// Records that are each a small label/value table (src/synth/html-table-records.ts), on a page of
// our own: labels in <th> or <td>, a record missing a label in the middle, a summary table above.
import { describe, expect, it } from 'vitest';
import { loadHtml } from '../../../src/synth/html-load.js';
import { tableRecords } from '../../../src/synth/html-table-records.js';
import { readRule as read } from '../../helpers/saved-recordings.js';

const hit = (name: string, rows: [string, string][], th: boolean) =>
  `<table><tr><td colspan="2"><a href="/people/${name}">${name}</a></td></tr>${rows
    .map(([l, v]) => `<tr>${th ? `<th>${l}</th>` : `<td>${l}</td>`}<td>${v}</td></tr>`)
    .join('')}</table><br>`;
const page = (th: boolean) =>
  `<html><body><main><table><tr><td>Found: 3</td><td>Query: team=2</td></tr></table>${hit(
    'ada',
    [
      ['Name', 'Ada Moreno'],
      ['Room', '4'],
      ['Phone', '0101'],
      ['Phone number', 'x'],
    ],
    th,
  )}${hit(
    'bea',
    [
      ['Name', 'Bea Lind'],
      ['Phone', '0102'],
      ['Phone number', 'y'],
    ],
    th,
  )}${hit(
    'cy',
    [
      ['Name', 'Cy Park'],
      ['Room', '9'],
      ['Phone', '0103'],
      ['Phone number', 'z'],
    ],
    th,
  )}</main></body></html>`;

describe('records that are each a label/value table', () => {
  for (const th of [false, true])
    it(`reads each record by its labels (${th ? '<th>' : '<td>'} labels), null where one is missing`, () => {
      const html = page(th);
      const [c] = tableRecords(loadHtml(html), new Set());
      expect(c).toBeDefined();
      expect(read(c!.extractor, html)).toEqual([
        { title: 'ada', url: '/people/ada', name: 'Ada Moreno', room: 4, phone: '0101', phone_number: 'x' },
        { title: 'bea', url: '/people/bea', name: 'Bea Lind', room: null, phone: '0102', phone_number: 'y' },
        { title: 'cy', url: '/people/cy', name: 'Cy Park', room: 9, phone: '0103', phone_number: 'z' },
      ]);
    });
});
