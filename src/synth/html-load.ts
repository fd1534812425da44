// One parse per recorded page during a synthesis: its stages read the same pages again and again
// (sign-in forms, producers of each traced value, paging links, output rules), and a single-page
// app's first page can be megabytes (TiddlyWiki's 2.7 MB, parsed eight times, spent seconds in the
// garbage collector). The cache lives only while `synthesize` runs (it is synchronous) and holds
// the documents as parsed: callers read them and change only clones.
import * as cheerio from 'cheerio';

let cache: Map<string, cheerio.CheerioAPI> | null = null;

/** Runs `fn` with a parse cache for the pages it loads; the cache is dropped after. */
export function withParsedPages<T>(fn: () => T): T {
  if (cache) return fn();
  cache = new Map();
  try {
    return fn();
  } finally {
    cache = null;
  }
}

/** The page's document, parsed once per synthesis (outside one: parsed each time). Read-only. */
export function loadHtml(html: string): cheerio.CheerioAPI {
  if (!cache) return cheerio.load(html);
  let $ = cache.get(html);
  if (!$) {
    $ = cheerio.load(html);
    cache.set(html, $);
  }
  return $;
}
