// The list a `where` extractor reads the named record from is one page of it: the person clicked
// "Orchard Notes volume 5" on page 1 of 25 books, but a run may name the 29th, which only page 2
// holds. Such a producer step pages on until its record is found (`paginate.until_found`): by the
// request's own page parameter (`page=1`, or an offset with the page size beside it) for a JSON
// list that came back full, or by the page's next-page link for an HTML list.
import { JSONPath } from 'jsonpath-plus';
import type { Extractor, Pagination } from '../formats/definition/types.js';
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
    const records = Math.max(
      ...named.map((e) => (JSONPath({ path: (e as { path: string }).path, json: doc, wrap: true }) as unknown[]).length),
    );
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
  }
  return null;
}
