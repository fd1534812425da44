// Small helpers the HTML stages share: a CSS string literal, whitespace-folded text, a tag name.
import type * as cheerio from 'cheerio';

/** A CSS string literal for an attribute selector (`[name="a\"b"]`). */
export const cssq = (s: string) => JSON.stringify(s);
/** Text with runs of whitespace folded to one space, trimmed (as a reader sees it). */
export const clean = (s: string) => s.replace(/\s+/g, ' ').trim();
/** The element's tag name, lower case ('' for a non-element). */
export const tagOf = (e: cheerio.Cheerio<any>) => (e.prop('tagName') ?? '').toLowerCase();

/** A slug or name as its words: lower case, separators as spaces ("Main_Page", "the-broken-fence" → "main page", "the broken fence"). */
export const unslug = (t: string) =>
  t
    .toLowerCase()
    .replace(/[-_+\s]+/g, ' ')
    .trim();
