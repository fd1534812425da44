// Extractors (JSONPath, CSS, regex, header, cookie, status/url/body) over one response or page.
// A required extractor that finds nothing means the site no longer looks like the definition
// expects: site_changed, with the step and extractor named in details.
import * as cheerio from 'cheerio';
import { jsonPathMatches, jsonPathValues } from '../../../lib/json-path.js';
import type { CallField, CssField, Extractor, Matcher, ValueType } from '../../../formats/definition/types.js';
import { callArguments } from './js-calls.js';
import { recordsWhere } from './record-where.js';
import type { Lookup } from '../../../formats/definition/template.js';
import { RunFailure } from '../../shared/failure.js';
import { styleHidden } from './style-hidden.js';
import { columnNames, headCells, headRows } from './table-headers.js';

export interface Source {
  status?: number;
  url: string;
  headers?: Record<string, string | string[] | undefined>;
  text: string;
  cookie?: (name: string) => string | undefined;
}

/** Caches the parsed JSON and HTML of one source. */
export class View {
  private json?: { ok: boolean; value?: unknown };
  private dom?: cheerio.CheerioAPI;
  private xml?: cheerio.CheerioAPI;
  constructor(readonly src: Source) {}

  parsedJson(): { ok: boolean; value?: unknown } {
    if (!this.json) {
      try {
        this.json = { ok: true, value: JSON.parse(this.src.text) };
      } catch {
        this.json = { ok: false };
      }
    }
    return this.json;
  }

  $(): cheerio.CheerioAPI {
    return (this.dom ??= cheerio.load(this.src.text));
  }

  /** The body parsed as XML (names case-sensitive, prefixes kept, CDATA read as text). */
  xml$(): cheerio.CheerioAPI {
    return (this.xml ??= cheerio.load(this.src.text, { xml: true }));
  }

  header(name: string): string | undefined {
    const v = this.src.headers?.[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  matches(m: Matcher): boolean {
    if (m.status && (this.src.status === undefined || !m.status.includes(this.src.status))) return false;
    if (m.url && !new RegExp(m.url).test(this.src.url)) return false;
    if (m.text && !this.src.text.toLowerCase().includes(m.text.toLowerCase())) return false;
    if (m.css) {
      if (!/<[a-z!]/i.test(this.src.text.slice(0, 4096))) return false;
      if (this.$()(m.css).length === 0) return false;
    }
    return true;
  }
}

export function coerce(v: unknown, type: ValueType | undefined): unknown {
  if (v === undefined || v === null || !type) return v;
  switch (type) {
    case 'string':
      return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'number': {
      const n = typeof v === 'number' ? v : parseFloat(String(v).replace(/[^\d.eE+-]/g, ''));
      return Number.isFinite(n) ? n : null;
    }
    case 'integer': {
      const n = typeof v === 'number' ? Math.trunc(v) : parseInt(String(v).replace(/[^\d+-]/g, ''), 10);
      return Number.isFinite(n) ? n : null;
    }
    case 'boolean':
      return typeof v === 'boolean' ? v : ['true', 'yes', '1', 'on', 'y', 'checked', 'selected'].includes(String(v).trim().toLowerCase());
    case 'json':
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v);
      } catch {
        return null;
      }
  }
}

/**
 * What a reader of the page does not see: scripts, hidden elements, and the hidden-text helpers
 * of common frameworks (WordPress/Bootstrap/Tailwind `screen-reader-text`, `sr-only`, `hidden`…),
 * e.g. a list table's inline quick-edit data. Their text is not a value.
 */
export const HIDDEN_TEXT =
  'script, style, template, noscript, [hidden], [aria-hidden=true], [style*="display:none"], [style*="display: none"], .hidden, .screen-reader-text, .sr-only, .visually-hidden';

/**
 * A message's own dismiss control (Bootstrap's `data-bs-dismiss` ×, a "Close" button, HAProxy's
 * `[X]` link titled "Remove this message"): it marks a box as a message, and its text is none of it.
 */
export const DISMISS =
  '[data-dismiss], [data-bs-dismiss], button[aria-label="close" i], button[aria-label="dismiss" i], :is(a, button)[title*="message" i]:is([title*="remove" i], [title*="close" i], [title*="dismiss" i], [title*="hide" i])';

/**
 * Nor is a drop-down's list of options text a reader sees as the element's content (a list's
 * inline-edit <select> of every status beside the status shown), or a message's dismiss control.
 * Tested element by element (`notText`: the same tests as HIDDEN_TEXT and DISMISS, without a
 * selector engine — this runs on every cell of every page, and a selector is compiled per query).
 */
const NOT_TEXT_TAGS = new Set(['script', 'style', 'template', 'noscript', 'select', 'datalist']);
const HIDDEN_CLASSES = new Set(['hidden', 'screen-reader-text', 'sr-only', 'visually-hidden']);
function notText(n: { name: string; attribs?: Record<string, string> }): boolean {
  if (NOT_TEXT_TAGS.has(n.name)) return true;
  const a = n.attribs;
  if (!a) return false;
  if ('hidden' in a || a['aria-hidden'] === 'true' || 'data-dismiss' in a || 'data-bs-dismiss' in a) return true;
  if (a.style && (a.style.includes('display:none') || a.style.includes('display: none'))) return true;
  if (a.class?.split(/\s+/).some((c) => HIDDEN_CLASSES.has(c))) return true;
  if (n.name === 'button' && /^(close|dismiss)$/i.test(a['aria-label'] ?? '')) return true;
  return (n.name === 'a' || n.name === 'button') && /message/i.test(a.title ?? '') && /remove|close|dismiss|hide/i.test(a.title ?? '');
}

/** The element's text without what is hidden from readers (by markup, or by the page's own style rules). */
export function visibleText(node: cheerio.Cheerio<any>): string {
  return textOf(node, false);
}

/** Elements a browser lays out on lines of their own (`innerText` breaks the line around them). */
const BLOCKS = new Set(
  'address article aside blockquote br caption dd details dialog div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p section summary table tbody tfoot thead tr ul'.split(
    ' ',
  ),
);
const LINE = { type: 'line' };
const GAP = { type: 'gap' };

/**
 * The element's text as a reader sees it laid out (much as the DOM's `innerText`): the source's
 * own line breaks and indentation are one space, block elements and `<br>` begin lines, cells are
 * apart, non-breaking spaces plain ones, each line trimmed and blank lines dropped — a cell holding a list of links reads
 * "Start\nClear Log", not the template's indentation. Inside `<pre>` or `<textarea>` the text is
 * kept as written.
 */
export function readableText(node: cheerio.Cheerio<any>, except: Set<unknown> = NONE): string {
  for (let p = node.get(0); p; p = p.parent) if (p.name === 'pre' || p.name === 'textarea') return visibleText(node).trim();
  return (
    textOf(node, true, except)
      .split('\n')
      // (A non-breaking space reads as a space: gitweb writes a message's words apart with &nbsp;.)
      .map((l) =>
        l
          .replace(/\u00a0/g, ' ')
          .replace(/ {2,}/g, ' ')
          .trim(),
      )
      .filter(Boolean)
      .join('\n')
  );
}

const NONE = new Set<unknown>();

/** The text nodes in document order, hidden subtrees and `except` left out (the element itself is
 * read); `laidOut`: source whitespace as one space, line breaks around blocks, a space between cells. */
function textOf(node: cheerio.Cheerio<any>, laidOut: boolean, except: Set<unknown> = NONE): string {
  const styled = styleHidden(node);
  let out = '';
  const stack: any[] = node
    .toArray()
    .flatMap((el) => (el.type === 'text' ? [el] : [...(el.children ?? [])]))
    .reverse();
  while (stack.length) {
    const n = stack.pop();
    if (n === LINE) out += '\n';
    else if (n === GAP) out += ' ';
    else if (n.type === 'text') out += laidOut ? n.data.replace(/[ \t\n\r\f]+/g, ' ') : n.data;
    else if (n.children && n.type !== 'comment' && !(n.name && (notText(n) || styled.has(n) || except.has(n)))) {
      const mark = !laidOut ? null : BLOCKS.has(n.name) ? LINE : n.name === 'td' || n.name === 'th' ? GAP : null;
      if (mark) {
        out += mark === LINE ? '\n' : ' ';
        stack.push(mark);
      }
      for (let k = n.children.length - 1; k >= 0; k--) stack.push(n.children[k]);
    }
  }
  return out;
}

function readEl($: cheerio.CheerioAPI, el: any, attr: string | undefined, except?: string): string | undefined {
  const node = $(el);
  if (!attr) return readableText(node, except ? new Set(node.find(except).toArray()) : NONE);
  if (attr === 'html') return node.html() ?? undefined;
  // A checkbox or radio without a value attribute submits "on" (HTML's default), as its DOM
  // `value` says: a form field read from the page is what a browser would send.
  if (attr === 'value' && node.is('input[type=checkbox], input[type=radio]')) return node.attr('value') ?? 'on';
  return node.attr(attr);
}

/**
 * Header names of a table by column position: the names over all its header rows ("Sessions Cur",
 * table-headers.ts), then each header row's own texts (a definition made before names were joined
 * over rows finds its column by one row's text).
 */
function headerColumns($: cheerio.CheerioAPI, table: cheerio.Cheerio<any>): string[][] {
  const rows = headRows($, table);
  if (!rows.length) return [];
  const joined = columnNames(rows.map((r) => headCells($, r, (c) => visibleText(c)))).map(headerKey);
  return rows.length > 1 ? [joined, ...rows.map((r) => cellTexts($, r))] : [joined];
}

/** A row's cell texts by column position, colspans expanded (lowercase, spaces collapsed). */
function cellTexts($: cheerio.CheerioAPI, row: cheerio.Cheerio<any>): string[] {
  const out: string[] = [];
  row.children('th, td').each((_, c) => {
    const span = colspan($, c);
    // (What a reader sees: not a cell's inline script or hidden helper text.)
    for (let i = 0; i < span; i++) out.push(span > 1 ? '' : headerKey(visibleText($(c))));
  });
  return out;
}

/** How many columns a cell covers (its colspan, 1 to 20). */
const colspan = ($: cheerio.CheerioAPI, cell: any) => Math.max(1, Math.min(20, Number($(cell).attr('colspan') ?? 1) || 1));

const headerKey = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * The cell of row `el` under the header `column`, or an empty selection. A table with no <th>
 * header row (older pages write theirs in <td> cells) is read by its first row holding `column`.
 */
function cellOf($: cheerio.CheerioAPI, el: any, column: string): cheerio.Cheerio<any> {
  const table = $(el).closest('table');
  const node = table.get(0);
  if (!node) return $([]);
  const key = headerKey(column);
  let headers = tableHeaders.get(node);
  if (!headers) tableHeaders.set(node, (headers = headerColumns($, table)));
  let i = headers.map((h) => h.indexOf(key)).find((k) => k >= 0) ?? -1;
  if (!headers.length) {
    let found = tdHeaders.get(node);
    if (!found) tdHeaders.set(node, (found = new Map()));
    if (!found.has(key)) {
      const row = table
        .find('> tbody > tr, > tr')
        .toArray()
        .find((r) => cellTexts($, $(r)).includes(key));
      found.set(key, row ? cellTexts($, $(row)).indexOf(key) : -1);
    }
    i = found.get(key)!;
  }
  return i < 0 ? $([]) : cellAt($, $(el), i);
}

/** The cell of `row` that starts at column `i`, colspans counted (as header texts are): none when
 * a cell starting earlier spans over it, so a heading row's wide cell is read once, under its own column. */
export function cellAt($: cheerio.CheerioAPI, row: cheerio.Cheerio<any>, i: number): cheerio.Cheerio<any> {
  let at = 0;
  for (const c of row.children('td, th').toArray()) {
    if (at === i) return $(c);
    at += colspan($, c);
    if (at > i) break;
  }
  return $([]);
}
const tableHeaders = new WeakMap<object, string[][]>();
const tdHeaders = new WeakMap<object, Map<string, number>>();

/** A table's header row of <td> cells, matched by a list's row selector: every column its fields
 * read (two at least) holds that column's own name. */
function isHeaderRow($: cheerio.CheerioAPI, el: any, fields: Record<string, CssField>): boolean {
  const columns = Object.values(fields).flatMap((f) => (f.column !== undefined && !f.selector ? [f.column] : []));
  return columns.length >= 2 && columns.every((c) => headerKey(visibleText(cellOf($, el, c))) === headerKey(c));
}

/** Records whose `fill_down` fields are blank take the value of the closest record above that has
 * one; heading rows (`headings`) give theirs and are left out. */
function fillDown(records: Record<string, unknown>[], fields: Record<string, CssField>): Record<string, unknown>[] {
  const keys = Object.keys(fields).filter((k) => fields[k]!.fill_down);
  const last: Record<string, unknown> = {};
  for (const r of keys.length ? records : []) {
    for (const k of keys) {
      if (blank(r[k])) r[k] = last[k] ?? r[k];
      else last[k] = r[k];
    }
  }
  return records.filter((r) => !headingRows.has(r));
}

const blank = (v: unknown) => v === null || v === '';
const headingRows = new WeakSet<object>();

/**
 * A row of a list with `headings`: a heading when its `fill_down` fields hold something and every
 * other field reads blank or nothing (hledger's transaction row: a date and a description, then
 * its postings' rows below with those cells empty). A heading's missing fields are no failure.
 */
function recordOrHeading($: cheerio.CheerioAPI, el: any, fields: Record<string, CssField>, where: string): Record<string, unknown> {
  const lax = fieldsOf($, el, Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, { ...f, required: false }])), where);
  const keys = Object.keys(fields);
  const heading = keys.some((k) => fields[k]!.fill_down && !blank(lax[k])) && keys.every((k) => fields[k]!.fill_down || blank(lax[k]));
  if (!heading) return fieldsOf($, el, fields, where);
  headingRows.add(lax);
  return lax;
}

function fieldsOf($: cheerio.CheerioAPI, el: any, fields: Record<string, CssField>, where: string): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(fields)) {
    const base = f.column !== undefined ? cellOf($, el, f.column) : $(el);
    const target = f.selector ? base.find(f.selector).first() : base;
    let raw = target.length ? readEl($, target.get(0), f.attr, f.except) : undefined;
    // A label sharing the element ("Status: open"): the pattern keeps the value part.
    if (raw !== undefined && f.pattern) {
      const m = patternOf(f.pattern).exec(raw.replace(/\s+/g, ' '));
      raw = m ? (m[1] ?? m[0]).trim() : undefined;
    }
    // An optional text the page leaves blank (an empty box, a label with nothing after it) is no
    // value, as a missing one is: so the format its recorded value had (an e-mail address, a date)
    // still describes every value another record returns.
    if (raw !== undefined && f.required === false && (!f.type || f.type === 'string') && !raw.trim()) raw = undefined;
    if (raw === undefined && f.required !== false) {
      throw new RunFailure(
        'site_changed',
        `${where}: field '${k}' (${f.column !== undefined ? `column "${f.column}" ` : ''}${f.selector ?? 'element'}${f.attr ? ` @${f.attr}` : ''}) not found`,
        {
          details: { extractor: where, field: k, selector: f.selector ?? null },
        },
      );
    }
    o[k] = raw === undefined ? (f.default ?? null) : coerce(raw, f.type);
  }
  return o;
}

/** One call's arguments as the object its fields describe. */
function callFields(args: unknown[], fields: Record<string, CallField>, where: string): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(fields)) {
    const arg = args[f.arg];
    let raw =
      f.key === undefined
        ? arg
        : arg !== null && typeof arg === 'object' && !Array.isArray(arg) && Object.hasOwn(arg, f.key)
          ? (arg as Record<string, unknown>)[f.key]
          : undefined;
    if (f.text && typeof raw === 'string')
      raw = visibleText(cheerio.load(raw, null, false).root())
        .replace(/\s+/g, ' ')
        .trim();
    if (raw === undefined && f.required !== false)
      throw new RunFailure(
        'site_changed',
        `${where}: field '${k}' (argument ${f.arg}${f.key !== undefined ? ` key "${f.key}"` : ''}) not found`,
        {
          details: { extractor: where, field: k },
        },
      );
    o[k] = raw === undefined ? (f.default ?? null) : coerce(raw, f.type);
  }
  return o;
}

/** Every match of an extractor (before `all`/`required` are applied). */
function matchesOf(x: Extractor, view: View, where: string, lookup?: Lookup): unknown[] {
  switch (x.from) {
    case 'json': {
      const j = view.parsedJson();
      if (!j.ok)
        throw new RunFailure('site_changed', `${where}: the response is not JSON`, {
          details: { extractor: where, url: view.src.url, status: view.src.status ?? null },
        });
      if (x.select === '~') {
        // (The records' own keys too: a list keyed by id names each record by its key.)
        const all = jsonPathMatches(x.path, j.value);
        return recordsWhere(
          x,
          all.map((m) => m.value),
          lookup,
          where,
          all.map((m) => m.parentProperty ?? ''),
        );
      }
      const found = jsonPathValues(x.path, j.value);
      return x.where || x.select !== undefined ? recordsWhere(x, found, lookup, where) : found;
    }
    case 'css':
    case 'xml': {
      const $ = x.from === 'xml' ? view.xml$() : view.$();
      const found = $(x.selector)
        .toArray()
        .filter((el) => !x.fields || !x.all || !isHeaderRow($, el, x.fields))
        .map((el) => (!x.fields ? readEl($, el, x.attr) : (x.headings ? recordOrHeading : fieldsOf)($, el, x.fields, where)))
        .filter((v) => v !== undefined);
      const records = x.fields ? fillDown(found as Record<string, unknown>[], x.fields) : found;
      return x.where || x.select !== undefined ? recordsWhere(x, records, lookup, where) : records;
    }
    case 'calls': {
      let code = view.src.text;
      if (x.in !== undefined) {
        const j = view.parsedJson();
        if (!j.ok)
          throw new RunFailure('site_changed', `${where}: the response is not JSON`, {
            details: { extractor: where, url: view.src.url, status: view.src.status ?? null },
          });
        const found = jsonPathValues(x.in, j.value);
        code = typeof found[0] === 'string' ? found[0] : '';
      }
      const calls = callArguments(code, x.call);
      return x.fields ? calls.map((args) => callFields(args, x.fields!, where)) : calls;
    }
    case 'regex': {
      const re = new RegExp(x.pattern, `${(x.flags ?? '').replace('g', '')}g`);
      const out: unknown[] = [];
      for (const m of view.src.text.matchAll(re)) {
        const g = x.group ?? (m.length > 1 ? 1 : 0);
        out.push(typeof g === 'number' ? m[g] : m.groups?.[g]);
        if (!x.all) break;
      }
      return out.filter((v) => v !== undefined);
    }
    case 'header': {
      const v = view.header(x.name);
      return v === undefined ? [] : [v];
    }
    case 'cookie': {
      const v = view.src.cookie?.(x.name);
      return v === undefined ? [] : [v];
    }
    case 'status':
      return view.src.status === undefined ? [] : [view.src.status];
    case 'url':
      return [view.src.url];
    case 'body':
      return [view.src.text];
  }
}

/**
 * Applies one extractor; `where` names it in errors (e.g. "search.extract.items"). `lookup`: the
 * run's values, for an extractor's `where`.
 */
export function extractValue(x: Extractor, view: View, where: string, lookup?: Lookup): unknown {
  const found = matchesOf(x, view, where, lookup).map((v) => coerce(v, x.type));
  if (found.length === 0) {
    if (x.required === false) return x.default !== undefined ? x.default : x.all ? [] : null;
    throw new RunFailure('site_changed', `${where}: nothing matched ${describe(x)}`, {
      details: { extractor: where, from: x.from, url: view.src.url, status: view.src.status ?? null },
    });
  }
  return x.all ? found : found[0];
}

function describe(x: Extractor): string {
  switch (x.from) {
    case 'json':
      return `JSONPath ${x.path}${x.select ? ` then ${x.select}` : ''}`;
    case 'css':
      return `selector ${x.selector}`;
    case 'xml':
      return `XML selector ${x.selector}`;
    case 'regex':
      return `/${x.pattern}/`;
    case 'calls':
      return `calls of ${x.call}${x.in ? ` in ${x.in}` : ''}`;
    case 'header':
    case 'cookie':
      return `${x.from} ${x.name}`;
    default:
      return x.from;
  }
}

/** Common captcha / challenge pages, used in addition to a definition's detect.anti_bot. */
export const DEFAULT_ANTI_BOT: Matcher[] = [
  { status: [403, 429, 503], css: '#challenge, #challenge-form, #cf-challenge-running, .cf-browser-verification' },
  { status: [403, 429, 503], text: '<title>Just a moment...</title>' },
  { css: 'iframe[src*="recaptcha"], iframe[src*="hcaptcha"], .g-recaptcha, .h-captcha, iframe[src*="challenges.cloudflare.com"]' },
  { status: [403, 429], text: 'verify you are human' },
];

/** Field patterns compiled once (they run on every row of every extraction). */
const patterns = new Map<string, RegExp>();
function patternOf(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) {
    re = new RegExp(source);
    if (patterns.size > 1000) patterns.clear();
    patterns.set(source, re);
  }
  return re;
}
