// A record's page with lists about the record below it, each table under a heading of its own: a
// principal's "Group Memberships" and "Principal Collections" under its form (DAViCal), a host's
// services under its details. Each such table is returned beside the record's fields under its
// heading's name; another record's page has other rows there, or none (an empty list, not a
// failure). Tables before the record, inside it, in page chrome or without a heading are not its.
import type * as cheerio from 'cheerio';
import type { El, StructuralCandidate } from './html-dom.js';
import type { Thread } from './html-thread.js';
import { clean } from './dom-text.js';
import { argName } from './values.js';
import { visibleText } from '../runtime/worker/engines/extract.js';

const HEADINGS = 'h1, h2, h3, h4, h5, h6';

/** The tables after the record read from `root`, each under its own heading, among the page's list candidates. */
export function relatedLists($: cheerio.CheerioAPI, root: El, lists: StructuralCandidate[], taken: string[]): Thread[] {
  const node = root.get(0);
  if (!node) return [];
  const order = new Map(
    $('*')
      .toArray()
      .map((e, i) => [e, i]),
  );
  const at = order.get(node) ?? Number.POSITIVE_INFINITY;
  const names = new Set(taken);
  const out: Thread[] = [];
  const seen = new Set<unknown>();
  for (const s of lists) {
    if (s.kind !== 'list' || !s.main || s.records < 1 || s.fieldCount < 2 || s.extractor.all !== true) continue;
    const table = $(s.extractor.selector).first().closest('table');
    const t = table.get(0);
    if (!t || seen.has(t) || (order.get(t) ?? -1) < at || $.contains(node, t) || $.contains(t, node)) continue;
    // (Its heading: the nearest heading before it among its siblings, a few words.)
    const heading = clean(visibleText(table.prevAll(HEADINGS).first()));
    if (!heading || heading.split(/\s+/).length > 6) continue;
    seen.add(t);
    const name = argName(heading, names);
    out.push({ name, extractor: { ...s.extractor, required: false }, schema: s.schema });
  }
  return out;
}
