// An extractor's `where` and `select`: the record of a list that the run's arguments name
// (`{"title": "{{args.title}}"}`), then a value inside it. A connector recorded on one record and
// run on another must read the other's id, not the id at the recorded record's place in the list.
import { jsonPathValues } from '../../../lib/json-path.js';
import type { RecordWhere } from '../../../formats/definition/types.js';
import { dig, type Lookup, renderText, toText } from '../../../formats/definition/template.js';
import { RunFailure } from '../../shared/failure.js';

/** Loose equality for a name a person gave: case and runs of spacing don't count. */
const loose = (s: string) => s.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

const fieldOf = (record: unknown, key: string): unknown =>
  record !== null && typeof record === 'object' ? dig(record, key.split('.')) : undefined;

/**
 * The matches (a JSON list's records, or the objects a css/xml extractor's `fields` built) kept by
 * `x.where` (equal as text; else equal loosely), each read by `x.select`. `keys`: each match's own
 * key in the object or list that holds it, for `select: "~"`. `where` names the extractor in errors.
 */
export function recordsWhere(
  x: RecordWhere & { required?: boolean },
  matches: unknown[],
  lookup: Lookup | undefined,
  where: string,
  keys?: (string | number)[],
): unknown[] {
  // (Indexes into `matches`, so that a kept record's key is its own.)
  let kept = matches.map((_, i) => i);
  if (x.where) {
    if (!lookup) throw new Error(`${where}: where needs the run's values`);
    const want = Object.entries(x.where).map(([k, t]) => [k, renderText(t, lookup)] as const);
    const equal = (same: (a: string, b: string) => boolean) =>
      kept.filter((i) => want.every(([k, v]) => isValue(fieldOf(matches[i], k)) && same(toText(fieldOf(matches[i], k)), v)));
    const exact = equal((a, b) => a === b);
    kept = exact.length ? exact : equal((a, b) => loose(a) === loose(b));
    if (!kept.length && matches.length && x.required !== false) {
      const which = want.map(([k, v]) => `${k} = ${JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}…` : v)}`).join(', ');
      throw new RunFailure('invalid_input', `${where}: no record with ${which} among the ${matches.length} the site listed`, {
        retryable: false,
        // (not_found: a value the site doesn't hold, as a detail page's 404 is.)
        details: { extractor: where, records: matches.length, not_found: true },
      });
    }
  }
  if (x.select === '~') return kept.map((i) => keys?.[i]).filter((k) => k !== undefined);
  const records = kept.map((i) => matches[i]);
  if (x.select === undefined) return records;
  return records.flatMap((r) => (r !== null && typeof r === 'object' ? jsonPathValues(x.select!, r) : []));
}

const isValue = (v: unknown) => v !== undefined && v !== null && typeof v !== 'object';
