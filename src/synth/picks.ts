// Picks (the live view's pick mode, docs/live-view.md): what the person pointed at on the page
// that shows the result. Their texts are ground-truth result values, exactly like hints.result
// (target choice, the winning rule, the "never an empty promise" check); and they steer the HTML
// rule choice (stage 7): a picked record (row, list item, card) → the list rule that yields it
// among its siblings; a value picked inside a record → the list rule carrying it as a field;
// a value picked outside any repeated structure → a detail rule producing it. Pure.
import type { PickAction } from '../formats/recording/types.js';
import type { Recording } from './types.js';

/** A rule candidate's bonus for matching the picks (0 = no opinion). */
export type RulePreference = (kind: 'detail' | 'list', sample: unknown) => number;

/** Bonus for the rule that yields a picked record among its siblings (decides between rules that all produce the values). */
export const RECORD_BONUS = 40;
/** Bonus for the rule producing a picked value as a field (of a detail block, or of every record). */
export const FIELD_BONUS = 25;
/** Extra when the list rule yields as many records as the person saw in the picked list. */
export const COUNT_BONUS = 10;

const SECRET = /\{\{secret:/;

export function picksOf(rec: Pick<Recording, 'actions'>): PickAction[] {
  return rec.actions.filter((a): a is PickAction => a.type === 'pick');
}

/** The text as a result value: trimmed; a plain number as the number prints ("12.50" → "12.5", as typed extraction yields it). */
export function pickValue(text: string | null | undefined): string | null {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  if (!t || SECRET.test(t)) return null;
  return /^-?\d+(\.\d+)?$/.test(t) && Number.isFinite(Number(t)) ? String(Number(t)) : t;
}

/**
 * Ground-truth result values: a picked value's text; for a picked record its first value text
 * (the one that tells it from its siblings, usually its title). The record's other values only
 * rank rules: a table may well drop a column the person saw, which is no broken promise.
 */
export function pickedResultValues(picks: PickAction[]): string[] {
  const out = picks.map((p) => pickValue(p.scope === 'record' ? (p.record?.values[0] ?? null) : p.text));
  return [...new Set(out.filter((v): v is string => !!v))];
}

const flat = (v: unknown): string[] =>
  v === null || v === undefined
    ? []
    : Array.isArray(v)
      ? v.flatMap(flat)
      : typeof v === 'object'
        ? Object.values(v as object).flatMap(flat)
        : [String(v).toLowerCase()];

const has = (values: string[], want: string) => values.some((x) => x === want || (want.length >= 4 && x.includes(want)));

/** The preference picks express over extraction rules, or undefined without picks. */
export function pickPreference(picks: PickAction[]): RulePreference | undefined {
  if (!picks.length) return undefined;
  return (kind, sample) => {
    const items = kind === 'list' && Array.isArray(sample) && sample.length >= 2 ? sample : null;
    const sized = (p: PickAction) => (items && p.list && items.length === p.list.count ? COUNT_BONUS : 0);
    let bonus = 0;
    for (const p of picks) {
      if (p.scope === 'record' && p.record) {
        const want = p.record.values.map((v) => pickValue(v)?.toLowerCase()).filter((v): v is string => !!v);
        if (!items || !want.length) continue;
        const cover = Math.max(...items.map((it) => want.filter((w) => has(flat(it), w)).length / want.length));
        if (cover >= 0.5) bonus += RECORD_BONUS + sized(p);
        continue;
      }
      const v = pickValue(p.text)?.toLowerCase();
      if (!v) continue;
      if (p.record) {
        if (items?.some((it) => has(flat(it), v))) bonus += FIELD_BONUS + sized(p);
      } else if (kind === 'detail' && has(flat(sample), v)) bonus += FIELD_BONUS;
    }
    return bonus;
  };
}

/** What meta.decisions says about the picks. */
export function pickDecision(picks: PickAction[]): Record<string, unknown> {
  return {
    count: picks.length,
    result_values: pickedResultValues(picks),
    records: picks.filter((p) => p.scope === 'record').length,
    values: picks.filter((p) => p.scope === 'value').length,
    used_for:
      'ground-truth result values (like hints.result); a picked record prefers the list rule yielding it and its siblings, a picked value the rule producing it as a field',
  };
}
