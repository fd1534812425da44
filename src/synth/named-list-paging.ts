// The list a `where` extractor reads the named record from is one page of it: the person clicked
// "Orchard Notes volume 5" on page 1 of 25 books, but a run may name the 29th, which only page 2
// holds. Such a producer step pages on until its record is found (`paginate.until_found`): by the
// request's own page parameter (`page=1`, or an offset with the page size beside it) for a JSON
// list that came back full, or by the page's next-page link for an HTML list (or, with no such
// link, its pager's numbered links: Django's admin prints "1 2 3" and nothing else).
import { jsonPathValues } from '../lib/json-path.js';
import type { Extractor, Pagination } from '../formats/definition/types.js';
import { clean } from './dom-text.js';
import { loadHtml } from './html-load.js';
import { nextLinkOf } from './html-structure.js';
import { isHtml, isJson } from './normalize.js';
import { parseJson } from './slots.js';
import type { Exchange } from './types.js';

const PAGE = /^(page|p|pg|page_?no|page_?num(ber)?|pagenumber|pageindex|page_index)$/i;
const OFFSET = /^(offset|skip|start|from)$/i;
const SIZE = /^(limit|per_?page|page_?size|pagesize|size|count|rows|take|max|max_?results|perpage)$/i;

/** Paging for producer step `x` whose extracts read a record by `where`, or null (one page, or no list that pages). */
export function namedListPaging(x: Exchange, extract: Record<string, Extractor>): Pagination | null {
  const named = Object.values(extract).filter((e) => (e.from === 'json' || e.from === 'css' || e.from === 'xml') && e.where);
  if (!named.length) return null;
  const base = { until_found: true, max_pages: 20 } as const;
  if (isJson(x) && named.every((e) => e.from === 'json')) {
    const q = new URL(x.url).searchParams;
    const num = (k: string) => (/^\d{1,6}$/.test(q.get(k) ?? '') ? Number(q.get(k)) : null);
    const size = [...q.keys()].filter((k) => SIZE.test(k) && num(k)).map((k) => num(k)!)[0] ?? null;
    // (A list shorter than its page size is the whole list.)
    const doc = parseJson(x.text);
    if (doc === null || typeof doc !== 'object') return null;
    const records = Math.max(...named.map((e) => jsonPathValues((e as { path: string }).path, doc).length));
    if (size !== null && records < size) return null;
    const page = [...q.keys()].find((k) => PAGE.test(k) && num(k) !== null);
    if (page) return { mode: 'page', param: page, start: num(page)!, ...base, note: `a page of the list (${page}=${num(page)})` };
    const offset = [...q.keys()].find((k) => OFFSET.test(k) && num(k) !== null);
    if (offset && size)
      return {
        mode: 'page',
        param: offset,
        start: num(offset)!,
        step: size,
        ...base,
        note: `a page of the list (${offset}, ${size} per page)`,
      };
    return null;
  }
  if (isHtml(x) && x.text && named.every((e) => e.from === 'css')) {
    const next = nextLinkOf(x.text);
    if (next)
      return {
        mode: 'next_url',
        next: { from: 'css', selector: next.selector, attr: 'href', required: false },
        ...base,
        note: `a page of the list (its next-page link ${next.selector})`,
      };
    const pager = x.method === 'GET' ? numberedPager(x.text, x.url) : null;
    if (pager)
      return {
        mode: 'page',
        param: pager.param,
        start: pager.start,
        ...(pager.step !== 1 ? { step: pager.step } : {}),
        ...base,
        note: `a page of the list (its pager's numbered links, ${pager.param}=${pager.start}${pager.step !== 1 ? ` by ${pager.step}` : ''})`,
      };
  }
  return null;
}

/**
 * The page parameter of an HTML page's numbered pager: links labelled "2", "3", … to the same path
 * whose one changing query parameter is linear in the label (`?p=2`; 0-based `?p=1`; an offset
 * `?start=25`). The parameter is named like a page or an offset, or the links sit in a pager
 * (an element whose class, id or label says so): a table of records linked by their ids ("2" →
 * `?id=2`) is no pager. `start` is page 1's value.
 */
export function numberedPager(html: string, pageUrl: string): { param: string; start: number; step: number } | null {
  const $ = loadHtml(html);
  let here: URL;
  try {
    here = new URL(pageUrl);
  } catch {
    return null;
  }
  const links: { label: number; param: string; value: number; inPager: boolean }[] = [];
  $('a[href]').each((_, e) => {
    const label = clean($(e).text());
    if (!/^\d{1,4}$/.test(label)) return;
    let to: URL;
    try {
      to = new URL($(e).attr('href')!, here);
    } catch {
      return;
    }
    if (to.origin !== here.origin || to.pathname !== here.pathname) return;
    const changed = [...new Set([...to.searchParams.keys(), ...here.searchParams.keys()])].filter(
      (k) => to.searchParams.get(k) !== here.searchParams.get(k),
    );
    const value = changed.length === 1 ? to.searchParams.get(changed[0]!) : null;
    if (value === null || !/^\d{1,7}$/.test(value)) return;
    const inPager = $(e)
      .parents()
      .toArray()
      .some((p) => /pag(e|in)|pager/i.test(`${$(p).attr('class') ?? ''} ${$(p).attr('id') ?? ''} ${$(p).attr('aria-label') ?? ''}`));
    links.push({ label: Number(label), param: changed[0]!, value: Number(value), inPager });
  });
  // (The parameter most numbered links change; the recorded page's own number is often no link.)
  const count = (k: string) => links.filter((l) => l.param === k).length;
  const param = links.map((l) => l.param).sort((x, y) => count(y) - count(x))[0];
  if (param === undefined) return null;
  const same = links.filter((l) => l.param === param);
  if (!(PAGE.test(param) || OFFSET.test(param) || same.some((l) => l.inPager))) return null;
  const [a, b] = [...new Map(same.map((l) => [l.label, l])).values()].sort((x, y) => x.label - y.label);
  // (One link only, "2": page 2 is 2 (1-based) or 1 (0-based), else an offset from 0.)
  const step = b ? (b.value - a!.value) / (b.label - a!.label) : a!.label === 2 ? (a!.value <= 2 ? 1 : a!.value) : 0;
  const start = a!.value - (a!.label - 1) * step;
  if (!Number.isInteger(step) || step < 1 || start < 0 || !same.every((l) => l.value === start + (l.label - 1) * step)) return null;
  return { param, start, step };
}
