// Tables as extraction candidates: a header row's cells name the columns, two-column and <th>-row
// tables are label/value records, and a <tbody> of several rows is one record.
import type * as cheerio from 'cheerio';
import type { CssField } from '../formats/definition/types.js';
import type { Schema } from './schema-infer.js';
import { argName } from './values.js';
import { cellAt, readableText, visibleText } from '../runtime/worker/engines/extract.js';
import { columnNames, headCells, headRows } from '../runtime/worker/engines/table-headers.js';
import { inTemplate } from './page-template.js';
import { clean, cssq, tagOf } from './dom-text.js';
import {
  classWords,
  type El,
  fieldName,
  foldedAway,
  hidden,
  hiddenWithin,
  inChrome,
  inMain,
  nullable,
  pathOf,
  relPath,
  shortRel,
  type StructuralCandidate,
  typed,
} from './html-dom.js';

function headerCells($: cheerio.CheerioAPI, table: El): string[] | null {
  const tdHead = tdHeaderRow($, table);
  if (tdHead) return headerTexts($, tdHead);
  // (Over every header row: a group's name above joins its columns' own — "Sessions Cur". A cell's
  // visible text: not its inline script, Adminer's sort handlers.)
  const rows = headRows($, table);
  return rows.length ? columnNames(rows.map((r) => headCells($, r, (c) => clean(visibleText(c))))) : null;
}

/** How many columns a cell covers (its colspan, 1 to 20). */
const spanOf = ($: cheerio.CheerioAPI, cell: unknown) => Math.max(1, Math.min(20, Number($(cell as never).attr('colspan') ?? 1) || 1));

/** A header row's cell texts by column position, colspans expanded so they line up with body cells. */
function headerTexts($: cheerio.CheerioAPI, row: El): string[] {
  const out: string[] = [];
  row.children('th, td').each((_, c) => {
    const span = spanOf($, c);
    const text = clean(visibleText($(c))); // (not a cell's inline script: Adminer's sort handlers)
    for (let i = 0; i < span; i++) out.push(span > 1 ? '' : text);
  });
  return out;
}

/** Body rows with data cells, of the table's usual width (a colspan footer row is not a record), a
 * header row of <td> cells left out. */
function dataRows($: cheerio.CheerioAPI, table: El): El {
  const rows = rowsOfWidth($, table);
  const head = tdHeaderRow($, table);
  const lead = new Set(controlRows($, table));
  return rows.filter((_, r) => r !== head?.get(0) && !lead.has(r));
}

/**
 * The body's leading rows that are the list's own controls, not records: a row of filter boxes
 * (a text box or menu under each header) or of sort arrows (icons, no words but in one cell) —
 * LAM's account list has both between its header and its first account.
 */
function controlRows($: cheerio.CheerioAPI, table: El): unknown[] {
  const out: unknown[] = [];
  for (const r of table.find('> tbody > tr').toArray()) {
    const row = $(r);
    if (!row.children('td').length) continue;
    // (Words in one cell at most — "Filter", "Sort sequence" —: a row of records has its values. A
    // record's own hidden inline-edit menus, RT's, are no filter boxes.)
    const worded = row.children('td, th').filter((_, c) => !!clean(visibleText($(c)))).length;
    if (worded > 1 || row.children().length < 3) break;
    const boxes =
      row.find('input[type=text], input[type=search], input:not([type]), select').filter((_, b) => !hidden($, $(b))).length >= 2;
    const arrows =
      row.find('a[href]').length >= 2 &&
      row
        .find('a[href]')
        .toArray()
        .every((a) => !clean(visibleText($(a))));
    if (!boxes && !arrows) break;
    out.push(r);
  }
  return out;
}

/** `:nth-of-type(n+K)` for a table whose first rows are its controls (controlRows), else ''. */
function afterControls($: cheerio.CheerioAPI, table: El): string {
  const lead = controlRows($, table);
  return lead.length ? `:nth-of-type(n+${$(lead.at(-1) as never).index() + 2})` : '';
}

function rowsOfWidth($: cheerio.CheerioAPI, table: El): El {
  const rows = table.find('> tbody > tr').filter((_, r) => $(r).children('td').length > 0);
  const widths = new Map<number, number>();
  rows.each((_, r) => void widths.set($(r).children().length, (widths.get($(r).children().length) ?? 0) + 1));
  const modal = [...widths.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0];
  return rows.filter((_, r) => $(r).children().length === modal);
}

/**
 * A header row made of <td> cells, as older server-rendered pages write it (Tomcat's Manager, CGI
 * front ends): the first row of the table's usual width, followed by at least two more, whose
 * cells are short distinct texts with no link or control, set apart from every row after it —
 * by cell classes no later row uses, or by bold text in every cell. (A table with a <th> or <thead>
 * header keeps that one.) The runtime finds the same row by a column's text (engines/extract.ts).
 */
function tdHeaderRow($: cheerio.CheerioAPI, table: El): El | null {
  // (Asked for each table by the rows, the header texts and the header selector: found once.)
  const node = table.get(0);
  if (!node) return null;
  if (tdHeads.has(node)) return tdHeads.get(node) ?? null;
  const head = findTdHeaderRow($, table);
  tdHeads.set(node, head);
  return head;
}

const tdHeads = new WeakMap<object, El | null>();

function findTdHeaderRow($: cheerio.CheerioAPI, table: El): El | null {
  if (table.find('> thead > tr, > tbody > tr > th').length) return null;
  const rows = rowsOfWidth($, table);
  if (rows.length < 3) return null;
  const head = rows.first();
  const cells = head
    .children()
    .toArray()
    .map((c) => $(c));
  const texts = cells.map((c) => clean(visibleText(c)));
  if (cells.length < 2 || texts.some((t) => !t || t.length > 40 || /^[\d\s.,:%/-]+$/.test(t))) return null;
  if (new Set(texts.map((t) => t.toLowerCase())).size !== texts.length) return null;
  if (head.find('a[href], input, select, textarea, button, img').length) return null;
  const rest = rows
    .slice(1)
    .toArray()
    .map((r) => $(r));
  const classes = (row: El) =>
    new Set(
      row
        .children()
        .toArray()
        .flatMap((c) => ($(c).attr('class') ?? '').split(/\s+/).filter(Boolean)),
    );
  const own = [...classes(head)];
  const byClass = own.length > 0 && rest.every((r) => !own.some((c) => classes(r).has(c)));
  const bold = (row: El) =>
    row
      .children()
      .toArray()
      .every((c) => clean($(c).find('b, strong').text()) === clean(visibleText($(c))));
  const byBold = bold(head) && !rest.some(bold);
  return byClass || byBold ? head : null;
}

/**
 * A label/value table (a detail record): every row is <th>label</th><td>value</td>, or a
 * two-column table whose header says so ("Property | Value") or that has no header at all.
 */
export function isPairTable($: cheerio.CheerioAPI, table: El): boolean {
  if (labelledRows($, table)) return true;
  const rows = dataRows($, table);
  if (!rows.length || !rows.toArray().every((r) => $(r).children().length === 2)) return false;
  const head = headerCells($, table);
  const thLabels = rows.toArray().every((r) => tagOf($(r).children().first()) === 'th');
  const kvHeader =
    !!head &&
    head.length === 2 &&
    /^(property|attribute|field|key|name|setting|option|label|item)$/i.test(head[0]) &&
    /^(value|details?|data|setting|content)$/i.test(head[1]);
  // (A label says it is one: "Message:" over any number of rows, even one.)
  const colonLabels = rows.toArray().every((r) => /\S:$/.test(clean(visibleText($(r).children().first()))));
  // (Labels differ from row to row: first cells that read the same but for their numbers — omega's
  // "Modified: 2026-04-08 Size: 97 bytes" beside each search hit — are each record's own data.)
  const shapes = new Set(rows.toArray().map((r) => clean(visibleText($(r).children().first())).replace(/\d+/g, '#')));
  return thLabels || kvHeader || colonLabels || (!head && rows.length >= 2 && shapes.size === rows.length);
}

/**
 * The rows of a label/value table without a header whose rows are two or three cells: a short
 * label, its value, and a third cell (gitweb's and cgit's commit header). With <th> labels every
 * row has one, and a third cell is the label's second value (cgit: "author", the name, the date).
 * With <td> labels a blank label continues the row above (gitweb: "author" over the name, then a
 * blank label over the date), and a third cell holds links or nothing ("tree | snapshot"). The
 * labels are distinct words without links, the values all there. Null when the table is not one.
 */
function labelledRows($: cheerio.CheerioAPI, table: El): El[] | null {
  if (headerCells($, table)) return null;
  const rows = table
    .find('> tbody > tr')
    .filter((_, r) => $(r).children('td').length > 0)
    .toArray()
    .map((r) => $(r));
  const cells = rows.map((r) =>
    r
      .children('td, th')
      .toArray()
      .map((c) => $(c)),
  );
  if (cells.some((c) => c.length < 2 || c.length > 3) || cells.every((c) => c.length === 2)) return null;
  const th = cells.every((c) => tagOf(c[0]!) === 'th' && c.slice(1).every((v) => tagOf(v) === 'td'));
  const labels = cells.map((c) => clean(visibleText(c[0]!)));
  const named = labels.filter(Boolean);
  if (rows.length < (th ? 2 : 3) || !labels[0] || new Set(named).size !== named.length) return null;
  if (th ? named.length !== rows.length : named.length < 2 || named.length === rows.length) return null;
  // (<th> labels on rows all three cells wide are row headers of a list, not labels.)
  if (th && cells.every((c) => c.length === 3)) return null;
  if (cells.some((c) => c[0]!.find('a[href], input, select, button').length || !clean(visibleText(c[1]!)))) return null;
  if (named.some((l) => l.length > 30 || !/\p{L}/u.test(l))) return null;
  return th || cells.every((c) => !c[2] || linksOnly($, c[2])) ? rows : null;
}

/** Text without the separators printed between links, which are no words: "commit | diff" → "commit diff". */
const withoutSeparators = (t: string) => clean(t.replace(/[|·⋅•[\]()]/g, ' '));

/** A cell of nothing but links and the separators between them ("tree | snapshot"), or empty. */
function linksOnly($: cheerio.CheerioAPI, c: El): boolean {
  const text = withoutSeparators(visibleText(c));
  const words = c
    .find('a[href]')
    .toArray()
    .map((a) => clean(visibleText($(a))));
  return !text || clean(words.join(' ')) === text;
}

/**
 * One field per row of a label/value table; the row is found by its label text (rows may move),
 * or by its place when another label holds that text ("commit" in "committer"). A row that
 * continues the label above, or a value in a third cell, is `<label>_detail`.
 */
export function pairFields(
  $: cheerio.CheerioAPI,
  table: El,
  root: El | null,
  taken: Set<string>,
): { fields: Record<string, CssField>; props: Record<string, Schema> } {
  const fields: Record<string, CssField> = {};
  const props: Record<string, Schema> = {};
  const rows =
    labelledRows($, table) ??
    dataRows($, table)
      .toArray()
      .map((r) => $(r));
  const labels = rows.map((r) => clean($(r).children().first().text()));
  rows.forEach((r, i) => {
    const own = labels[i];
    // (A blank label continues the row just above, when that row has one.)
    const label = own || (i > 0 ? labels[i - 1] : '');
    const value = clean($(r).children().eq(1).text());
    if (!label || !value || labels.filter((l) => l === label).length > 1 || /"/.test(label)) return;
    const name = own ? fieldName(label, taken, `field_${i + 1}`) : argName(`${fieldName(label, new Set(), `field_${i}`)}_detail`, taken);
    const ty = typed(value);
    const unique = !labels.some((l) => l !== label && l.includes(label));
    const row = unique ? `tr:has(> :first-child:contains(${cssq(label)}))${own ? '' : ' + tr'}` : `tr:nth-of-type(${i + 1})`;
    const byLabel = `${row} > :nth-child(2)`;
    const cell = $(r).children().eq(1);
    const sel =
      root && unique
        ? shortRel(root, cell, [byLabel, `${relPath(root, table)} > tbody > ${byLabel}`])
        : root
          ? `${relPath(root, table)} > tbody > ${byLabel}`
          : `> tbody > ${byLabel}`;
    fields[name] = { selector: sel, ...(ty.type ? { type: ty.type } : {}), required: false };
    props[name] = nullable(ty.schema);
    // (A value in a third cell: cgit's date beside the author.)
    const third = $(r).children().eq(2);
    if (!own || !third.length || linksOnly($, third)) return;
    const more = argName(`${name}_detail`, taken);
    fields[more] = { selector: sel.replace(/:nth-child\(2\)$/, ':nth-child(3)'), required: false };
    props[more] = nullable({ type: 'string' });
  });
  return { fields, props };
}

/**
 * Whether `inner` only lays out one cell of `table`'s rows: it sits in a cell of a row of `table`
 * itself (not of an inner table) under a header row, and it and every table in it are a few rows
 * of short text with no header — a link and its icons, side by side.
 */
function inCellDecoration($: cheerio.CheerioAPI, table: El, inner: El): boolean {
  if (!headerCells($, table)) return false;
  let top = inner;
  for (let up = inner.parent().closest('table'); up.length && !up.is(table); up = up.parent().closest('table')) top = up;
  return top.find('tr').length <= 4 && !top.find('th').length && clean(visibleText(top)).length <= 120;
}

export function tables($: cheerio.CheerioAPI, template: Set<unknown>): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  $('table').each((_, t) => {
    const table = $(t);
    // (A table holding tables lays out a page; one whose only inner tables are hidden — a row's
    // hint box or popup, Zabbix's host list; by the page's stylesheet, HAProxy's hover tooltips —
    // or lay out one cell's link and icons — Nagios's status lists — is a data table, and the
    // hidden ones are no candidates.)
    if (foldedAway($, table)) return;
    const inner = table.find('table').filter((_, t) => !hiddenWithin($, $(t), table));
    if (inChrome(table) || inTemplate(template, table) || inner.toArray().some((t) => !inCellDecoration($, table, $(t)))) return;
    const rows = dataRows($, table);
    if (!rows.length) return;
    const head = headerCells($, table);
    let sel = pathOf($, table);
    // A positional path breaks when a notice is added above the table: find it by its headers.
    if (/nth-of-type/.test(sel) && head) {
      const root = sel.split(/[ >]/)[0];
      const names = head.filter((h) => h && !/"/.test(h)).slice(0, 2);
      const cell = tdHeaderRow($, table) ? 'td' : 'th';
      const bySel = `${root} table:has(${names.map((h) => `${cell}:contains(${cssq(h)})`).join('):has(')})`;
      if (names.length && $(bySel).length === 1 && $(bySel).is(table)) sel = bySel;
    }
    // (Or by the heading right above it: one of several tables alike, each under its own — DAViCal's
    // "Group Memberships" and "Group Members", whose header cells are the same.)
    const heading = /nth-of-type/.test(sel) ? table.prevAll('h1, h2, h3, h4, h5, h6').first() : null;
    const title = heading?.length ? clean(visibleText(heading)) : '';
    if (heading && title && !/"/.test(title)) {
      const bySel = `${sel.split(/[ >]/)[0]} ${tagOf(table.parent())}:has(> ${tagOf(heading)}:contains(${cssq(title)})) > table`;
      if ($(bySel).length === 1 && $(bySel).is(table)) sel = bySel;
    }
    const width = Math.max(...rows.toArray().map((r) => $(r).children('td, th').length));
    if (isPairTable($, table)) {
      const { fields, props } = pairFields($, table, null, new Set<string>());
      if (Object.keys(fields).length)
        out.push({
          kind: 'detail',
          extractor: { from: 'css', selector: sel, fields },
          schema: { type: 'object', properties: props, required: Object.keys(props) },
          why: `label/value table ${sel} (${Object.keys(fields).length} rows)`,
          labelled: true,
          text: clean(table.text()),
          records: 1,
          fieldCount: Object.keys(fields).length,
          main: inMain(table),
        });
      return;
    }
    if (width < 2 && !head) return;
    const grouped = rowGroups($, table) ?? headedRows($, table, head, sel);
    if (grouped) {
      out.push(grouped);
      return;
    }
    const rowArr = rows.toArray().map((r) => $(r));
    // (Under a header, a cell is found by the column it starts at, as the runtime finds it: a row
    // may join columns — HAProxy's servers span three check columns with one empty cell.)
    const columns = Array.from({ length: head ? Math.max(width, head.length) : width }, (_, k) => ({
      cells: rowArr.map((r) => (head ? cellAt($, r, k) : r.children('td, th').eq(k))),
      header: head?.[k] ?? '',
      at: `> :nth-child(${k + 1})`,
    }));
    const { fields, props } = columnFields(columns, !!head, rowArr.length);
    if (Object.keys(fields).length < 1) return;
    // Rows of the records' width only (a colspan footer row in another tbody is no record); with
    // header-mapped columns, rows at least that wide (a site may add columns).
    const allByHeader = Object.values(fields).every((f) => f.column !== undefined);
    const skip = afterControls($, table);
    const rowSel = allByHeader
      ? `${sel} > tbody > tr${skip}:has(> td):has(> :nth-child(${width}))`
      : `${sel} > tbody > tr${skip}:has(> td):has(> :nth-child(${width})):not(:has(> :nth-child(${width + 1})))`;
    out.push({
      kind: 'list',
      extractor: { from: 'css', selector: rowSel, all: true, required: false, fields },
      schema: { type: 'array', items: { type: 'object', properties: props, required: Object.keys(props) } },
      why: `table ${sel}: ${rows.length} rows, columns from ${head ? 'its header cells' : 'cell positions'} (${Object.keys(fields).join(', ')})`,
      text: clean(rows.text()),
      records: rows.length,
      fieldCount: Object.keys(fields).length,
      main: inMain(table),
    });
  });
  return out;
}

interface Column {
  /** The column's cell in each record. */
  cells: El[];
  header: string;
  /** The cell's selector relative to its record (when the header cannot find it). */
  at: string;
}

/**
 * The fields of a table's records, one (or two: text and link) per data column. `byHeaders`: the
 * table has one header row, so a column with a unique header is found by its text at run time.
 */
function columnFields(columns: Column[], byHeaders: boolean, records: number) {
  const fields: Record<string, CssField> = {};
  const props: Record<string, Schema> = {};
  const taken = new Set<string>();
  const headers = columns.map((c) => c.header);
  const named = headers.filter(Boolean).length;
  let actions = false;
  for (const [k, col] of columns.entries()) {
    const cells = col.cells;
    const texts = cells.map((c) => clean(visibleText(c)));
    // A selection column (a checkbox per row, "Select …" for screen readers) is no data.
    if (cells.every((c) => c.find('input[type=checkbox], input[type=radio]').length > 0)) continue;
    // (A link that only runs script — `javascript:void(0)`, `#` — or moves within the page — HAProxy's
    // `#be_shop/shop-a` anchors — leads nowhere: no URL field. A hash route `#/items/3` does.)
    const hrefs = cells
      .map((c) => c.find('a[href]').first().attr('href') ?? (tagOf(c) === 'a' ? c.attr('href') : undefined))
      .map((h) => (h && !/^\s*(javascript:|#(?![/!]))/i.test(h) ? h : undefined));
    // A unique header text finds its column on every run (added/reordered columns don't shift values).
    const byHeader = byHeaders && !!col.header && headers.filter((x) => x.toLowerCase() === col.header.toLowerCase()).length === 1;
    // A headed column of icons (yes/no, a status): each image's alt text is the value.
    const alts = cells.map((c) => clean(c.find('img[alt]').first().attr('alt') ?? ''));
    if (texts.every((x) => !x) && col.header && alts.every(Boolean)) {
      const yesNo = alts.every((a) => /^(true|false|yes|no)$/i.test(a));
      const name = fieldName(col.header, taken, `column_${k + 1}`);
      fields[name] = {
        ...(byHeader ? { column: col.header, selector: 'img[alt]' } : { selector: `${col.at} img[alt]` }),
        attr: 'alt',
        ...(yesNo ? { type: 'boolean' as const } : {}),
      };
      props[name] = { type: yesNo ? 'boolean' : 'string' };
      continue;
    }
    if (texts.every((x) => !x) && hrefs.every((h) => !h)) continue; // icon/checkbox column
    if (rowActions(cells, texts, records)) continue;
    // Data columns have headers: a headerless column of a headed table is row actions (edit, delete…)
    // — unless it is the first, of distinct words in every row: the rows' own names under an empty
    // corner cell (HAProxy's servers).
    const label =
      !actions &&
      !Object.keys(fields).length &&
      records >= 2 &&
      texts.every((t) => /\p{L}/u.test(t)) &&
      new Set(texts).size === texts.length;
    if (named >= 2 && !col.header && !label) {
      actions = true; // (what follows row actions is no label: phpMyAdmin's Edit, Copy, then Delete)
      continue;
    }
    const present = cells.every((c) => c.length > 0);
    // A headerless cell of "Label: value" pairs, the same labels in every row (omega's "Modified:
    // 2026-04-08 Size: 97 bytes" beside each hit): a field per label, its value cut out by pattern.
    // (Read as a run reads them: a <br> after a label parts it from its value.)
    const lines = cells.map((c) => clean(readableText(c)));
    const pairs = !col.header && records >= 2 ? cellPairs(lines) : null;
    if (pairs) {
      // (Labels are words and spaces only: nothing in them to escape in the pattern.)
      for (const [i, l] of pairs.entries()) {
        const name = fieldName(l, taken, `column_${k + 1}`);
        const vals = lines.map((t) => pairValues(t, pairs)[i]!);
        const t0 = typed(vals[0]!);
        const same = vals.every((v) => JSON.stringify(typed(v).schema) === JSON.stringify(t0.schema));
        fields[name] = {
          selector: col.at,
          pattern: `${l}:\\s*(.*?)\\s*${pairs[i + 1] ? `${pairs[i + 1]}:` : '$'}`,
          ...(same && t0.type ? { type: t0.type } : {}),
          required: false,
        };
        props[name] = nullable(same ? t0.schema : { type: 'string' });
      }
      continue;
    }
    // A linked value followed by the same words in every row (row actions "Edit | Trash | View"):
    // the link's text is the value.
    const linkTexts = cells.map((c) => clean(visibleText(c.find('a[href]').first())));
    const rests = texts.map((t, i) => (linkTexts[i] ? clean(t.replace(linkTexts[i], '')) : ''));
    // (Words: a count after the link — "Items 3" in each row — is part of the value.)
    const sameRest = records >= 2 && linkTexts.every(Boolean) && rests.every((r) => /\p{L}/u.test(r)) && new Set(rests).size === 1;
    const excerpt = !sameRest && excerpts(cells, linkTexts, rests, records);
    const linkOnly = sameRest || excerpt || badged(texts, linkTexts, rests, records);
    let vals = linkOnly ? linkTexts : texts;
    // A value cut short on the page ("Mapping toolkit that renders...") reads whole from its title.
    const titled = cutShort(cells, vals);
    if (titled) vals = titled;
    const name = fieldName(
      col.header || (named ? '' : columnHint(cells, vals, taken)),
      taken,
      label && !col.header ? 'name' : `column_${k + 1}`,
    );
    const kinds = vals.filter(Boolean).map((x) => typed(x));
    const allSame = kinds.length === vals.length && kinds.every((x) => x.type === kinds[0].type && x.type);
    const ty = allSame ? kinds[0] : { type: undefined, schema: { type: 'string' } as Schema };
    const inner = titled ? { selector: '[title]', attr: 'title' } : linkOnly ? { selector: 'a[href]' } : {};
    const cell: CssField = byHeader
      ? { column: col.header, ...inner }
      : { ...inner, selector: `${col.at}${inner.selector ? ` ${inner.selector}` : ''}` };
    // The first data column, named once for the rows under it (a host on its first service's row,
    // blank on the next): each blank takes the value above.
    const down = !Object.keys(fields).length && groupsRows(vals, cells) ? { fill_down: true } : {};
    if (vals.some(Boolean)) {
      fields[name] = { ...cell, ...(ty.type ? { type: ty.type } : {}), ...(present ? {} : { required: false }), ...down };
      // (A typed cell may hold no number next time — a service not monitored shows "-" for its UID —
      // and reads as null: as a JSON read's fields, it is nullable. Text is text either way.)
      props[name] = present && (vals.every(Boolean) || down.fill_down) && !ty.type ? ty.schema : nullable(ty.schema);
    }
    // (A search hit's excerpt under its linked title: the whole cell's text beside the title.)
    if (excerpt) {
      const x = argName(`${name}_text`, taken);
      fields[x] = byHeader ? { column: col.header, required: false } : { selector: col.at, required: false };
      props[x] = nullable({ type: 'string' });
    }
    // A link that is the same in every row (an action) is not data.
    if (hrefs.some(Boolean) && !(records >= 3 && new Set(hrefs).size === 1)) {
      const u = argName(`${name}_url`, taken);
      fields[u] = byHeader
        ? { column: col.header, selector: 'a[href]', attr: 'href', required: false, ...down }
        : { selector: `${col.at} a[href]`, attr: 'href', required: false, ...down };
      props[u] = nullable({ type: 'string' });
    }
  }
  return { fields, props };
}

/** A label: one to three words, the first capitalised, before a colon and a space. */
const PAIR_LABEL = /(?:^|\s)(\p{Lu}[\p{L}]*(?: [\p{L}]+){0,2}):(?=\s|$)/gu;

/** The labels of cells that are nothing but "Label: value" pairs, the same labels in each; else null. */
function cellPairs(texts: string[]): string[] | null {
  const sets = texts.map((t) => [...t.matchAll(PAIR_LABEL)].map((m) => m[1]!));
  const first = sets[0]!;
  if (!first.length || sets.some((l) => l.join('|') !== first.join('|'))) return null;
  // (From the first label on, every value there: nothing before the first label.)
  return texts.every((t) => t.startsWith(`${first[0]}:`) && pairValues(t, first).every(Boolean)) ? first : null;
}

/** The values after each of `labels` in a cell's text. */
function pairValues(text: string, labels: string[]): string[] {
  return labels.map((l, i) => {
    const from = text.indexOf(`${l}:`) + l.length + 1;
    const to = i + 1 < labels.length ? text.indexOf(`${labels[i + 1]}:`, from) : text.length;
    return clean(text.slice(from, to < 0 ? text.length : to));
  });
}

/**
 * A column of row actions under a header of its own (Supervisor's "Action": Start, Clear Log, Tail
 * -f Stdout…): every cell is two links or more and nothing but their words, and the same few words
 * come back row after row (at most half as many distinct as there are links). A column of values
 * that are links — tags, members — has words of its own in each row.
 */
function rowActions(cells: El[], texts: string[], records: number): boolean {
  if (records < 2) return false;
  // (A hidden link's words are not in the cell's text: left out.)
  const words = cells.map((c, i) =>
    c
      .find('a[href], button')
      .toArray()
      .map((a) => clean(visibleText(c.find(a).first())))
      .filter((w) => w && texts[i]!.includes(w)),
  );
  // (A row may have none — a directory listing's ".." entry — and is left aside. Separators
  // between the links are no words: gitweb's "commit | commitdiff | tree".)
  const acting = words.flatMap((w, i) => (w.length || texts[i] ? [{ w, text: texts[i]! }] : []));
  if (acting.length < 2 || acting.some(({ w, text }) => w.length < 2 || clean(w.join(' ')) !== withoutSeparators(text))) return false;
  const all = words.flat();
  // (Words of one row only are its own — a linked title before its actions, WordPress's — but for
  // the odd one: gitweb's one subdirectory's "tree" among its files' "blob".)
  const rows = new Map<string, number>();
  for (const w of words) for (const x of new Set(w)) rows.set(x, (rows.get(x) ?? 0) + 1);
  const own = [...rows.values()].filter((n) => n === 1).length;
  return new Set(all).size * 2 <= all.length && own * 4 <= acting.length;
}

/**
 * A linked value with a note after it in a few rows only (a branch's badge beside one commit's
 * subject): the link's text is the value in every row. At most a third of the rows have one.
 */
function badged(texts: string[], links: string[], rests: string[], records: number): boolean {
  const noted = rests.filter(Boolean).length;
  return records >= 3 && noted > 0 && noted * 3 <= records && links.every((l, i) => !!l && texts[i]!.startsWith(l));
}

/**
 * A linked title over lines of the row's own text (a search hit's excerpt, different in every
 * row): the title is the value, and the whole cell is its text. The title stands on a line of its own.
 */
function excerpts(cells: El[], links: string[], rests: string[], records: number): boolean {
  if (records < 2 || new Set(rests).size < Math.min(records, 3) || rests.some((r) => r.length < 12)) return false;
  return cells.every((c, i) => {
    const lines = readableText(c).split('\n');
    return lines.length >= 2 && clean(lines[0]!) === links[i];
  });
}

/**
 * Values cut short on the page with an ellipsis, each whole in its element's `title` (a project's
 * description, "Mapping toolkit that renders..." with the rest in the link's tooltip): the titles,
 * when every cell has one that begins with its shown words and at least one value was cut.
 */
function cutShort(cells: El[], vals: string[]): string[] | null {
  const cut = /\s*(\.\.\.|…)$/;
  if (!vals.some((v) => cut.test(v))) return null;
  const titles = cells.map((c) => clean(c.find('[title]').first().attr('title') ?? ''));
  return titles.every((t, i) => t?.startsWith(vals[i]!.replace(cut, ''))) ? titles : null;
}

/**
 * A headerless column's name: the class word every cell shares (gitweb's `td.author`), else the
 * one every cell's link shares (`a.list.subject`), else what its values are — dates, or the rows'
 * own names (distinct linked words). '' when nothing names it.
 */
function columnHint(cells: El[], vals: string[], taken: Set<string>): string {
  const shared = (els: El[]) => {
    if (!els.length || els.some((e) => !e.length)) return '';
    const lists = els.map((e) => classWords(e.attr('class')));
    return lists[0]!.find((w) => lists.every((l) => l.includes(w))) ?? '';
  };
  const byClass = shared(cells) || shared(cells.map((c) => c.find('a[href]').first()));
  if (byClass) return byClass;
  if (vals.length >= 2 && vals.every((v) => /^(date|date-time)$/.test(String(typed(v).schema.format ?? '')))) return 'date';
  const linked = cells.every((c, i) => !!vals[i] && clean(visibleText(c.find('a[href]').first())) === vals[i]);
  // (One row may be no name: a directory listing's "..".)
  const worded = vals.filter((v) => /\p{L}/u.test(v)).length;
  if (linked && !taken.has('name') && worded >= Math.max(2, vals.length - 1) && new Set(vals).size === vals.length) return 'name';
  return '';
}

/**
 * Whether a column's values head groups of rows: the first row has one, some later rows are empty
 * cells (no text, no element), and no value comes twice — each names the rows down to the next.
 */
function groupsRows(vals: string[], cells: El[]): boolean {
  const named = vals.filter(Boolean);
  const blank = cells.filter((c, i) => !vals[i] && c.length > 0 && !c.children().length);
  // (As many blanks as names at least: a sparse first column — an assignee here and there — is no grouping.)
  return (
    vals.length >= 3 &&
    !!vals[0] &&
    blank.length >= Math.max(1, named.length) &&
    named.length + blank.length === vals.length &&
    new Set(named).size === named.length
  );
}

/** The header rows of a table: <thead> rows with <th> cells, else its leading rows of <th> only. */
function headerRows($: cheerio.CheerioAPI, table: El): string[][] {
  const thead = table.find('> thead > tr').filter((_, r) => $(r).children('th').length > 0);
  const rows = thead.length ? thead.toArray() : [];
  if (!rows.length)
    for (const r of table.find('> tbody > tr').toArray()) {
      if ($(r).children('td').length || !$(r).children('th').length) break;
      rows.push(r);
    }
  return rows.map((r) => headerTexts($, $(r)));
}

/**
 * A table whose records span several rows, each record a <tbody> of k ≥ 2 rows (an issue
 * tracker's two-line results: subject and status above, requestor and dates below). Grouped when
 * every <tbody> with data cells holds the same k rows, and there are several of them or the header
 * has k rows too. Each (row, column) is a field, named by the header row of the same index.
 */
function rowGroups($: cheerio.CheerioAPI, table: El): StructuralCandidate | null {
  const groups = table
    .find('> tbody')
    .filter((_, b) => $(b).find('> tr > td').length > 0)
    .toArray()
    .map((b) => $(b));
  const k = groups[0]?.children('tr').length ?? 0;
  if (k < 2 || groups.some((g) => g.children('tr').length !== k)) return null;
  const heads = headerRows($, table);
  if (groups.length < 2 && heads.length !== k) return null;
  const columns: Column[] = [];
  for (let r = 0; r < k; r++) {
    const width = Math.max(...groups.map((g) => g.children('tr').eq(r).children('td, th').length));
    for (let c = 0; c < width; c++)
      columns.push({
        cells: groups.map((g) => g.children('tr').eq(r).children('td, th').eq(c)),
        header: heads.length === k ? (heads[r]?.[c] ?? '') : '',
        at: `> tr:nth-of-type(${r + 1}) > :nth-child(${c + 1})`,
      });
  }
  const { fields, props } = columnFields(columns, false, groups.length);
  if (!Object.keys(fields).length) return null;
  const sel = pathOf($, table);
  return {
    kind: 'list',
    extractor: { from: 'css', selector: `${sel} > tbody:has(> tr > td)`, all: true, required: false, fields },
    schema: { type: 'array', items: { type: 'object', properties: props, required: Object.keys(props) } },
    why: `table ${sel}: ${groups.length} records of ${k} rows each (a <tbody> per record; ${Object.keys(fields).join(', ')})`,
    text: clean(groups.map((g) => g.text()).join(' ')),
    records: groups.length,
    fieldCount: Object.keys(fields).length,
    main: inMain(table),
  };
}

/**
 * A headed table whose records are grouped under caption rows, each one cell as wide as the table
 * (Redmine's issues grouped by priority: "High 2 Collapse all/Expand all" over the high ones): the
 * caption names the group of the records below it, field `group` filled down. The caption's own
 * words are the first of its child elements whose text has letters and differs from caption to
 * caption (Redmine's name, not its count badge or its script link), else its whole text. Only
 * where the records leave the caption's first column blank (a selection column), so that no data
 * field reads the caption at run time.
 */
function captionedRows(
  $: cheerio.CheerioAPI,
  table: El,
  headings: El[],
  records: El[],
  head: string[],
  sel: string,
): StructuralCandidate | null {
  const cells = headings.map((r) => r.children('td, th'));
  if (cells.some((c) => c.length !== 1) || records.some((r) => clean(visibleText(r.children().first())))) return null;
  const words = (pick: (c: El) => El) => cells.map((c) => clean(visibleText(pick(c))));
  const differ = (texts: string[]) => texts.every((t) => /\p{L}/u.test(t)) && new Set(texts).size === texts.length;
  const own = cells[0]!
    .children()
    .toArray()
    .map((k) => relPath(cells[0]!, $(k)).slice(2))
    .find((rel) => differ(words((c) => c.children(rel).first())));
  if (!own && !differ(words((c) => c))) return null;
  const columns = head.map((h, k) => ({ cells: records.map((r) => cellAt($, r, k)), header: h, at: `> :nth-child(${k + 1})` }));
  const data = columnFields(columns, true, records.length);
  if (!Object.keys(data.fields).length) return null;
  const taken = new Set(Object.keys(data.fields));
  const name = argName('group', taken);
  const fields: Record<string, CssField> = {
    [name]: { selector: `> :only-child${own ? ` > ${own}` : ''}`, required: false, fill_down: true },
    ...data.fields,
  };
  const props: Record<string, Schema> = { [name]: { type: 'string' }, ...data.props };
  return {
    kind: 'list',
    extractor: { from: 'css', selector: `${sel} > tbody > tr:has(> td)`, all: true, required: false, headings: true, fields },
    schema: { type: 'array', items: { type: 'object', properties: props, required: Object.keys(props) } },
    why: `table ${sel}: ${records.length} rows under ${headings.length} caption rows (each caption the rows' ${name}; ${Object.keys(data.fields).join(', ')})`,
    text: clean([...headings, ...records].map((r) => r.text()).join(' ')),
    records: records.length,
    fieldCount: Object.keys(fields).length,
    main: inMain(table),
  };
}

/** A row's cell texts by the column each cell starts at ('' under a cell spanning from the left). */
function startTexts($: cheerio.CheerioAPI, row: El, width: number): string[] {
  const out = Array.from({ length: width }, () => '');
  let at = 0;
  for (const c of row.children('td, th').toArray()) {
    if (at < width) out[at] = clean(visibleText($(c)));
    at += spanOf($, c);
  }
  return out;
}

/**
 * A headed table whose records are grouped under heading rows (hledger's journal: a transaction's
 * date and description on a row of its own, the description spanning a column, its postings'
 * accounts and amounts on the rows below with date and description left blank). Heading rows are
 * the rows with a spanning cell, as wide as the header, the first row among them; the records
 * are the rows without one. The columns every heading fills and every record leaves blank (each
 * by its unique header) fill down onto the records; the headings are no records (`headings`).
 */
function headedRows($: cheerio.CheerioAPI, table: El, head: string[] | null, sel: string): StructuralCandidate | null {
  if (!head || head.length < 3 || tdHeaderRow($, table)) return null;
  const width = head.length;
  const rows = table
    .find('> tbody > tr')
    .filter((_, r) => $(r).children('td').length > 0)
    .toArray()
    .map((r) => $(r));
  const spans = (r: El) =>
    r
      .children('td, th')
      .toArray()
      .map((c) => spanOf($, c));
  const headings = rows.filter((r) => spans(r).some((n) => n > 1));
  const records = rows.filter((r) => r.children('td, th').length === width && spans(r).every((n) => n === 1));
  if (headings.length < 2 || records.length < 2 || headings.length + records.length !== rows.length || !headings.includes(rows[0]!))
    return null;
  if (headings.some((r) => spans(r).reduce((a, b) => a + b, 0) !== width)) return null;
  const headText = headings.map((r) => startTexts($, r, width));
  const recText = records.map((r) => startTexts($, r, width));
  const unique = (k: number) => !!head[k] && head.filter((h) => h.toLowerCase() === head[k]!.toLowerCase()).length === 1;
  const groupCols = head.map((_, k) => k).filter((k) => unique(k) && headText.every((t) => t[k]) && recText.every((t) => !t[k]));
  if (!groupCols.length) return captionedRows($, table, headings, records, head, sel);
  // (Headings fill those columns only; the records hold the rest.)
  if (headText.some((t) => t.some((v, k) => v && !groupCols.includes(k)))) return null;
  const taken = new Set<string>();
  const fields: Record<string, CssField> = {};
  const props: Record<string, Schema> = {};
  for (const k of groupCols) {
    const name = fieldName(head[k]!, taken, `column_${k + 1}`);
    const kinds = headText.map((t) => typed(t[k]!));
    const ty = kinds.every((x) => x.type && x.type === kinds[0]!.type)
      ? kinds[0]!
      : { type: undefined, schema: { type: 'string' } as Schema };
    fields[name] = { column: head[k]!, ...(ty.type ? { type: ty.type } : {}), fill_down: true };
    props[name] = ty.schema;
  }
  const columns = head.flatMap((h, k) =>
    groupCols.includes(k) ? [] : [{ cells: records.map((r) => cellAt($, r, k)), header: h, at: `> :nth-child(${k + 1})` }],
  );
  const data = columnFields(columns, true, records.length);
  for (const name of Object.keys(data.fields)) {
    const own = taken.has(name) ? argName(name, taken) : name;
    taken.add(own);
    fields[own] = data.fields[name]!;
    props[own] = data.props[name]!;
  }
  if (Object.keys(fields).length === groupCols.length) return null;
  return {
    kind: 'list',
    extractor: { from: 'css', selector: `${sel} > tbody > tr:has(> td)`, all: true, required: false, headings: true, fields },
    schema: { type: 'array', items: { type: 'object', properties: props, required: Object.keys(props) } },
    why: `table ${sel}: ${records.length} rows under ${headings.length} heading rows (${groupCols.map((k) => head[k]).join(', ')} filled down; ${Object.keys(fields).join(', ')})`,
    text: clean(rows.map((r) => r.text()).join(' ')),
    records: records.length,
    fieldCount: Object.keys(fields).length,
    main: inMain(table),
  };
}
