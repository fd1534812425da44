// Shared ground of the structural extractors (html-structure.ts, html-tables.ts, html-detail.ts):
// the candidate type, typed leaf schemas, structural selectors (never class names), and what counts
// as page chrome (hidden elements, <nav>/<aside>, menus named so).
import type * as cheerio from 'cheerio';
import type { CssExtractor, ValueType } from '../formats/definition/types.js';
import type { Schema } from './schema-infer.js';
import { argName, stringFormat, typeOf } from './values.js';
import { HIDDEN_TEXT, visibleText } from '../runtime/worker/engines/extract.js';
import { styleHidden } from '../runtime/worker/engines/style-hidden.js';
import { clean, tagOf } from './dom-text.js';

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
  /** A record read from label/value pairs (a detail block's, a two-column table's). */
  labelled?: boolean;
  /** The page's main content block, for the candidate that reads it whole (its thread: html-thread.ts). */
  block?: El;
}

export type El = cheerio.Cheerio<any>;

export const SKIP =
  'head, script, style, noscript, template, svg, nav, header, footer, aside, select, [role=navigation], [role=banner], [aria-hidden=true]';
/** An id that a template wrote (not a per-render counter or a hash). */
export const stableId = (id: string | undefined) =>
  !!id &&
  /^[A-Za-z][\w-]*$/.test(id) &&
  !/\d{3,}|[0-9a-f]{8,}/i.test(id) &&
  !/[-_:.]\d+([-_]|$)/.test(id) && // a record's own number (post-6, comment_12): data, not template
  !/^(ember|react|ng|vue|svelte|radix|headlessui|mui|rc)[-_]/i.test(id);
/**
 * Whether an id holds a token the page renders anew on every load (Icinga Web's
 * `form_login_username-kiepmntsqhfx`): a segment of 6 characters or more, after the first, shared
 * by three of the page's ids at least and found in none of its classes or text. Such an id is no
 * selector.
 */
export function renderedAnew($: cheerio.CheerioAPI, id: string | undefined): boolean {
  if (!id) return false;
  let tokens = RENDER_TOKENS.get($);
  if (!tokens) {
    const seen = new Map<string, number>();
    for (const i of new Set(
      $('[id]')
        .toArray()
        .map((e) => $(e).attr('id') ?? ''),
    ))
      for (const seg of new Set(i.split(/[-_:.]/).slice(1))) seen.set(seg, (seen.get(seg) ?? 0) + 1);
    // (A word the page also uses in its classes or text — `wrapper`, `section` — is its own.)
    const words = `${$('[class]')
      .toArray()
      .map((e) => $(e).attr('class'))
      .join(' ')} ${visibleText($('body'))}`.toLowerCase();
    tokens = new Set([...seen].filter(([t, n]) => n >= 3 && t.length >= 6 && !words.includes(t.toLowerCase())).map(([t]) => t));
    RENDER_TOKENS.set($, tokens);
  }
  return id.split(/[-_:.]/).some((seg) => tokens.has(seg));
}
const RENDER_TOKENS = new WeakMap<cheerio.CheerioAPI, Set<string>>();

/** The element's own text nodes (not its children's). */
export const ownText = (e: El) =>
  clean(
    e
      .contents()
      .toArray()
      .filter((n: any) => n.type === 'text')
      .map((n: any) => n.data ?? '')
      .join(' '),
  );

/** A recorded text's value type, schema and value: a number (not one written with a leading zero,
 * an id such as `007`), or a string with its format. */
export function typed(text: string): { type?: ValueType; schema: Schema; value: unknown } {
  const t = typeOf(text);
  if (t.type === 'integer' && !/^0\d/.test(text)) return { type: 'integer', schema: { type: 'integer' }, value: Number(text) };
  if (t.type === 'number') return { type: 'number', schema: { type: 'number' }, value: Number(text) };
  const f = stringFormat(text);
  return { schema: f && f !== 'uri' ? { type: 'string', format: f } : { type: 'string' }, value: text };
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
export function relPath(root: El, el: El): string {
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

/** Whether `e` is hidden from readers (HIDDEN_TEXT, or the page's own style rules), from one match of the selector per page. */
export function hidden($: cheerio.CheerioAPI, e: El): boolean {
  return hiddenSet($).has(e.get(0));
}
function hiddenSet($: cheerio.CheerioAPI): Set<unknown> {
  let set = hiddenSets.get($);
  if (!set) hiddenSets.set($, (set = new Set([...$(HIDDEN_TEXT).toArray(), ...styleHidden($.root())])));
  return set;
}
const hiddenSets = new WeakMap<object, Set<unknown>>();

/** Whether `e`, or an element around it below `top`, is hidden from readers (the page's hidden set). */
export function hiddenWithin($: cheerio.CheerioAPI, e: El, top: El): boolean {
  const set = hiddenSet($);
  const stop = top.get(0);
  for (let n: any = e.get(0); n && n !== stop && n.type !== 'root'; n = n.parent) if (set.has(n)) return true;
  return false;
}

/**
 * Whether `e` is folded away from readers: it, or an element around it, is hidden (HIDDEN_TEXT) —
 * unless that element holds most of the page's text. Some apps keep their whole content hidden
 * until their script has laid it out (Cacti's `<main style="display:none">`, faded in): that is
 * the page, not a part folded away. (Walks the node's ancestors against the page's hidden set.)
 */
export function foldedAway($: cheerio.CheerioAPI, e: El): boolean {
  const set = hiddenSet($);
  for (let n: any = e.get(0); n && n.type !== 'root'; n = n.parent) {
    if (!set.has(n)) continue;
    if (['script', 'style', 'template', 'noscript'].includes(n.name) || !holdsThePage($, n)) return true;
  }
  return false;
}
function holdsThePage($: cheerio.CheerioAPI, n: object): boolean {
  let known = pageHolders.get(n);
  if (known === undefined) {
    let page = pageTexts.get($);
    if (page === undefined) pageTexts.set($, (page = textLength($('body'))));
    pageHolders.set(n, (known = textLength($(n as any)) >= 0.5 * page));
  }
  return known;
}
const textLength = (e: El) => {
  const c = e.clone();
  c.find('script, style, template, noscript').remove();
  return clean(c.text()).length;
};
const pageTexts = new WeakMap<object, number>();
const pageHolders = new WeakMap<object, boolean>();

/** The first selector (relative to `root`, descendant) whose first match is `el`, else its tag path. */
export function shortRel(root: El, el: El, tries: string[]): string {
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
export const inMain = (e: El) => {
  if (e.closest('main, [role=main]').length) return true;
  // A page that marks its main content says where it is: what is outside (a "read more" grid of
  // other posts after the <main> article) is not. Else anything but the page's chrome is.
  if (marksMain(e)) return false;
  return (
    e.closest('article').length > 0 || !e.closest('header, nav, aside, footer, [role=navigation], [role=banner], [role=contentinfo]').length
  );
};

/** Whether `e`'s document has a <main> or role=main element (once per document). */
function marksMain(e: El): boolean {
  const top = e.parents().last();
  const doc = top.length ? top : e;
  let has = docsWithMain.get(doc.get(0));
  if (has === undefined) docsWithMain.set(doc.get(0), (has = doc.find('main, [role=main]').length > 0));
  return has;
}
const docsWithMain = new WeakMap<object, boolean>();

/**
 * The words of a class attribute that may name a value (`author`, `subject`, `size`): not layout or
 * styling (`col-md-3`, `text-left`, `nowrap`), nor a row's stripe or state (`odd`, `dark`, `active`),
 * nor the generic `list`. Used to name a value, never to select it.
 */
export function classWords(cls: string | undefined): string[] {
  return (cls ?? '')
    .split(/\s+/)
    .filter(
      (c) =>
        /^[a-z][a-z_-]{2,20}$/i.test(c) &&
        !/^(col|row|left|right|center|bold|small|big|flex|grid|p|m|text)([-_]|$)/i.test(c) &&
        !/^(odd|even|dark|light|alt|first|last|active|selected|current|hidden|nowrap|wrap|list|top|middle|bottom|align\w*)$/i.test(c),
    );
}

export function fieldName(raw: string, taken: Set<string>, fallback: string): string {
  let t = clean(raw)
    .replace(/[:*]+$/, '')
    .trim()
    .slice(0, 40);
  if (/^(#|no\.?|nr\.?|№)$/i.test(t)) t = 'id';
  return argName(t && /[a-z]/i.test(t) ? t : fallback, taken);
}

export function textWithoutChrome(_$: cheerio.CheerioAPI, e: El): number {
  const c = e.clone();
  c.find(SKIP).remove();
  return clean(c.text()).length;
}
