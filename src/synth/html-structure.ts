// Stage 6c: extraction from ordinary HTML, without markup conventions. Candidates are found BY
// STRUCTURE — tables (header cells → keys), repeated sibling records (same tag and child shape:
// lists, cards, search hits), label/value detail blocks (<dl>, two-column and <th>-row tables,
// "Label: value" lines, the page's heading) — and ranked by the signals we have: the hinted
// result values (ground truth), the values the person typed (search hits echo the query), size.
// Selectors are structural (tag + position under a stable id, or under <body>) and label-text
// based; class names are never used to select (they are hashed or utility classes on many sites).
import * as cheerio from 'cheerio';
import type { CssExtractor, CssField, ValueType } from '../formats/definition/types.js';
import type { Schema } from './schema-infer.js';
import { argName, stringFormat, typeOf } from './values.js';
import { HIDDEN_TEXT, visibleText } from '../runtime/worker/engines/extract.js';
import { contentLength, inTemplate, type SiteTemplate, siteTemplate, templateText } from './page-template.js';
import { clean, cssq, tagOf } from './dom-text.js';

export interface StructuralCandidate {
  kind: 'detail' | 'list';
  extractor: CssExtractor;
  schema: Schema;
  why: string;
  /** Text of the records (for ranking against hinted/typed values). */
  text: string;
  records: number;
  fieldCount: number;
  /** Inside the page's main content (not header/nav/aside/footer). */
  main: boolean;
  /** Added to the candidate's rank by what found it (a search page's only hit). */
  bonus?: number;
}

type El = cheerio.Cheerio<any>;
const SKIP =
  'head, script, style, noscript, template, svg, nav, header, footer, aside, select, [role=navigation], [role=banner], [aria-hidden=true]';
/** An id that a template wrote (not a per-render counter or a hash). */
const stableId = (id: string | undefined) =>
  !!id &&
  /^[A-Za-z][\w-]*$/.test(id) &&
  !/\d{3,}|[0-9a-f]{8,}/i.test(id) &&
  !/[-_:.]\d+([-_]|$)/.test(id) && // a record's own number (post-6, comment_12): data, not template
  !/^(ember|react|ng|vue|svelte|radix|headlessui|mui|rc)[-_]/i.test(id);
/** The element's own text nodes (not its children's). */
const ownText = (e: El) =>
  clean(
    e
      .contents()
      .toArray()
      .filter((n: any) => n.type === 'text')
      .map((n: any) => n.data ?? '')
      .join(' '),
  );

export function typed(text: string): { type?: ValueType; schema: Schema } {
  const t = typeOf(text);
  if (t.type === 'integer' && !/^0\d/.test(text)) return { type: 'integer', schema: { type: 'integer' } };
  if (t.type === 'number') return { type: 'number', schema: { type: 'number' } };
  const f = stringFormat(text);
  return { schema: f && f !== 'uri' ? { type: 'string', format: f } : { type: 'string' } };
}

export const nullable = (s: Schema): Schema => {
  const types = ([] as unknown[]).concat(s.type ?? []) as string[];
  return (types.includes('null') ? s : { ...s, type: [...types, 'null'] }) as Schema;
};

/** Structural selector of `el`: from the nearest stable id (or body), tag + :nth-of-type where needed. */
export function pathOf($: cheerio.CheerioAPI, el: El): string {
  // The root: the nearest ancestor with a stable id, else the page's one <main>, else <body>.
  let rootEl: El | null = null;
  let root = 'body';
  for (let cur = el; cur.length && tagOf(cur) && tagOf(cur) !== 'html'; cur = cur.parent()) {
    const id = cur.attr('id');
    if (stableId(id) && $(`#${id}`).length === 1) {
      [rootEl, root] = [cur, `#${id}`];
      break;
    }
  }
  if (!rootEl) {
    const main = el.closest('main');
    [rootEl, root] = main.length && $('main').length === 1 ? [main, 'main'] : [$('body'), 'body'];
  }
  if (rootEl.is(el)) return root;
  const parts = relPath(rootEl, el).replace(/^> /, '').split(' > ');
  // Prefer "root tag" (survives wrappers being added), then the last two levels, then the full path.
  for (const sel of [`${root} ${tagOf(el)}`, `${root} ${parts.slice(-2).join(' > ')}`]) {
    const hit = $(sel);
    if (hit.length === 1 && hit.is(el)) return sel;
  }
  return `${root} > ${parts.join(' > ')}`;
}

/** Selector of `el` relative to `root` (tag + :nth-of-type per level). */
function relPath(root: El, el: El): string {
  const parts: string[] = [];
  const top = root.get(0);
  // (Walks the nodes themselves: this runs for every element of every candidate record, and a
  // selector string per step would be parsed and compiled each time.)
  for (let cur: any = el.get(0); cur && cur !== top && cur.type === 'tag'; cur = cur.parent) {
    const same = (cur.parent?.children ?? []).filter((c: any) => c.type === 'tag' && c.name === cur.name);
    parts.unshift(same.length > 1 ? `${cur.name}:nth-of-type(${same.indexOf(cur) + 1})` : cur.name);
  }
  return `> ${parts.join(' > ')}`;
}

/** Whether `e` is hidden from readers (HIDDEN_TEXT), from one match of the selector per page. */
function hidden($: cheerio.CheerioAPI, e: El): boolean {
  let set = hiddenSets.get($);
  if (!set) hiddenSets.set($, (set = new Set($(HIDDEN_TEXT).toArray())));
  return set.has(e.get(0));
}
const hiddenSets = new WeakMap<object, Set<unknown>>();

/** The first selector (relative to `root`, descendant) whose first match is `el`, else its tag path. */
function shortRel(root: El, el: El, tries: string[]): string {
  for (const t of tries) if (root.find(t).first().is(el)) return t;
  return relPath(root, el);
}

const CHROME_TAGS = new Set(['head', 'script', 'style', 'noscript', 'template', 'svg', 'nav', 'aside', 'select']);
/**
 * Page chrome: navigation, asides, hidden parts, and the page's own header/footer — not an
 * article's. (Walks the node's ancestors: it is asked of every element of a page, and a selector
 * for `closest` would be parsed and compiled on each call.)
 */
export const inChrome = (e: El) => {
  let hf: any = null;
  for (let n: any = e.get(0); n && n.type !== 'root'; n = n.parent) {
    const a = n.attribs ?? {};
    if (CHROME_TAGS.has(n.name) || a.role === 'navigation' || a.role === 'banner' || a['aria-hidden'] === 'true') return true;
    if (!hf && (n.name === 'header' || n.name === 'footer')) hf = n;
  }
  if (!hf) return false;
  for (let n: any = hf.parent; n && n.type !== 'root'; n = n.parent)
    if (n.name === 'article' || n.name === 'main' || n.name === 'section' || n.attribs?.role === 'main') return false;
  return true;
};
/** Words a page names its menus (and footer) by, in an id or class (`app-nav`, `main-navigation`, `dropdown-menu`). */
const MENU_WORD = /^(nav|navbar|navigation|menu|menubar|breadcrumbs?|footer)$/i;
/**
 * A menu by the name the page gives it (as content extractors read pages): the element or one of
 * its nearest ancestors has an id or class word like nav or menu. For markup that draws its menus
 * from <ul>s in plain <div>s. The levels of a nested list (a submenu's ul > li > ul) don't count
 * towards "nearest"; <body>, whose classes name the page's state, and <main>/<article> never name one.
 */
export const namedMenu = (e: El) => {
  let levels = 0;
  for (let n: any = e.get(0); n && n.type === 'tag' && !/^(html|body|main|article)$/.test(n.name); n = n.parent) {
    if (`${n.attribs?.id ?? ''} ${n.attribs?.class ?? ''}`.split(/[\s_-]+/).some((w: string) => MENU_WORD.test(w))) return true;
    if (!/^(ul|ol|li)$/.test(n.name) && ++levels >= 5) return false;
  }
  return false;
};
export const inMain = (e: El) =>
  e.closest('main, [role=main], article').length > 0 ||
  !e.closest('header, nav, aside, footer, [role=navigation], [role=banner], [role=contentinfo]').length;

export function fieldName(raw: string, taken: Set<string>, fallback: string): string {
  let t = clean(raw)
    .replace(/[:*]+$/, '')
    .trim()
    .slice(0, 40);
  if (/^(#|no\.?|nr\.?|№)$/i.test(t)) t = 'id';
  return argName(t && /[a-z]/i.test(t) ? t : fallback, taken);
}

// ------------------------------------------------------------------------------------ tables

function headerCells($: cheerio.CheerioAPI, table: El): string[] | null {
  // The thead row with th cells and the most text (a second row may hold filter inputs).
  let row =
    table
      .find('> thead > tr')
      .filter((_, r) => $(r).children('th').length > 0)
      .toArray()
      .map((r) => $(r))
      .sort((a, b) => clean(b.text()).length - clean(a.text()).length)[0] ?? table.find('> thead > tr').last();
  if (!row.length)
    row = table
      .find('> tbody > tr')
      .first()
      .filter((_, r) => $(r).children('td').length === 0 && $(r).children('th').length > 0);
  return row.length ? headerTexts($, row) : null;
}

/** A header row's cell texts by column position, colspans expanded so they line up with body cells. */
function headerTexts($: cheerio.CheerioAPI, row: El): string[] {
  const out: string[] = [];
  row.children('th, td').each((_, c) => {
    const span = Math.max(1, Math.min(20, Number($(c).attr('colspan') ?? 1) || 1));
    const text = clean(visibleText($(c))); // (not a cell's inline script: Adminer's sort handlers)
    for (let i = 0; i < span; i++) out.push(span > 1 ? '' : text);
  });
  return out;
}

/** Body rows with data cells, of the table's usual width (a colspan footer row is not a record). */
function dataRows($: cheerio.CheerioAPI, table: El): El {
  const rows = table.find('> tbody > tr').filter((_, r) => $(r).children('td').length > 0);
  const widths = new Map<number, number>();
  rows.each((_, r) => void widths.set($(r).children().length, (widths.get($(r).children().length) ?? 0) + 1));
  const modal = [...widths.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0];
  return rows.filter((_, r) => $(r).children().length === modal);
}

/**
 * A label/value table (a detail record): every row is <th>label</th><td>value</td>, or a
 * two-column table whose header says so ("Property | Value") or that has no header at all.
 */
function isPairTable($: cheerio.CheerioAPI, table: El): boolean {
  const rows = dataRows($, table);
  if (!rows.length || !rows.toArray().every((r) => $(r).children().length === 2)) return false;
  const head = headerCells($, table);
  const thLabels = rows.toArray().every((r) => tagOf($(r).children().first()) === 'th');
  const kvHeader =
    !!head &&
    head.length === 2 &&
    /^(property|attribute|field|key|name|setting|option|label|item)$/i.test(head[0]) &&
    /^(value|details?|data|setting|content)$/i.test(head[1]);
  return thLabels || kvHeader || (!head && rows.length >= 2);
}

/** One field per row of a label/value table; the row is found by its label text (rows may move). */
function pairFields(
  $: cheerio.CheerioAPI,
  table: El,
  root: El | null,
  taken: Set<string>,
): { fields: Record<string, CssField>; props: Record<string, Schema> } {
  const fields: Record<string, CssField> = {};
  const props: Record<string, Schema> = {};
  const rows = dataRows($, table);
  const labels = rows.toArray().map((r) => clean($(r).children().first().text()));
  rows.each((i, r) => {
    const label = labels[i];
    const value = clean($(r).children().eq(1).text());
    if (!label || !value || labels.filter((l) => l === label).length > 1 || /"/.test(label)) return;
    const name = fieldName(label, taken, `field_${i + 1}`);
    const ty = typed(value);
    const byLabel = `tr:has(> :first-child:contains(${cssq(label)})) > :nth-child(2)`;
    const cell = $(r).children().eq(1);
    const sel = root ? shortRel(root, cell, [byLabel, `${relPath(root, table)} > tbody > ${byLabel}`]) : `> tbody > ${byLabel}`;
    fields[name] = { selector: sel, ...(ty.type ? { type: ty.type } : {}), required: false };
    props[name] = nullable(ty.schema);
  });
  return { fields, props };
}

function tables($: cheerio.CheerioAPI, template: Set<unknown>): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  $('table').each((_, t) => {
    const table = $(t);
    if (inChrome(table) || inTemplate(template, table) || table.find('table').length) return;
    const rows = dataRows($, table);
    if (!rows.length) return;
    const head = headerCells($, table);
    let sel = pathOf($, table);
    // A positional path breaks when a notice is added above the table: find it by its headers.
    if (/nth-of-type/.test(sel) && head) {
      const root = sel.split(/[ >]/)[0];
      const names = head.filter((h) => h && !/"/.test(h)).slice(0, 2);
      const bySel = `${root} table:has(${names.map((h) => `th:contains(${cssq(h)})`).join('):has(')})`;
      if (names.length && $(bySel).length === 1 && $(bySel).is(table)) sel = bySel;
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
          text: clean(table.text()),
          records: 1,
          fieldCount: Object.keys(fields).length,
          main: inMain(table),
        });
      return;
    }
    if (width < 2 && !head) return;
    const grouped = rowGroups($, table);
    if (grouped) {
      out.push(grouped);
      return;
    }
    const rowArr = rows.toArray().map((r) => $(r));
    const columns = Array.from({ length: width }, (_, k) => ({
      cells: rowArr.map((r) => r.children('td, th').eq(k)),
      header: head?.[k] ?? '',
      at: `> :nth-child(${k + 1})`,
    }));
    const { fields, props } = columnFields(columns, !!head, rowArr.length);
    if (Object.keys(fields).length < 1) return;
    // Rows of the records' width only (a colspan footer row in another tbody is no record); with
    // header-mapped columns, rows at least that wide (a site may add columns).
    const allByHeader = Object.values(fields).every((f) => f.column !== undefined);
    const rowSel = allByHeader
      ? `${sel} > tbody > tr:has(> td):has(> :nth-child(${width}))`
      : `${sel} > tbody > tr:has(> td):has(> :nth-child(${width})):not(:has(> :nth-child(${width + 1})))`;
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
  for (const [k, col] of columns.entries()) {
    const cells = col.cells;
    const texts = cells.map((c) => clean(visibleText(c)));
    // A selection column (a checkbox per row, "Select …" for screen readers) is no data.
    if (cells.every((c) => c.find('input[type=checkbox], input[type=radio]').length > 0)) continue;
    const hrefs = cells.map((c) => c.find('a[href]').first().attr('href') ?? (tagOf(c) === 'a' ? c.attr('href') : undefined));
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
    // Data columns have headers: a headerless column of a headed table is row actions (edit, delete…).
    if (named >= 2 && !col.header) continue;
    const name = fieldName(col.header, taken, `column_${k + 1}`);
    const present = cells.every((c) => c.length > 0);
    // A linked value followed by the same words in every row (row actions "Edit | Trash | View"):
    // the link's text is the value.
    const linkTexts = cells.map((c) => clean(visibleText(c.find('a[href]').first())));
    const rests = texts.map((t, i) => (linkTexts[i] ? clean(t.replace(linkTexts[i], '')) : ''));
    const linkOnly = records >= 2 && linkTexts.every(Boolean) && rests.every(Boolean) && new Set(rests).size === 1;
    const vals = linkOnly ? linkTexts : texts;
    const kinds = vals.filter(Boolean).map((x) => typed(x));
    const allSame = kinds.length === vals.length && kinds.every((x) => x.type === kinds[0].type && x.type);
    const ty = allSame ? kinds[0] : { schema: { type: 'string' } as Schema };
    const cell: CssField = byHeader
      ? { column: col.header, ...(linkOnly ? { selector: 'a[href]' } : {}) }
      : { selector: `${col.at}${linkOnly ? ' a[href]' : ''}` };
    if (vals.some(Boolean)) {
      fields[name] = { ...cell, ...(ty.type ? { type: ty.type } : {}), ...(present ? {} : { required: false }) };
      props[name] = present && vals.every(Boolean) ? ty.schema : nullable(ty.schema);
    }
    // A link that is the same in every row (an action) is not data.
    if (hrefs.some(Boolean) && !(records >= 3 && new Set(hrefs).size === 1)) {
      const u = argName(`${name}_url`, taken);
      fields[u] = byHeader
        ? { column: col.header, selector: 'a[href]', attr: 'href', required: false }
        : { selector: `${col.at} a[href]`, attr: 'href', required: false };
      props[u] = nullable({ type: 'string' });
    }
  }
  return { fields, props };
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

// ------------------------------------------------------------------------ repeated records

/** Tag + the tags of its element children: siblings of one record type share it. */
const signature = ($: cheerio.CheerioAPI, e: El) =>
  `${tagOf(e)}(${e
    .children()
    .toArray()
    .map((c) => tagOf($(c)))
    .join(',')})`;

interface Leaf {
  path: string;
  attr?: string;
  kind: 'text' | 'link' | 'time' | 'img';
  hint: string;
}

/** Value-bearing descendants of one record: elements with their own text, links, times, images. */
function leavesOf($: cheerio.CheerioAPI, rec: El): Leaf[] {
  const out: Leaf[] = [];
  const visit = (e: El) => {
    const tag = tagOf(e);
    if (/^(script|style|svg|button|input|select|textarea)$/.test(tag) || hidden($, e)) return;
    if (!e.is(rec)) {
      const path = relPath(rec, e);
      const nameHint =
        e.attr('itemprop') ??
        e.attr('data-field') ??
        (e.attr('class') ?? '')
          .split(/\s+/)
          .find(
            (c) => /^[a-z][a-z_-]{2,20}$/i.test(c) && !/^(col|row|left|right|center|bold|small|big|flex|grid|p|m|text)([-_]|$)/i.test(c),
          ) ??
        '';
      if (tag === 'a' && e.attr('href')) out.push({ path, attr: 'href', kind: 'link', hint: nameHint });
      if (tag === 'time' && e.attr('datetime')) out.push({ path, attr: 'datetime', kind: 'time', hint: 'date' });
      if (tag === 'img' && e.attr('src')) out.push({ path, attr: 'src', kind: 'img', hint: 'image' });
      const own = ownText(e);
      const kids = e.children().length;
      if (own || (kids === 0 && clean(e.text())))
        out.push({ path, kind: 'text', hint: tag === 'a' ? 'title' : /^h[1-6]$/.test(tag) ? 'title' : nameHint });
      if (tag === 'a' && own) return; // the link's text is its value; don't split it further
    }
    e.children().each((_, c) => visit($(c)));
  };
  visit(rec);
  return out;
}

/**
 * A list rule over `members` (records found by structure), or null when they hold no data. One
 * member (a search's only hit, html-single-hit.ts) gives a rule for the records like it: every
 * value it holds is a field, none required.
 */
export function listCandidate($: cheerio.CheerioAPI, members: El[], sel: string, parent: El): StructuralCandidate | null {
  // Copies of one block (a pager printed above and below a list) are not records.
  const copy = (m: El) =>
    `${clean(m.text())} ${m
      .find('a[href]')
      .map((_, a) => $(a).attr('href'))
      .get()
      .join(' ')}`;
  if (members.length > 1 && new Set(members.map(copy)).size === 1) return null;
  // Record fields: leaf paths of the first record that most records also have.
  const perRec = members.map((m) => leavesOf($, m));
  const counts = new Map<string, number>();
  for (const ls of perRec)
    for (const key of new Set(ls.map((l) => `${l.path}@${l.attr ?? ''}`))) counts.set(key, (counts.get(key) ?? 0) + 1);
  const fields: Record<string, CssField> = {};
  const props: Record<string, Schema> = {};
  const taken = new Set<string>();
  for (const leaf of perRec[0]) {
    const key = `${leaf.path}@${leaf.attr ?? ''}`;
    const n = counts.get(key) ?? 0;
    if (n < (members.length === 1 ? 1 : Math.max(2, Math.ceil(members.length / 2)))) continue;
    const vals = members.map((m) => {
      const t = m.find(leaf.path).first();
      return t.length ? clean(leaf.attr ? (t.attr(leaf.attr) ?? '') : t.text()) : '';
    });
    // Template parts (the same text in every record: labels, separators) are not data; a lone
    // record shows its labels only by their colon ("Last modified:").
    if (new Set(vals).size === 1 && members.length >= 3) continue;
    if (members.length === 1 && leaf.kind === 'text' && /:$/.test(vals[0])) continue;
    if (!vals[0]) continue;
    const base =
      leaf.kind === 'link'
        ? leaf.hint
          ? `${leaf.hint}_url`
          : 'url'
        : leaf.kind === 'time'
          ? 'date'
          : leaf.kind === 'img'
            ? 'image'
            : leaf.hint || 'text';
    const name = argName(base, taken);
    const ty = leaf.kind === 'text' ? typed(vals[0]) : { schema: { type: 'string' } as Schema };
    // Two records are too few to call a field part of every record (a tag marker on both).
    const all = n === members.length && members.length >= 3;
    fields[name] = {
      selector: leaf.path,
      ...(leaf.attr ? { attr: leaf.attr } : {}),
      ...(ty.type && vals.every((v) => typed(v).type === ty.type) ? { type: ty.type } : {}),
      ...(all ? {} : { required: false }),
    };
    props[name] = all ? (fields[name].type ? ty.schema : { type: 'string' }) : nullable(fields[name].type ? ty.schema : { type: 'string' });
  }
  const count = Object.keys(fields).length;
  if (!count) return null;
  return {
    kind: 'list',
    extractor: { from: 'css', selector: sel, all: true, required: false, fields },
    schema: {
      type: 'array',
      items: { type: 'object', properties: props, required: Object.keys(props).filter((k) => fields[k].required !== false) },
    },
    why: `${members.length} repeated ${signature($, members[0])} records under ${pathOf($, parent)} (${Object.keys(fields).join(', ')})`,
    text: clean(members.map((m) => m.text()).join(' ')),
    records: members.length,
    fieldCount: count,
    main: inMain(parent),
  };
}

/**
 * Repeated items inside repeated groups (`ul > li` under each letter of an index, rows under each
 * day of a history): the tag path, relative to a group, of the shallowest element that repeats
 * among its siblings in some group and is found in most groups — when the groups hold more items
 * than there are groups, in varying numbers (or as list items). Null when the groups are the records.
 */
function groupedItems($: cheerio.CheerioAPI, groups: El[]): { path: string; records: El[] } | null {
  const textOf = (es: El[]) => es.reduce((n, e) => n + clean(visibleText(e)).length, 0);
  const byPath = new Map<string, { records: El[]; groups: Set<number>; perGroup: number[]; repeats: boolean; depth: number }>();
  groups.forEach((g, gi) => {
    g.find('*').each((_, d) => {
      const el = $(d);
      const tags: string[] = [];
      for (let cur = el; cur.length && !cur.is(g); cur = cur.parent()) tags.unshift(tagOf(cur));
      if (tags.length > 3 || /^(br|hr|script|style|input|option|td|th|tr|span|b|i|em|strong|a)$/.test(tags[tags.length - 1])) return;
      const key = tags.join(' > ');
      const e = byPath.get(key) ?? {
        records: [],
        groups: new Set<number>(),
        perGroup: groups.map(() => 0),
        repeats: false,
        depth: tags.length,
      };
      e.records.push(el);
      e.groups.add(gi);
      e.perGroup[gi]++;
      if (el.parent().children(tags[tags.length - 1]).length > 1) e.repeats = true;
      byPath.set(key, e);
    });
  });
  // A count that is the same in every group (a dt and two dd per search hit) is the group's own
  // template, not a list in it — unless the items are list items.
  const fits = [...byPath.entries()].filter(
    ([key, e]) =>
      e.repeats &&
      e.groups.size >= Math.ceil(groups.length / 2) &&
      e.records.length > groups.length &&
      (new Set(e.perGroup).size > 1 || key.endsWith('li')) &&
      // The items are most of the groups' text (a heading and its list), not a part each record
      // has some of (a ticket history's entries, each with a few attachment links).
      textOf(e.records) >= textOf(groups) * 0.5,
  );
  fits.sort((a, b) => a[1].depth - b[1].depth || b[1].records.length - a[1].records.length);
  return fits.length ? { path: fits[0][0], records: fits[0][1].records } : null;
}

function repeated($: cheerio.CheerioAPI, template: Set<unknown>): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  $('body *').each((_, p) => {
    const parent = $(p);
    const kids = parent.children();
    if (kids.length < 2 || /^(table|thead|tbody|tfoot|tr|select|head|script|svg)$/.test(tagOf(parent))) return;
    // Menus: page chrome, or a list the site's other recorded pages print at the same place.
    if (inChrome(parent) || inTemplate(template, parent)) return;
    const groups = new Map<string, El[]>();
    const byTag = new Map<string, El[]>();
    kids.each((_, c) => {
      const k = signature($, $(c));
      groups.set(k, [...(groups.get(k) ?? []), $(c)]);
      byTag.set(tagOf($(c)), [...(byTag.get(tagOf($(c))) ?? []), $(c)]);
    });
    // Records whose shape varies (a post with or without a thumbnail): the same tag, most of the
    // parent's children, split over several signatures — one group too.
    for (const [tag, members] of byTag) {
      const largest = Math.max(...[...groups.entries()].filter(([k]) => k.startsWith(`${tag}(`)).map(([, g]) => g.length));
      // (Two list items of a list are records too: the newest entry of a history has no "cur" link.)
      const listItems = members.length === kids.length && /^(ul|ol)$/.test(tagOf(parent));
      if ((members.length >= 3 || listItems) && members.length > largest && members.length >= kids.length * 0.6)
        groups.set(`${tag}(*)`, members);
    }
    for (const [, members] of groups) {
      if (members.length < 2) continue;
      const tag = tagOf(members[0]);
      // (Labels are a form's captions, the filter checkboxes of a search page, not records.)
      if (/^(br|hr|script|style|input|option|label|meta|link|td|th|dt|dd)$/.test(tag)) continue;
      if (members.some(inChrome) || namedMenu(parent) || members.some(namedMenu)) continue; // menus: a sidebar's <nav> portlets, a <ul id=app-nav>
      if (members.every((m) => inTemplate(template, m))) continue;
      const sel = `${pathOf($, parent)} > ${tag}`;
      const got = $(sel);
      if (got.length !== members.length && !members.every((m) => got.is(m))) continue;
      // Groups of records (a letter or date heading + its list): the items are the records; a
      // rule over the groups would return only each group's first item.
      const items = groupedItems($, members);
      const itemSel = items && `${sel} > ${items.path}`;
      const itemRule =
        items && itemSel && $(itemSel).length === items.records.length ? listCandidate($, items.records, itemSel, parent) : null;
      const groupRule = listCandidate($, members, sel, parent);
      if (itemRule) out.push({ ...itemRule, why: `${itemRule.why}, grouped in ${members.length} ${signature($, members[0])}` });
      else if (groupRule) out.push(groupRule);
    }
  });
  return out;
}

/**
 * A <dl> of records (search hits: a linked <dt> each, with the <dd> after it): the <dt>s are the
 * records, and the fields of their <dd>s are read from each <dt> by `+ dd …`. (A <dl> of labels
 * is a detail block's.)
 */
function dlRecords($: cheerio.CheerioAPI, template: Set<unknown>): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  $('dl').each((_, d) => {
    const dl = $(d);
    if (inChrome(dl) || inTemplate(template, dl)) return;
    const dts = dl.children('dt');
    const linked = dts.filter((_, e) => $(e).find('a[href]').length > 0).length;
    if (dts.length < 2 || linked * 2 < dts.length) return;
    const rule = dlRecordRule($, dl);
    if (rule) out.push(rule);
  });
  return out;
}

/** The list rule over a <dl>'s <dt>s, each with the fields of the <dd> after it (one <dt> too: html-single-hit.ts). */
export function dlRecordRule($: cheerio.CheerioAPI, dl: El): StructuralCandidate | null {
  const dts = dl.children('dt');
  const head = listCandidate(
    $,
    dts.toArray().map((e) => $(e)),
    `${pathOf($, dl)} > dt`,
    dl,
  );
  if (!head) return null;
  const fields = { ...head.extractor.fields } as Record<string, CssField>;
  const items = head.schema.items as { properties: Record<string, Schema>; required: string[] };
  const props = { ...items.properties };
  const dds = dts.toArray().map((e) => $(e).next('dd'));
  if (dds.every((x) => x.length)) {
    const tail = listCandidate($, dds, `${pathOf($, dl)} > dd`, dl);
    const taken = new Set(Object.keys(fields));
    for (const [k, f] of Object.entries((tail?.extractor.fields ?? {}) as Record<string, CssField>)) {
      const name = argName(k === 'text' ? 'description' : k, taken);
      fields[name] = { ...f, selector: `+ dd ${f.selector}`, required: false };
      props[name] = nullable((tail!.schema.items as { properties: Record<string, Schema> }).properties[k]!);
    }
    // A <dd> of plain text has no leaf of its own: the whole <dd> is the description.
    if (!tail && dds.every((x) => ownText(x))) {
      const name = argName('description', taken);
      fields[name] = { selector: '+ dd', required: false };
      props[name] = nullable({ type: 'string' });
    }
  }
  return {
    ...head,
    extractor: { ...head.extractor, fields },
    schema: { type: 'array', items: { type: 'object', properties: props, required: items.required } },
    why: `${dts.length} <dt> records with their <dd> under ${pathOf($, dl)} (${Object.keys(fields).join(', ')})`,
    text: clean(dl.text()),
    fieldCount: Object.keys(fields).length,
  };
}

// ---------------------------------------------------------------------------- detail pages

/** <dl> pairs, "Label: value" lines and the heading of the main content block. */
/** Text that is labels only ("Due date:", "Subject: Owner: Due:"): an empty value's neighbours, no value. */
const ONLY_LABELS = /^([^:]{1,40}:\s*)+$/;

function detailBlock($: cheerio.CheerioAPI, site: SiteTemplate): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  const template = site.elements;
  const main = mainBlock($, template);
  if (!main) return out;
  const root = pathOf($, main);
  const fields: Record<string, CssField> = {};
  const props: Record<string, Schema> = {};
  const taken = new Set<string>();
  // (The site's name in an <h1> of its header is the template's heading, not this page's.)
  const ownHeading = (e: El) => !inChrome(e) && !inTemplate(template, e);
  const h1 = main
    .find('h1')
    .filter((_, e) => ownHeading($(e)))
    .first();
  // (h3: an issue tracker's subject under the block's own "Bug #31" line.)
  const heading = h1.length
    ? h1
    : main
        .find('h2, h3')
        .filter((_, e) => ownHeading($(e)))
        .first();
  if (heading.length && clean(heading.text())) {
    fields.title = { selector: shortRel(main, heading, [tagOf(heading)]), required: false };
    props.title = nullable({ type: 'string' });
    taken.add('title');
  }
  main.find('dl').each((_, d) => {
    const dl = $(d);
    if (inChrome(dl)) return;
    // <dt>/<dd> pairs, also wrapped in a <div> each (allowed by HTML).
    const dts = dl.find('dt').filter((_, e) => $(e).closest('dl').is(dl));
    // A <dl> of records (search hits: a linked title and several <dd> each) is a list, not labels.
    const linked = dts.filter((_, e) => $(e).find('a[href]').length > 0).length;
    const multi = dts.filter((_, e) => $(e).nextUntil('dt', 'dd').length > 1).length;
    if (dts.length >= 2 && (linked * 2 >= dts.length || multi * 2 >= dts.length)) return;
    const labels = dts.toArray().map((e) => clean($(e).text()));
    dts.each((i, dt) => {
      const dd = $(dt).next('dd');
      const label = labels[i];
      if (!dd.length || !label || labels.filter((l) => l === label).length > 1 || /"/.test(label) || dd.find('dl, table').length) return;
      const value = clean(dd.text());
      if (!value) return;
      const name = fieldName(label, taken, `field_${i + 1}`);
      const ty = typed(value);
      fields[name] = {
        selector: shortRel(main, $(dt).next('dd'), [
          `dt:contains(${cssq(label)}) + dd`,
          `${relPath(main, dl)} dt:contains(${cssq(label)}) + dd`,
        ]),
        ...(ty.type ? { type: ty.type } : {}),
        required: false,
      };
      props[name] = nullable(ty.schema);
    });
  });
  main.find('table').each((_, t) => {
    const table = $(t);
    if (inChrome(table) || !isPairTable($, table)) return;
    const kv = pairFields($, table, main, taken);
    Object.assign(fields, kv.fields);
    Object.assign(props, kv.props);
  });
  // A label element ("Status:") followed by its value element: attribute grids of admin apps
  // (<div><div>Status:</div><div>New</div></div>, <span>Owner:</span> <a>ann</a>).
  const paired = new Set<any>();
  // A label that occurs more than once ("Last modified:" in every search hit) is a list's
  // template, not a field of one record.
  const labelCount = new Map<string, number>();
  main.find('*').each((_, e) => {
    const own = clean(
      $(e)
        .contents()
        .toArray()
        .filter((n: any) => n.type === 'text')
        .map((n: any) => n.data ?? '')
        .join(' '),
    );
    // (Own text, or a leaf's: a wrapper's text starts with its first label too, and would count
    // every first label of an attribute grid twice.)
    const m = /^([^:]{1,40}):/.exec(own || ($(e).children().length ? '' : clean($(e).text())));
    if (m) labelCount.set(m[1].trim().toLowerCase(), (labelCount.get(m[1].trim().toLowerCase()) ?? 0) + 1);
  });
  const once = (label: string) => (labelCount.get(label.replace(/:$/, '').trim().toLowerCase()) ?? 0) <= 2;
  // (Labels of an editor inside the block — an inline-edit or merge form, its captions beside
  // controls — and of a footer named so are not the record's.)
  const block = main.get(0);
  const aside = (el: El) =>
    namedMenu(el) ||
    el
      .parents('form')
      .toArray()
      .some((f) => $.contains(block, f));
  main.find('div, span, strong, b, label, th, td').each((_, e) => {
    const el = $(e);
    const label = clean(el.text());
    const val = el.next();
    if (
      inChrome(el) ||
      aside(el) ||
      !/^[^:]{1,40}:$/.test(label) ||
      !once(label) ||
      /"/.test(label) ||
      !val.length ||
      el.find('input, select, textarea').length ||
      val.find('input, select, textarea, table, dl').length
    )
      return;
    const value = clean(val.text());
    // (An empty value's label is followed by the next label, "Start date:" then "Due date:", or by
    // an empty form's captions only, "Subject: Owner: Due:".)
    if (!value || value.length > 300 || ONLY_LABELS.test(value)) return;
    const name = fieldName(label, taken, 'value');
    const ty = typed(value);
    const tag = tagOf(el);
    fields[name] = {
      selector: shortRel(main, val, [`${tag}:contains(${cssq(label)}) + ${tagOf(val)}`]),
      ...(ty.type ? { type: ty.type } : {}),
      required: false,
    };
    props[name] = nullable(ty.schema);
    paired.add(e);
  });
  // "Label: value" in one element (a paragraph or list item with little markup).
  main.find('p, li, div, span').each((_, e) => {
    const el = $(e);
    if (
      inChrome(el) ||
      aside(el) ||
      el.find('input:not([type=hidden]), select, textarea').length > 0 || // a form's captions and controls
      el.children('p, div, ul, ol, table, dl, li').length ||
      el
        .find('*')
        .toArray()
        .some((c) => paired.has(c)) ||
      paired.has(e)
    )
      return;
    const text = clean(el.text());
    const m = /^([A-Za-z][\w .()/-]{0,38}?)\s*:\s+(\S.{0,300})$/.exec(text);
    if (!m || /https?$/i.test(m[1]) || !once(m[1]) || ONLY_LABELS.test(m[2])) return;
    const name = fieldName(m[1], taken, 'value');
    const ty = typed(m[2]);
    const esc = m[1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    fields[name] = {
      selector: /"/.test(m[1]) ? relPath(main, el) : shortRel(main, el, [`${tagOf(el)}:contains(${cssq(`${m[1]}:`)})`]),
      pattern: `^\\s*${esc}\\s*:\\s*(.*)$`,
      ...(ty.type ? { type: ty.type } : {}),
      required: false,
    };
    props[name] = nullable(ty.schema);
  });
  const pairs = Object.keys(fields).filter((k) => k !== 'title').length;
  const rec = (!h1.length && pageHeading($, main, ownHeading, fields, props)) || { root, fields, props };
  if (pairs)
    out.push({
      kind: 'detail',
      extractor: { from: 'css', selector: rec.root, fields: rec.fields },
      schema: { type: 'object', properties: rec.props, required: Object.keys(rec.props) },
      why: `detail block ${root}: ${pairs} label/value pair(s)${fields.title ? ' and its heading' : ''}`,
      text: clean(main.text()),
      records: 1,
      fieldCount: Object.keys(rec.fields).length,
      main: true,
    });
  // The main content block as a whole: its heading and its text (an article, a wiki page).
  const body = contentOf($, main, heading, site);
  const tfields: Record<string, CssField> = {
    ...(fields.title ? { title: fields.title } : {}),
    content: body && !body.is(main) ? { selector: shortRel(main, body, stableIdOf($, body)) } : {},
  };
  out.push({
    kind: 'detail',
    extractor: { from: 'css', selector: root, fields: tfields },
    schema: {
      type: 'object',
      properties: { ...(fields.title ? { title: nullable({ type: 'string' }) } : {}), content: { type: 'string' } },
      required: [...(fields.title ? ['title'] : []), 'content'],
    },
    why: `main content block ${root} (heading and text)`,
    text: clean(main.text()),
    records: 1,
    fieldCount: Object.keys(tfields).length,
    main: true,
  });
  return out;
}

/**
 * The page's own <h1> when it stands outside the content block (a page header over a content
 * column: "#3: Order pear saplings" above the ticket's fields): the record is then read from the
 * nearest element holding both, the block's fields under their path to the block, the heading as
 * `title` (else `heading`, beside a block's own section heading). Null when the page has no single
 * own one outside the block (asked only when the block has no <h1> of its own).
 */
function pageHeading(
  $: cheerio.CheerioAPI,
  main: El,
  own: (e: El) => boolean,
  fields: Record<string, CssField>,
  props: Record<string, Schema>,
): { root: string; fields: Record<string, CssField>; props: Record<string, Schema> } | null {
  const block = main.get(0)!;
  const outer = $('h1').filter((_, e) => own($(e)) && !$.contains(block, e) && !!clean($(e).text()));
  if (outer.length !== 1) return null;
  const holder = main
    .parents()
    .filter((_, p) => $.contains(p, outer.get(0)!))
    .first();
  if (!holder.length) return null;
  const inner = relPath(holder, main);
  const name = fields.title ? 'heading' : 'title';
  const wide: Record<string, CssField> = { [name]: { selector: shortRel(holder, outer, ['h1']), required: false } };
  for (const [k, f] of Object.entries(fields)) wide[k] = { ...f, selector: f.selector ? `${inner} ${f.selector}` : inner };
  return { root: pathOf($, holder), fields: wide, props: { [name]: nullable({ type: 'string' }), ...props } };
}

/** `#id` when `e` has a stable id that is unique on the page (a selector that survives layout changes). */
function stableIdOf($: cheerio.CheerioAPI, e: El): string[] {
  const id = e.attr('id');
  return id && stableId(id) && $(`#${id}`).length === 1 ? [`#${id}`] : [];
}

/**
 * The part of the main block that holds the page's own content: the nearest common ancestor of
 * the text that the site's template does not print on its other recorded pages ("From <site>",
 * skip links, a print footer are template), widened from a lone paragraph to its block. Null when
 * there is nothing to compare with or no such text.
 */
function contentOf($: cheerio.CheerioAPI, main: El, heading: El, site: SiteTemplate): El | null {
  if (!site.pages) return null;
  const template = site.texts;
  const data: El[] = [];
  main.find('*').each((_, d) => {
    const e = $(d);
    if (e.is(SKIP) || e.closest(SKIP).length || (heading.length && (e.is(heading) || e.closest(heading).length))) return;
    const own = ownText(e);
    if (!own) return;
    // The element's whole text, or the text of the nearest block that holds it, is the template's.
    const block = e.closest('p, div, li, td, dd, section, span, a');
    if (template.has(templateText(e.text())) || (block.length && template.has(templateText(block.text())))) return;
    data.push(e);
  });
  if (!data.length) return null;
  let lca = data[0];
  for (const e of data.slice(1)) while (lca.length && !lca.is(main) && !e.closest(lca).length) lca = lca.parent();
  while (!lca.is(main) && /^(p|span|a|b|i|em|strong|code|li|td|dd|h\d)$/.test(tagOf(lca))) lca = lca.parent();
  return lca.closest(main).length ? lca : null;
}

/**
 * The page's main block: <main> (or its one <article>), one <article>, else the element that holds
 * most of the page's text. With the site's other recorded pages, text they also print at the same
 * place (header, menus, footer: `template`) does not count, so a wiki page whose menus outweigh its
 * few lines still finds them.
 */
export function mainBlock($: cheerio.CheerioAPI, template: Set<unknown> = new Set()): El | null {
  const marked = $('main, [role=main]').first();
  if (marked.length) {
    const art = marked.find('article');
    return art.length === 1 ? art : marked;
  }
  const art = $('article');
  if (art.length === 1) return art;
  const body = $('body');
  // (A page recorded twice is all "template": then every text counts.)
  const own = template.size > 0 && contentLength($, body, SKIP, template) >= 20;
  const size = (e: El) => (own ? contentLength($, e, SKIP, template) : textWithoutChrome($, e));
  const total = size(body);
  if (!total) return null;
  let cur = body;
  // Descend while one child still holds most of the text.
  for (;;) {
    const kids = cur
      .children()
      .toArray()
      .map((c) => $(c))
      .filter((c) => !c.is(SKIP) && !namedMenu(c)); // (a menu of plain <ul>s is never the content)
    const best = kids.map((k) => ({ k, n: size(k) })).sort((a, b) => b.n - a.n)[0];
    if (!best || best.n < total * 0.6 || /^(p|span|a|li|td|h\d)$/.test(tagOf(best.k))) break;
    cur = best.k;
  }
  return cur;
}

function textWithoutChrome(_$: cheerio.CheerioAPI, e: El): number {
  const c = e.clone();
  c.find(SKIP).remove();
  return clean(c.text()).length;
}

// ---------------------------------------------------------------------------------- paging

/** A link to the next page of results: rel=next, or a link labelled "next"/"›"/"»"/"older". */
export function nextPageLink($: cheerio.CheerioAPI): string | null {
  const rel = $('a[rel~=next][href]').first();
  // (Pagers are often printed above and below the list: the same link twice is one link.)
  const rels = new Set(
    $('a[rel~=next][href]')
      .map((_, e) => $(e).attr('href'))
      .get(),
  );
  if (rel.length) return rels.size === 1 ? 'a[rel~=next][href]' : pathOf($, rel);
  const a = $('a[href]')
    .filter((_, e) => {
      const t = clean($(e).text() || $(e).attr('aria-label') || $(e).attr('title') || '');
      return /^(next( page| \d+)?|next ›|next »|›|»|older( posts| entries| \d+)?|more results)$/i.test(t);
    })
    .first();
  if (!a.length) return null;
  // The link's own classes make a sturdier selector than its position (a pager's numbered links
  // come and go around it), when they pick out only links to the same place.
  const href = a.attr('href');
  for (const c of (a.attr('class') ?? '').split(/\s+/).filter((c) => /^[a-z][\w-]*$/i.test(c) && !/\d/.test(c))) {
    const hits = $(`a.${c}[href]`);
    if (hits.length && hits.toArray().every((e) => $(e).attr('href') === href)) return `a.${c}[href]`;
  }
  return pathOf($, a);
}

/** The next-page link of a recorded page: its selector and where it pointed. */
export function nextLinkOf(html: string): { selector: string; href: string } | null {
  const $ = cheerio.load(html);
  const selector = nextPageLink($);
  const href = selector ? $(selector).first().attr('href') : undefined;
  return selector && href ? { selector, href } : null;
}

/** A producer of candidates beside the ones here (html-form-record.ts), given the parsed page and its template. */
export type CandidateSource = ($: cheerio.CheerioAPI, template: Set<unknown>) => StructuralCandidate[];

export function structuralCandidates(html: string, otherPages: string[] = [], more: CandidateSource[] = []): StructuralCandidate[] {
  const $ = cheerio.load(html);
  const site = siteTemplate($, otherPages);
  const template = site.elements;
  return [
    ...tables($, template),
    ...repeated($, template),
    ...dlRecords($, template),
    ...detailBlock($, site),
    ...more.flatMap((m) => m($, template)),
  ];
}
