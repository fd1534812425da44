// Facts the synthesizer reads off a recording besides the traffic: argument values from the
// action log (or hints), the time of the last meaningful action, the page a login landed on, the
// list-then-detail second target, and small helpers for composing two targets' outputs.
import type { SynthAdvisor } from './advisor.js';
import { isHtml } from './normalize.js';
import type { buildOutput } from './output.js';
import { findIn } from './producers.js';
import type { ArgValue } from './substitute.js';
import type { Exchange, Hints, Recording } from './types.js';
import { argName, generatedName } from './values.js';
import { fractionalStep } from './arg-types.js';

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
    // (A script-built field may have no name, label or id, or one the script generated
    // (`input-8nb9bwpcu`): what it says to a person, its accessible name or placeholder
    // ("Search Items..."), names it then.)
    const t = a.target;
    const own = (n: string | null | undefined) => (n && !generatedName(n) ? n : null);
    const field = own(t?.name) ?? t?.label ?? own(t?.id) ?? t?.accessible_name ?? t?.placeholder ?? 'value';
    const key = a.target?.selectors?.[0]?.value ?? field;
    const prev = out.get(key);
    const name = prev?.name ?? advisor.nameArgument(argName(field, taken), { field, example: value, purpose });
    // A field edited again: the last value is its argument; the ones before it are kept aside (a
    // box that adds entries to a list one by one, or a typo corrected: `listEntries` tells).
    const earlier = prev && prev.example !== value ? [...(prev.earlier ?? []).filter((v) => v !== value), prev.example] : prev?.earlier;
    const fractional = a.type === 'fill' && fractionalStep(t?.step);
    out.set(key, { name, example: value, ...(earlier?.length ? { earlier } : {}), ...(fractional ? { fractional } : {}) });
  }
  return [...out.values()];
}

/**
 * A field that took several values in turn — a box whose "Add" appends each to a list (Unleash's
 * allowed values `north`, `south`) — gives an argument for each earlier value that a request sent
 * beside the last one (`value`, `value_2`, … in the order typed). An earlier value no request
 * sent with the last (a typo corrected before searching again) is dropped.
 */
export function listEntries(args: ArgValue[], xs: Exchange[], slotValues: (x: Exchange) => string[]): ArgValue[] {
  const names = new Set(args.map((a) => a.name));
  return args.flatMap(({ earlier, ...a }) => {
    if (!earlier?.length) return [a];
    const sent = xs.map(slotValues).filter((vals) => vals.includes(a.example));
    const kept = earlier.filter((v) => sent.some((vals) => vals.includes(v)));
    if (!kept.length) return [a];
    return [...kept, a.example].map((example, i) => {
      if (i === 0) return { name: a.name, example };
      let name = `${a.name}_${i + 1}`;
      for (let k = i + 2; names.has(name); k++) name = `${a.name}_${k}`;
      names.add(name);
      return { name, example };
    });
  });
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
