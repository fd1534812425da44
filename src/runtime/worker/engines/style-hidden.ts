// Elements a page hides with its own <style> rules: `div.tips { visibility: hidden }` (HAProxy's
// hover tooltips, shown by a `u:hover div.tips` rule), `.dropdown-menu { display: none }`. A reader
// sees none of their text until a hover or a script shows them, so it is no value of a record.
// Only the page's inline <style> elements are read (a linked stylesheet is not in the response),
// only top-level rules (not @media or @supports blocks), and only selectors without pseudo-classes:
// a `:hover` rule that shows the element again is what a reader does, not what the page shows.
import type * as cheerio from 'cheerio';

/** The elements of `node`'s document that its inline style rules hide (found once per document). */
export function styleHidden(node: cheerio.Cheerio<any>): Set<object> {
  let root = node.get(0);
  if (!root) return EMPTY;
  while (root.parent) root = root.parent;
  let set = byDocument.get(root);
  if (!set) byDocument.set(root, (set = findHidden(node)));
  return set;
}

const EMPTY = new Set<object>();
const byDocument = new WeakMap<object, Set<object>>();

function findHidden(node: cheerio.Cheerio<any>): Set<object> {
  const top = node.first().parents().last();
  const scope = top.length ? top : node.first();
  const css = scope
    .find('style')
    .add(scope.filter('style'))
    .toArray()
    .map((s) => (s.children ?? []).map((c: any) => c.data ?? '').join(''))
    .join('\n')
    .slice(0, 200_000);
  const selectors = hidingSelectors(css);
  if (!selectors.length) return EMPTY;
  const out = new Set<object>();
  for (const sel of selectors) {
    try {
      for (const el of scope.find(sel).add(scope.filter(sel)).toArray()) out.add(el);
    } catch {
      // (A selector cheerio cannot read — a vendor extension — hides nothing here.)
    }
  }
  return out;
}

const HIDES = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

/**
 * The selectors of a stylesheet's top-level rules that hide what they match (display: none,
 * visibility: hidden), without pseudo-classes or pseudo-elements; at most 200.
 */
export function hidingSelectors(css: string): string[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const out: string[] = [];
  let i = 0;
  while (i < text.length && out.length < 200) {
    const open = text.indexOf('{', i);
    if (open < 0) break;
    const prelude = text.slice(i, open).trim();
    // The block's end, nested blocks (@media) skipped whole.
    let depth = 1;
    let j = open + 1;
    for (; j < text.length && depth > 0; j++) {
      if (text[j] === '{') depth++;
      else if (text[j] === '}') depth--;
    }
    const body = text.slice(open + 1, j - 1);
    if (!prelude.startsWith('@') && !body.includes('{') && HIDES.test(body.trim()))
      for (const sel of prelude.split(',').map((s) => s.trim()))
        if (sel && !/[:{}]/.test(sel) && sel.length <= 200 && out.length < 200) out.push(sel);
    i = j;
  }
  return out;
}
