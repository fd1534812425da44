// Records that are each a small label/value table, one after another (phpLDAPadmin's search hits:
// a title row linking to the entry, then a row per attribute — `cn | Dara Kim`, `sn | Kim` — in a
// table of its own per hit). Their rows are no list (every row is one field of one record), and the
// tables are no records a repeated-leaf rule can read: an entry without `sn` shifts every row after
// it. So each field is selected by its label, the cell before the value, and the tables are the
// records: those of the parent's tables that hold the label most of them show (not a header table
// with the hit count above them).
import type * as cheerio from 'cheerio';
import type { CssField } from '../formats/definition/types.js';
import type { Schema } from './schema-infer.js';
import { readableText } from '../runtime/worker/engines/extract.js';
import { inTemplate } from './page-template.js';
import { clean, cssq } from './dom-text.js';
import { type El, fieldName, inChrome, inMain, nullable, pathOf, type StructuralCandidate, typed } from './html-dom.js';

/** A table's label/value rows: the label (its next-to-last cell, short words) and the value cell, or null when most rows are not. */
function labelRows($: cheerio.CheerioAPI, table: El): { label: string; value: El }[] | null {
  const rows = table.find('> tbody > tr, > tr').toArray();
  const out: { label: string; value: El }[] = [];
  for (const r of rows) {
    const cells = $(r).children('td, th');
    if (cells.length < 2 || cells.last().attr('colspan')) continue;
    const label = clean(readableText(cells.eq(cells.length - 2))).replace(/:$/, '');
    if (!label || label.length > 40 || /^[\d\W]+$/.test(label) || cells.last().find('table, form').length) continue;
    out.push({ label, value: cells.last() });
  }
  return out.length >= 2 && out.length * 2 >= rows.length ? out : null;
}

/** The candidate for each run of two or more sibling label/value tables whose labels recur. */
export function tableRecords($: cheerio.CheerioAPI, template: Set<unknown>): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  const seen = new Set<unknown>();
  $('table').each((_, t) => {
    const parent = $(t).parent();
    const p = parent.get(0);
    if (seen.has(p)) return;
    seen.add(p);
    if (inChrome(parent) || inTemplate(template, parent)) return;
    const tables = parent
      .children('table')
      .toArray()
      .map((e) => $(e));
    const read = tables.map((tb) => ({ tb, rows: labelRows($, tb) })).filter((x) => x.rows) as {
      tb: El;
      rows: { label: string; value: El }[];
    }[];
    if (read.length < 2) return;
    // (Labels in most of the records: a record's fields. A label in one table only is its own.)
    const count = new Map<string, number>();
    for (const { rows } of read) for (const l of new Set(rows.map((r) => r.label))) count.set(l, (count.get(l) ?? 0) + 1);
    const labels = [...count.keys()].filter((l) => count.get(l)! * 2 >= read.length && count.get(l)! >= 2);
    // (Tables of one label each, or labels that repeat in a record, are a list's rows, not records.)
    if (labels.length < 2 || read.some(({ rows }) => new Set(rows.map((r) => r.label)).size < rows.length)) return;
    const all = [...count.keys()];
    const taken = new Set<string>();
    const fields: Record<string, CssField> = {};
    const props: Record<string, Schema> = {};
    const rowOf = new Map<string, string>(); // label → the selector of its row
    // A title row linking to the record (its first row, a link and no label/value pair).
    const titled = read.every(({ tb }) => tb.find('> tbody > tr:first-child a[href], > tr:first-child a[href]').length === 1);
    if (titled) {
      fields.title = { selector: 'tr:first-child a[href]' };
      fields.url = { selector: 'tr:first-child a[href]', attr: 'href' };
      props.title = { type: 'string' };
      props.url = { type: 'string' };
      taken.add('title').add('url');
    }
    for (const label of labels) {
      // (By the label's text: `:contains` is a substring match, so a longer label holding this one —
      // `uidNumber` beside `uid` — is ruled out by name.)
      const longer = all.filter((o) => o !== label && o.includes(label));
      // (Either cell may be a <th> or a <td>, as labelRows reads them.)
      const cell = `:contains(${cssq(label)})${longer.map((o) => `:not(:contains(${cssq(o)}))`).join('')}`;
      const vals = read.map(({ rows }) => rows.find((r) => r.label === label)?.value).map((v) => (v ? clean(readableText(v)) : null));
      const present = vals.filter((v): v is string => v !== null);
      const ty = typed(present[0] ?? '');
      const every = present.length === read.length;
      const name = fieldName(label, taken, `field_${taken.size + 1}`);
      rowOf.set(label, `tr:has(> ${cell}:nth-last-child(2))`);
      fields[name] = {
        selector: `${rowOf.get(label)} > :last-child`,
        ...(ty.type && present.every((v) => typed(v).type === ty.type) ? { type: ty.type } : {}),
        ...(every ? {} : { required: false }),
      };
      const schema = fields[name].type ? ty.schema : ({ type: 'string' } as Schema);
      props[name] = every ? schema : nullable(schema);
    }
    // The records: the parent's tables holding the label most of them show (a header table above them holds none).
    const common = labels.reduce((a, b) => (count.get(b)! > count.get(a)! ? b : a));
    const sel = `${pathOf($, parent)} > table:has(${rowOf.get(common)})`;
    if ($(sel).length !== read.filter(({ rows }) => rows.some((r) => r.label === common)).length) return;
    out.push({
      kind: 'list',
      extractor: { from: 'css', selector: sel, all: true, required: false, fields },
      schema: {
        type: 'array',
        items: { type: 'object', properties: props, required: Object.keys(props).filter((k) => fields[k]!.required !== false) },
      },
      why: `${read.length} label/value tables under ${pathOf($, parent)}, one per record (${Object.keys(fields).join(', ')})`,
      text: clean(read.map(({ tb }) => tb.text()).join(' ')),
      records: read.length,
      fieldCount: Object.keys(fields).length,
      main: inMain(parent),
      labelled: true,
    });
  });
  return out;
}
