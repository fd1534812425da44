// A record's page with its thread: the comments under a post, the replies under a message. When
// the result is the page's main content block and a list of records follows that block as its
// sibling (or its parent's), each record carrying prose of its own, the list belongs to the record:
// it is returned beside the record's fields, named after its container (`#comments` → comments).
// A list before the block, inside it, or of short entries (related links, tags) is not its thread.
import type * as cheerio from 'cheerio';
import type { CssExtractor } from '../formats/definition/types.js';
import type { Schema } from './schema-infer.js';
import { argName } from './values.js';
import { clean } from './dom-text.js';
import { classWords, type El, stableId, type StructuralCandidate } from './html-dom.js';
import { visibleText } from '../runtime/worker/engines/extract.js';

export interface Thread {
  name: string;
  extractor: CssExtractor;
  schema: Schema;
}

/** The thread of the record read from `block`, among the page's list candidates; null when none. */
export function threadOf($: cheerio.CheerioAPI, block: El, lists: StructuralCandidate[], taken: string[]): Thread | null {
  const after = [...block.nextAll().toArray(), ...block.parent().nextAll().toArray()];
  for (const s of lists) {
    if (s.kind !== 'list' || s.records < 2) continue;
    const records = $(s.extractor.selector);
    const box = records.first().parent();
    if (!records.length || !after.some((a) => a === box.get(0) || $.contains(a, box.get(0)!))) continue;
    // (Prose: a sentence or more in most records, not a link or a name each.)
    const prose = records.toArray().filter((r) => {
      const words = clean(visibleText($(r))).split(/\s+/).length;
      return words >= 8 && $(r).find('p, div, span, blockquote').length > 0;
    });
    if (prose.length * 2 < records.length) continue;
    const id = box.attr('id');
    const word = id && stableId(id) ? id : (classWords(box.attr('class'))[0] ?? 'items');
    return { name: argName(word, new Set(taken)), extractor: s.extractor, schema: s.schema };
  }
  return null;
}
