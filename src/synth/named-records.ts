// Writes addressed by a record an argument names, though they send none of the typed values: the
// person clicked "Disable" in the row of the host "Cider cellar", and the POST carries only its id
// (`hostids[0]=10563`), which the list page linked to from that row (html-record-link.ts) or a JSON
// list held in the record of that name (record-by-argument.ts). For the target's choice, such a
// write carries the argument (target.ts); the trace then reads the id by the argument.
import { linkedRecord } from './html-record-link.js';
import { isJson, isRead } from './normalize.js';
import { findIn } from './producers.js';
import { recordByArgument } from './record-by-argument.js';
import { idInName, parseJson, requestSlots } from './slots.js';
import type { ArgValue } from './substitute.js';
import type { Exchange } from './types.js';
import { looksRandom } from './values.js';

/** Exchange id → the argument examples (lower case) naming the record a write addresses. */
export function recordsNamed(all: Exchange[], args: ArgValue[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const named = args.filter((a) => a.example.trim().length >= 2);
  if (!named.length) return out;
  const byName = new Map(named.map((a) => [a.name, a.example.toLowerCase()]));
  const parsed = new Map<string, unknown>();
  const json = (y: Exchange) => (parsed.has(y.id) ? parsed.get(y.id) : parsed.set(y.id, parseJson(y.text)).get(y.id));
  for (const x of all) {
    if (isRead(x)) continue;
    const ids = requestSlots(x).filter(
      (s) =>
        s.where !== 'header' &&
        (/\d/.test(s.value) || looksRandom(s.value)) &&
        s.value.length <= 40 &&
        // (Not a value that carries an argument itself — `plum-30` — as a word of its own: a hash
        // that happens to hold the digits "30" is still an id.)
        !named.some((a) => holdsWord(s.value, a.example)),
    );
    // (An id in a field's NAME, a row's box `chk_7`, addresses its record as one in a value does.)
    const inNames = requestSlots(x)
      .filter((s) => s.where === 'form' || s.where === 'query')
      .map((s) => idInName(s.key)?.id)
      .filter((v): v is string => v !== undefined);
    if (!ids.length && !inNames.length) continue;
    const earlier = all.filter((y) => y.index < x.index).sort((a, b) => b.index - a.index);
    const found = new Set<string>();
    for (const v of inNames) {
      const linked = linkedRecord(earlier, v, named);
      if (linked) found.add(byName.get(linked.arg)!);
    }
    for (const s of ids) {
      const v = s.value;
      const linked = linkedRecord(earlier, v, named, s.where === 'form' || s.where === 'multipart' ? s.key : undefined);
      if (linked) found.add(byName.get(linked.arg)!);
      // (A record's key in a list keyed by id comes back from findIn as `$.torrents.<hash>~`.)
      for (const y of earlier) {
        if (linked || !isJson(y) || !y.text?.includes(v)) continue;
        const f = findIn(y, v, { strongOnly: true });
        const by = f?.extractor.from === 'json' ? recordByArgument(f.extractor, json(y), named) : null;
        if (by) {
          found.add(byName.get(by.arg)!);
          break;
        }
      }
    }
    if (found.size) out.set(x.id, [...found]);
  }
  // The confirmation a write asked for (Cacti's "Click 'Continue' to delete the following
  // Device(s)" form, a wizard's next page): the next write, sending a value that this write's
  // answer printed (the picked ids as one hidden field), is about the same record.
  const writes = all.filter((x) => !isRead(x)).sort((a, b) => a.index - b.index);
  writes.forEach((x, i) => {
    const prev = writes[i - 1];
    const names = prev && !out.has(x.id) ? out.get(prev.id) : undefined;
    const text = prev?.text ?? '';
    if (!names || !text) return;
    const printed = (v: string) => text.includes(v) || text.includes(v.replace(/&/g, '&amp;').replace(/"/g, '&quot;'));
    if (requestSlots(x).some((s) => s.where !== 'header' && s.value.length >= 3 && /\d/.test(s.value) && printed(s.value)))
      out.set(x.id, names);
  });
  return out;
}

/** Whether `value` holds `word` bounded by anything but letters and digits (case-folded). */
function holdsWord(value: string, word: string): boolean {
  const v = value.toLowerCase();
  const w = word.toLowerCase();
  for (let i = v.indexOf(w); i >= 0; i = v.indexOf(w, i + 1)) {
    const before = v[i - 1] ?? '';
    const after = v[i + w.length] ?? '';
    if (!/[a-z0-9]/.test(before) && !/[a-z0-9]/.test(after)) return true;
  }
  return false;
}
