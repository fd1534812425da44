// An extractor's `where` and `select`: the record of a list that the run's arguments name
// (`{"title": "{{args.title}}"}`), then a value inside it. A connector recorded on one record and
// run on another must read the other's id, not the id at the recorded record's place in the list.
import { JSONPath } from 'jsonpath-plus';
import type { RecordWhere } from '../../../formats/definition/types.js';
import { dig, type Lookup, renderText, toText } from '../../../formats/definition/template.js';
import { RunFailure } from '../../shared/failure.js';

/** Loose equality for a name a person gave: case and runs of spacing don't count. */
const loose = (s: string) => s.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

const fieldOf = (record: unknown, key: string): unknown =>
  record !== null && typeof record === 'object' ? dig(record, key.split('.')) : undefined;

/**
 * The matches (a JSON list's records, or the objects a css/xml extractor's `fields` built) kept by `x.where` (equal as text; else equal loosely), each read by
 * `x.select`. `where` names the extractor in errors.
 */
export function recordsWhere(
  x: RecordWhere & { required?: boolean },
  matches: unknown[],
  lookup: Lookup | undefined,
  where: string,
): unknown[] {
  let kept = matches;
  if (x.where) {
    if (!lookup) throw new Error(`${where}: where needs the run's values`);
    const want = Object.entries(x.where).map(([k, t]) => [k, renderText(t, lookup)] as const);
    const exact = matches.filter((r) => want.every(([k, v]) => isValue(fieldOf(r, k)) && toText(fieldOf(r, k)) === v));
    kept = exact.length
      ? exact
      : matches.filter((r) => want.every(([k, v]) => isValue(fieldOf(r, k)) && loose(toText(fieldOf(r, k))) === loose(v)));
    if (!kept.length && matches.length && x.required !== false) {
      const which = want.map(([k, v]) => `${k} = ${JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}…` : v)}`).join(', ');
      throw new RunFailure('invalid_input', `${where}: no record with ${which} among the ${matches.length} the site listed`, {
        retryable: false,
        // (not_found: a value the site doesn't hold, as a detail page's 404 is.)
        details: { extractor: where, records: matches.length, not_found: true },
      });
    }
  }
  if (x.select === undefined) return kept;
  return kept.flatMap((r) =>
    r !== null && typeof r === 'object' ? (JSONPath({ path: x.select!, json: r, wrap: true }) as unknown[]) : [],
  );
}

const isValue = (v: unknown) => v !== undefined && v !== null && typeof v !== 'object';
