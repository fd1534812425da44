// A search that found one thing. Repeated records are found by siblings that share a shape
// (html-structure.ts), so a results page with one hit shows no list, and its main block's text would
// win: a connector whose later runs, with many hits, return one blob of text. A search page says
// what it is, though: its search box still holds the query the person typed. On such a page, a
// block around a link that names the query (in the hit's title or its snippet) is a record, and the
// rule for it is a list rule (its tag under its parent), which reads every hit when a run's query
// finds more.
import type * as cheerio from 'cheerio';
import { clean, tagOf } from './dom-text.js';
import { inChrome, pathOf, type StructuralCandidate } from './html-dom.js';
import { type CandidateSource, dlRecordRule, listCandidate } from './html-structure.js';

type El = cheerio.Cheerio<any>;

/** Tags a record of a result list is made of (not inline text, table parts or form parts). */
const RECORD_TAGS = /^(li|article|div|section)$/;
/** Where the walk up from a hit's link stops: the page's own blocks, a form, a table. */
const STOP = 'body, main, [role=main], form, table, ul, ol, dl';

/** Candidates for a one-hit result list, given the values the person typed. */
export function singleHits(typed: string[]): CandidateSource {
  const words = typed.map((t) => clean(t).toLowerCase()).filter((t) => t.length >= 3 && !/^\d+$/.test(t));
  return ($) => {
    if (!words.length || !echoesQuery($, words)) return [];
    const out: StructuralCandidate[] = [];
    const seen = new Set<unknown>();
    $('a[href]').each((_, a) => {
      const link = $(a);
      // (Not the template test: the hit is often on another recorded page too, at the same place —
      // the full list the search narrowed. A menu's link names no query.)
      if (inChrome(link) || link.closest('form').length) return;
      // (A <dl> of hits, one <dt> each with its <dd>: the <dl>'s record rule, as for many.)
      const dt = link.closest('dt');
      const dl = dt.parent('dl');
      const rec = dl.length && dl.children('dt').length === 1 ? dl : recordAround(link);
      if (!rec || seen.has(rec.get(0))) return;
      // The hit names the query: in its title, or in its snippet (a full-text search).
      if (!words.some((w) => clean(rec.text()).toLowerCase().includes(w))) return;
      seen.add(rec.get(0));
      const parent = rec.parent();
      const c = rec.is('dl') ? dlRecordRule($, rec) : listCandidate($, [rec], `${pathOf($, parent)} > ${recordTag(rec)}`, parent);
      if (c) out.push({ ...c, why: `a search page's only hit, ${c.why.replace(/^1 repeated /, '')}`, bonus: 3 });
    });
    return out;
  };
}

/** A form field (not hidden, not a password) that still holds a typed word: the page is that search's results. */
function echoesQuery($: cheerio.CheerioAPI, words: string[]): boolean {
  return $('form input:not([type=hidden]):not([type=password]):not([type=checkbox]):not([type=radio])')
    .toArray()
    .some((i) => words.includes(clean($(i).attr('value') ?? '').toLowerCase()));
}

/** An element with no text, image or link: an anchor target, a spacer. */
function empty(o: any): boolean {
  return !o.children?.some((c: any) => c.type === 'tag' || (c.type === 'text' && clean(c.data ?? '')));
}

/**
 * The hit's tag, with a class of its own when empty siblings share the tag (a page that puts an
 * anchor `<div>` before every hit `<div>`): a run with many hits must not read the anchors.
 */
function recordTag(rec: El): string {
  const tag = tagOf(rec);
  const same = rec.siblings(tag);
  if (!same.length) return tag;
  const mine = (rec.attr('class') ?? '').split(/\s+/).filter((c) => /^[A-Za-z_-][\w-]*$/.test(c));
  const own = mine.find((c) => !same.is(`.${c}`));
  return own ? `${tag}.${own}` : tag;
}

/**
 * The hit around a link: the nearest block that holds more than the link (a snippet, a date, an
 * image) and is the only one of its tag under its parent — a list item, an article, a card. A
 * block beside others of its tag is a part of the hit (its heading row beside its snippet) when
 * those hold no link, and the walk goes on up; beside a linked one (another record, a pager) it is
 * null, as it is among list items (the repeated-record rules read those) or in no such block.
 */
function recordAround(link: El): El | null {
  const linkText = clean(link.text()).length;
  for (let r = link.parent(); r.length && !r.is(STOP); r = r.parent()) {
    if (!RECORD_TAGS.test(tagOf(r))) continue;
    const more = clean(r.text()).length > linkText + 2 || r.find('img[src], time[datetime]').length > 0;
    if (!more || r.find('form, input, select, textarea').length) continue;
    // (Empty siblings of its tag — an anchor to scroll to, a spacer column — are no other records.)
    const others = r.siblings(tagOf(r)).filter((_, o) => !empty(o));
    if (!others.length) return r;
    if (tagOf(r) === 'li' || others.find('a[href]').length || others.is('a[href]')) return null;
  }
  return null;
}
