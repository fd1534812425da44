// Facts the synthesizer reads off a recording besides the traffic: argument values from the
// action log (or hints), the time of the last meaningful action, the page a login landed on, the
// list-then-detail second target, and small helpers for composing two targets' outputs.
import type { SynthAdvisor } from './advisor.js';
import { isHtml } from './normalize.js';
import type { buildOutput } from './output.js';
import { findIn } from './producers.js';
import type { ArgValue } from './substitute.js';
import type { Exchange, Hints, Recording } from './types.js';
import { argName } from './values.js';

export function argumentValues(rec: Recording, hints: Hints, advisor: SynthAdvisor, purpose: string): ArgValue[] {
  if (hints.arguments && Object.keys(hints.arguments).length) {
    return Object.entries(hints.arguments).map(([name, v]) => ({ name, example: typeof v === 'string' ? v : JSON.stringify(v) }));
  }
  const taken = new Set<string>();
  const out = new Map<string, ArgValue>();
  for (const a of rec.actions) {
    let value: string | null = null;
    if (a.type === 'fill' && !a.secret && a.target?.type !== 'password' && a.target?.autocomplete !== 'one-time-code') value = a.value;
    if (a.type === 'select') value = a.values[0] ?? null;
    if (value === null || value.trim().length < 2) continue;
    // (A script-built field may have no name, label or id: what it says to a person, its
    // accessible name or placeholder ("Search Items..."), names it then.)
    const field = a.target?.name ?? a.target?.label ?? a.target?.id ?? a.target?.accessible_name ?? a.target?.placeholder ?? 'value';
    const key = a.target?.selectors?.[0]?.value ?? field;
    const name = out.get(key)?.name ?? advisor.nameArgument(argName(field, taken), { field, example: value, purpose });
    out.set(key, { name, example: value }); // a field edited again: the last value wins
  }
  return [...out.values()];
}

export const lastActionTime = (rec: Recording) => {
  const meaningful = rec.actions.filter((a) => a.type === 'submit' || a.type === 'click' || (a.type === 'key' && a.key === 'Enter'));
  return meaningful.length ? Date.parse(meaningful.at(-1)!.time) : null;
};

/** The page a login POST landed on, as its own GET (so a target is never inside the login chain). */
export function landing(x: Exchange): Exchange {
  return {
    ...x,
    id: `${x.id}~final`,
    after: x.id,
    index: x.index + 0.5,
    method: 'GET',
    url: x.finalUrl,
    body: null,
    reqCookies: x.setCookies.filter((c) => c.value).map((c) => ({ name: c.name, value: c.value })),
    reqHeaders: x.reqHeaders.filter((h) => /^accept$/i.test(h.name)),
    setCookies: [],
    hops: [],
  };
}

export const isPlainObject = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v);

/** Renames an output's extracts (and their uses in its result) so two targets don't collide. */
export function prefixed(o: ReturnType<typeof buildOutput>, p: string): ReturnType<typeof buildOutput> {
  const extract = Object.fromEntries(Object.entries(o.extract).map(([k, v]) => [`${p}${k}`, v]));
  const result = JSON.parse(JSON.stringify(o.result).replace(/\{\{vars\.([\w$-]+)/g, `{{vars.${p}$1`));
  return { ...o, extract, result };
}

/**
 * List-then-detail: a later data request whose URL carries an id that the target's response
 * listed (strong, id-like evidence only) joins as a second target.
 */
export function findDetail(list: Exchange, all: Exchange[], carriers: Set<string>): Exchange | null {
  // (A value the list's own request sent too — limit=25, page=1 — was not taken from the list.)
  const listUrl = new URL(list.url);
  const own = new Set([...listUrl.pathname.split('/'), ...listUrl.searchParams.values()]);
  for (const y of all) {
    if (y.index <= list.index || y.method !== 'GET' || carriers.has(y.id) || y.status >= 400 || !(isHtml(y) || /json/.test(y.mime)))
      continue;
    const u = new URL(y.url);
    const vals = [...u.pathname.split('/').filter((s) => /\d/.test(s)), ...[...u.searchParams.values()].filter((v) => /\d/.test(v))].filter(
      (v) => !own.has(v),
    );
    // (In a JSON answer the id must be one of a list's records: the id of the single record the
    // target answered with is that record's own, and a later call about it — its revision count —
    // is no detail of a list.)
    const listed = (v: string) => {
      const f = findIn(list, v, { strongOnly: true });
      return !!f && (f.extractor.from !== 'json' || /\[\d+\]/.test(f.extractor.path));
    };
    if (vals.some(listed)) return y;
  }
  return null;
}

export function flatValues(v: unknown): string[] {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v.flatMap(flatValues);
  if (typeof v === 'object') return Object.values(v as object).flatMap(flatValues);
  return [String(v)];
}
