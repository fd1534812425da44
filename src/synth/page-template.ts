// What of a page is the site's template (header, menus, footer) rather than the page's own content,
// learned from the site's other recorded pages: an element is template when another page has an
// element at the same place in the layout (same tag, id and classes, under a parent of the same tag and id)
// with the same text, URLs and numbers masked. Classes are compared between pages of one site,
// never used to select anything.
import type * as cheerio from 'cheerio';
import { loadHtml } from './html-load.js';
import { clean, tagOf } from './dom-text.js';

type El = cheerio.Cheerio<any>;

/** Text as a site's template prints it on every page: URLs and numbers masked ("Retrieved from <url>"). */
export const templateText = (t: string) =>
  clean(t)
    .replace(/https?:\/\/\S+/g, '<url>')
    .replace(/\d+/g, '0')
    .toLowerCase();

/** The longest text compared at a place: menus and footers are short; content rarely repeats whole. */
const MAX_TEXT = 2000;
/** The longest text compared anywhere on the page (a tagline, a skip link, a print footer). */
const MAX_LOOSE_TEXT = 300;

const sigOf = (e: El) => `${tagOf(e)}#${e.attr('id') ?? ''}.${(e.attr('class') ?? '').split(/\s+/).filter(Boolean).sort().join('.')}`;

/** (The parent by tag and id only: <body>'s classes often name the page, `class="wiki rpage-wiki"`.) */
const placeOf = (e: El) => {
  const p = e.parent();
  return `${tagOf(p)}#${p.attr('id') ?? ''}>${sigOf(e)}`;
};

/** What the site's other recorded pages say is template on this page, read from them once. */
export interface SiteTemplate {
  /** How many other pages there were (none: nothing can be told apart). */
  pages: number;
  /** This page's elements (the topmost of each template subtree) printed at the same place elsewhere. */
  elements: Set<unknown>;
  /** Texts, masked, that the other pages print anywhere (up to MAX_LOOSE_TEXT characters). */
  texts: Set<string>;
}

export function siteTemplate($: cheerio.CheerioAPI, otherPages: string[]): SiteTemplate {
  const elements = new Set<unknown>();
  const texts = new Set<string>();
  if (!otherPages.length) return { pages: 0, elements, texts };
  const placed = new Set<string>();
  for (const html of otherPages) {
    const o = loadHtml(html);
    o('body *').each((_, e) => {
      const t = templateText(o(e).text());
      if (!t) return;
      if (t.length <= MAX_LOOSE_TEXT) texts.add(t);
      if (t.length <= MAX_TEXT) placed.add(`${placeOf(o(e))}:${t}`);
    });
  }
  const walk = (e: El) => {
    e.children().each((_, c) => {
      const t = templateText($(c).text());
      if (t && t.length <= MAX_TEXT && placed.has(`${placeOf($(c))}:${t}`)) elements.add(c);
      else walk($(c));
    });
  };
  walk($('body'));
  return { pages: otherPages.length, elements, texts };
}

/**
 * Length of `e`'s text outside `skip` (a selector: scripts, navigation…) and outside template
 * elements: how much of the page's own content it holds.
 */
export function contentLength($: cheerio.CheerioAPI, e: El, skip: string, template: Set<unknown>): number {
  // (A template element holds none of the page's own content, itself included: gitit's sidebar.)
  if (template.has(e.get(0))) return 0;
  let n = 0;
  const walk = (node: any) => {
    for (const c of node.children ?? []) {
      if (c.type === 'text') n += clean(c.data ?? '').length;
      else if (c.type === 'tag' && !template.has(c) && !$(c).is(skip)) walk(c);
    }
  };
  walk(e.get(0));
  return n;
}

/** Whether `e` is, or is inside, a template element. */
export const inTemplate = (template: Set<unknown>, e: El): boolean =>
  template.size > 0 &&
  e
    .parents()
    .addBack()
    .toArray()
    .some((n) => template.has(n));
