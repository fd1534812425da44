// What of a page is the site's template (header, menus, footer) rather than the page's own content,
// learned from the site's other recorded pages: an element is template when another page has an
// element at the same place in the layout (same tag, id and classes, under a parent of the same tag and id)
// with the same text, URLs and numbers masked. Classes are compared between pages of one site,
// never used to select anything.
import * as cheerio from 'cheerio';

type El = cheerio.Cheerio<any>;
const clean = (s: string) => s.replace(/\s+/g, ' ').trim();
const tagOf = (e: El) => (e.prop('tagName') ?? '').toLowerCase();

/** Text as a site's template prints it on every page: URLs and numbers masked ("Retrieved from <url>"). */
export const templateText = (t: string) =>
  clean(t)
    .replace(/https?:\/\/\S+/g, '<url>')
    .replace(/\d+/g, '0')
    .toLowerCase();

/** The longest text compared: menus and footers are short; a page's content rarely repeats whole. */
const MAX_TEXT = 2000;

const sigOf = (e: El) => `${tagOf(e)}#${e.attr('id') ?? ''}.${(e.attr('class') ?? '').split(/\s+/).filter(Boolean).sort().join('.')}`;

/** (The parent by tag and id only: <body>'s classes often name the page, `class="wiki rpage-wiki"`.) */
function keyOf(e: El): string | null {
  const t = templateText(e.text());
  const p = e.parent();
  return t && t.length <= MAX_TEXT ? `${tagOf(p)}#${p.attr('id') ?? ''}>${sigOf(e)}:${t}` : null;
}

/** The elements of `$`'s page (the topmost of each template subtree) that the other pages also print. */
export function templateElements($: cheerio.CheerioAPI, otherPages: string[]): Set<unknown> {
  const out = new Set<unknown>();
  if (!otherPages.length) return out;
  const keys = new Set<string>();
  for (const html of otherPages) {
    const o = cheerio.load(html);
    o('body *').each((_, e) => {
      const k = keyOf(o(e));
      if (k) keys.add(k);
    });
  }
  const walk = (e: El) => {
    e.children().each((_, c) => {
      const k = keyOf($(c));
      if (k && keys.has(k)) out.add(c);
      else walk($(c));
    });
  };
  walk($('body'));
  return out;
}

/**
 * Length of `e`'s text outside `skip` (a selector: scripts, navigation…) and outside template
 * elements: how much of the page's own content it holds.
 */
export function contentLength($: cheerio.CheerioAPI, e: El, skip: string, template: Set<unknown>): number {
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
