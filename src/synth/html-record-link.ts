// A record's id in a URL (`/admin/library/book/6/change/`, `?id=6`) that a list page linked to from
// the row an argument names ("Orchard Notes volume 5"): the person clicked that row's link. At run
// time the id is read from the row the run's argument names — `{from: "css", selector: rows,
// fields: {name, link}, where: {name: "{{args.title}}"}, select: "$.link"}` — never the recorded
// one (the connector would act on the recorded record whatever it was asked).
import type * as cheerio from 'cheerio';
import type { CssExtractor } from '../formats/definition/types.js';
import { clean, cssq, tagOf } from './dom-text.js';
import { hiddenWithin, pathOf, relPath } from './html-dom.js';
import { loadHtml } from './html-load.js';
import { isHtml } from './normalize.js';
import type { Found } from './producers.js';
import type { ArgValue } from './substitute.js';
import type { Exchange } from './types.js';

type El = cheerio.Cheerio<any>;

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The pattern that reads `v` back from `href` (a path segment, or a query value), or null. */
export function hrefPattern(href: string, v: string): string | null {
  for (const form of new Set([v, encodeURIComponent(v)])) {
    const seg = new RegExp(`^([^?#]*/)${esc(form)}(?=[/?#]|$)`).exec(href);
    if (seg) return `^${esc(seg[1]!)}([^/?#]+)`;
    // (A query value by its parameter's name alone: the other parameters may differ per row.)
    const q = new RegExp(`[?&;]([^=&;#]+)=${esc(form)}(?=[&;#]|$)`).exec(href);
    if (q) return `[?&;]${esc(q[1]!)}=([^&;#]+)`;
  }
  return null;
}

// Elements that are records of a list when repeated (a row, an item, a card); not cells or inline text.
const RECORD_TAGS = new Set(['tr', 'li', 'article', 'section', 'div', 'dt', 'dd', 'p', 'tbody']);

/** The nearest ancestor of `a` that is one of several siblings alike (same tag, same class). */
function recordOf($: cheerio.CheerioAPI, a: El): El | null {
  let cur = a;
  for (let i = 0; i < 8 && cur.length && tagOf(cur) !== 'body'; i++, cur = cur.parent()) {
    if (!RECORD_TAGS.has(tagOf(cur))) continue;
    const alike = siblingsAlike($, cur);
    if (alike.length >= 2) return cur;
  }
  return null;
}

const classesOf = (e: El) => (e.attr('class') ?? '').trim().split(/\s+/).filter(Boolean);

/** `rec` and its siblings of the same tag that share a class with it (all of them for table rows
 * or a classless record): striped rows (`odd`, `even`) are one list. */
function siblingsAlike($: cheerio.CheerioAPI, rec: El): El[] {
  const mine = classesOf(rec);
  return rec
    .parent()
    .children(tagOf(rec))
    .toArray()
    .map((e) => $(e))
    .filter((e) => tagOf(rec) === 'tr' || !mine.length || classesOf(e).some((c) => mine.includes(c)));
}

/** The deepest element of `rec` whose whole text is `text`, not counting what readers don't see (a
 * list's inline-edit data: WordPress keeps each row's title again in a hidden `div.post_title`). */
function textElement($: cheerio.CheerioAPI, rec: El, text: string): El | null {
  const hits = rec
    .find('*')
    .toArray()
    .filter((e) => clean($(e).text()) === text && !hiddenWithin($, $(e), rec));
  const deepest = hits.filter((e) => !hits.some((o) => o !== e && $(o).parents().toArray().includes(e)));
  return deepest.length === 1 ? $(deepest[0]) : null;
}

export interface LinkedRecord {
  x: Exchange;
  f: Found;
  arg: string;
}

/** An element of a row that carries `v`, and how to read it back from the other rows. */
interface Carrier {
  el: El;
  attr: string;
  /** Reads the id out of the attribute (a link's href); omitted = the whole value. */
  pattern?: string;
}

/**
 * What carries `v` on a page: for a form field (`field`), the inputs of that name whose value is
 * `v` (the box ticked in a row: a bulk action's `_selected_action=6`), else links sending it under
 * that name; otherwise links whose URL holds it and `data-…` attributes equal to it (`<tr data-id="6">`).
 */
function carriers($: cheerio.CheerioAPI, v: string, field?: string): Carrier[] {
  if (field !== undefined) {
    const boxes = $('input[value], button[value]')
      .toArray()
      .filter((e) => $(e).attr('name') === field && $(e).attr('value') === v)
      .map((e) => ({ el: $(e), attr: 'value' }));
    if (boxes.length) return boxes;
    // (Else links that send it under the same name: the page's script posted what the row's link
    // holds — WordPress's "Delete" `edit-tags.php?…&tag_ID=2&_wpnonce=…`, sent to admin-ajax.)
    const sameName = `[?&;]${esc(field)}=([^&;#]+)`;
    return $('a[href]')
      .toArray()
      .filter((e) => hrefPattern($(e).attr('href') ?? '', v) === sameName)
      .map((e) => ({ el: $(e), attr: 'href', pattern: sameName }));
  }
  const out: Carrier[] = [];
  for (const e of $('a[href]').toArray()) {
    const pattern = hrefPattern($(e).attr('href') ?? '', v);
    if (pattern) out.push({ el: $(e), attr: 'href', pattern });
  }
  for (const e of $('*').toArray())
    for (const [a, val] of Object.entries((e as { attribs?: Record<string, string> }).attribs ?? {}))
      if (val === v && /^data-[\w-]+$/.test(a) && a !== 'data-testid') out.push({ el: $(e), attr: a });
  return out;
}

/**
 * The list page (nearest first) with a link (or a box, a `data-…` attribute) carrying `v` in the
 * row whose text an argument's example is, held by no other row: that row's carrier, read by the
 * argument. `field`: `v` is a form field's value (only inputs of that name carry it then).
 */
export function linkedRecord(earlier: Exchange[], v: string, args: ArgValue[], field?: string): LinkedRecord | null {
  const named = args.filter((a) => clean(a.example).length >= 2);
  // (A value that holds an argument is that argument's template, not a record's id: Django's
  // `_changelist_filters=q=Orchard…` that remembers the search.)
  const flat = (t: string) => t.replace(/[+\s]+/g, ' ').toLowerCase();
  if (!named.length || !v || args.some((a) => a.example.length >= 2 && flat(v).includes(flat(a.example)))) return null;
  for (const y of earlier) {
    const t = isHtml(y) ? y.text : undefined;
    if (!t || !(t.includes(v) || t.includes(encodeURIComponent(v)))) continue;
    const $ = loadHtml(t);
    for (const c of carriers($, v, field)) {
      const rec = recordOf($, c.el);
      if (!rec) continue;
      for (const arg of named) {
        const text = clean(arg.example);
        const el = textElement($, rec, text);
        if (!el) continue;
        const siblings = siblingsAlike($, rec).filter((r) => !r.is(rec));
        if (siblings.some((r) => textElement($, r, text))) continue;
        // (The record's own id: another row's carrier there reads another value. A value every
        // row's link shares — Icinga Web's `backend=icingaweb2` — names no row.)
        const at = rec.is(c.el) ? null : relPath(rec, c.el);
        const read = (raw: string | undefined) => (raw === undefined || !c.pattern ? raw : new RegExp(c.pattern).exec(raw)?.[1]);
        const theirs = siblings.map((r) => read((at ? r.find(at).first() : r).attr(c.attr)));
        if (!theirs.some((o) => o !== undefined && o !== v && o !== encodeURIComponent(v))) continue;
        if (theirs.includes(v)) continue;
        const parent = rec.parent();
        // (The classes every row has: not a stripe's or the recorded row's own `selected`.)
        const shared = tagOf(rec) === 'tr' ? [] : classesOf(rec).filter((k) => siblings.every((r) => classesOf(r).includes(k)));
        const cls = shared.map((k) => `.${cssEsc(k)}`).join('');
        const key = c.attr === 'href' ? 'link' : 'ref';
        const extractor: CssExtractor = {
          from: 'css',
          selector: `${pathOf($, parent)} > ${tagOf(rec)}${cls}`,
          fields: {
            name: { selector: relPath(rec, el), required: false },
            [key]: { ...(at ? { selector: at } : {}), attr: c.attr, ...(c.pattern ? { pattern: c.pattern } : {}), required: false },
          },
          where: { name: `{{args.${arg.name}}}` },
          select: `$.${key}`,
        };
        return {
          x: y,
          f: {
            extractor,
            rank: 1,
            how: `the ${c.attr === 'href' ? 'link' : c.attr} of the row whose text is the argument ${arg.name} (${cssq(c.el.attr(c.attr) ?? '')})`,
          },
          arg: arg.name,
        };
      }
    }
  }
  return null;
}

const cssEsc = (c: string) => c.replace(/[^\w-]/g, (ch) => `\\${ch}`);

/**
 * The link the person clicked to open GET `x`: on the nearest page before it, a link to exactly
 * x's address, found again by its text (or, without text, as the first link carrying the same
 * parameter) when no argument names it. `v`, a value of x's path or query, is read from that link
 * at run time — the page the run opened for its own record links to that record's form
 * (`…&user_no=1004`), not the recorded one.
 */
export function clickedLink(earlier: Exchange[], x: Exchange, v: string, args: ArgValue[]): { x: Exchange; f: Found } | null {
  // (A number of two digits or more: a record's; `type=2` is the kind of page, the same for every run.)
  if (x.method !== 'GET' || !/\d{2}/.test(v)) return null;
  const y = earlier.find((e) => isHtml(e) && e.text);
  if (!y?.text || !(y.text.includes(v) || y.text.includes(encodeURIComponent(v)))) return null;
  const $ = loadHtml(y.text);
  const to = (href: string) => {
    try {
      return new URL(href, y.url).href;
    } catch {
      return '';
    }
  };
  const link = $('a[href]')
    .filter((_, e) => to($(e).attr('href') ?? '') === x.url)
    .first();
  const href = link.attr('href');
  const pattern = href ? hrefPattern(href, v) : null;
  if (!pattern) return null;
  const text = clean(link.text());
  // (A link named by an argument — the row the person chose, Nagios's "Replication lag" — is
  // another run's other link: linkedRecord reads that row by the argument.)
  const flat = text.toLowerCase();
  if (args.some((a) => clean(a.example).length >= 2 && flat.includes(clean(a.example).toLowerCase()))) return null;
  // (`:contains` is a substring match: the first link holding the text must be this one.)
  const candidates = text ? [`a[href]:contains(${cssq(text)})`] : [];
  const param = /^\[\?&;\]([^=]+)=/.exec(pattern.replace(/\\/g, ''))?.[1];
  if (param) candidates.push(`a[href*=${cssq(`${param}=`)}]`);
  const selector = candidates.find((c) => $(c).first().is(link));
  if (!selector) return null;
  return {
    x: y,
    f: {
      extractor: { from: 'css', selector, fields: { link: { attr: 'href', pattern } }, select: '$.link' },
      rank: 1,
      how: `the link ${text ? JSON.stringify(text) : selector} the person clicked (${cssq(href!)})`,
    },
  };
}
