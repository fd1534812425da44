// A hinted argument given as the choice a person reads in a drop-down or a radio group ("Closed")
// while the site sends the option's code (`status_id=5`): the recorded pages' <select> (or radio
// buttons) that offers that label, and
// a later request that sent its code under the select's name, make the argument a choice. The plan
// matches the code; the templates translate with `choose:[[label, code], …]`, so a caller gives
// either the label (as the person did) or the code.
import { loadHtml } from './html-load.js';
import { isHtml } from './normalize.js';
import { requestSlots } from './slots.js';
import type { ArgValue } from './substitute.js';
import { requestText } from './target.js';
import type { Exchange } from './types.js';

export interface Choice {
  /** What the person gave (the label). */
  label: string;
  /** What the site sent for it. */
  code: string;
  /** Every option of the drop-down: [label, code]. */
  table: [string, string][];
}

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();
const bareName = (n: string) => n.replace(/\[\]$/, '');
/** A field sent under the drop-down's name, or under a name that holds it (`v[status_id][]` for a
 * script's `status_id` list). */
const sentAs = (key: string, name: string) => bareName(key) === bareName(name) || key.split(/[[\]]+/).includes(name);

/** The recorded pages' named drop-downs and radio groups, each with its choices ([label, code])
 * and the page's place in the recording. */
function dropDowns(xs: Exchange[]): { index: number; name: string; table: [string, string][] }[] {
  // (Kept only what a template's filter can carry: no `|` or `}` in it.)
  const carried = (table: [string, string][]) => table.filter(([l, c]) => l && !/[|}]/.test(l + c));
  return xs
    .filter((x) => isHtml(x) && x.text && /<select[\s>]|type=["']?radio|<script/i.test(x.text))
    .flatMap((page) => {
      const $ = loadHtml(page.text!);
      const selects = $('select[name]')
        .toArray()
        .map((sel) => ({
          index: page.index,
          name: $(sel).attr('name')!,
          table: carried(
            $(sel)
              .find('option')
              .toArray()
              .map((o) => [clean($(o).text()), $(o).attr('value') ?? clean($(o).text())] as [string, string]),
          ),
        }));
      // A radio button's label: a <label for> naming it, the <label> around it, else the text right after it.
      const labelOf = (r: ReturnType<typeof $>) => {
        const id = r.attr('id');
        const byFor = id ? $('label').filter((_, l) => $(l).attr('for') === id) : null;
        if (byFor?.length) return clean(byFor.first().text());
        const around = r.closest('label');
        if (around.length) return clean(around.text());
        const next = r[0]?.nextSibling;
        return next && next.type === 'text' ? clean(next.data) : '';
      };
      const groups = new Map<string, [string, string][]>();
      $('input[type=radio][name]').each((_, el) => {
        const r = $(el);
        const list = groups.get(r.attr('name')!) ?? groups.set(r.attr('name')!, []).get(r.attr('name')!)!;
        list.push([labelOf(r), r.attr('value') ?? 'on']);
      });
      const radios = [...groups].map(([name, table]) => ({ index: page.index, name, table: carried(table) }));
      return [...selects, ...radios, ...scriptMenus(page.text!).map((m) => ({ index: page.index, name: m.name, table: carried(m.table) }))];
    });
}

/**
 * Drop-downs a page's script builds from data in the page: a list of [label, code] pairs under a
 * named object (Redmine's filters: `"status_id":{…,"values":[["New","1"],["In Progress","2"]]}`,
 * from which its script makes the `v[status_id][]` select). Named by that object's key.
 */
function scriptMenus(html: string): { name: string; table: [string, string][] }[] {
  const out: { name: string; table: [string, string][] }[] = [];
  const PAIRS = /\[(?:\s*\[\s*"(?:[^"\\]|\\.)*"\s*,\s*"(?:[^"\\]|\\.)*"\s*\]\s*,?){2,}\s*\]/g;
  for (const script of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/gi) ?? []) {
    for (const m of script.matchAll(PAIRS)) {
      // (The object the list is in: the last key before it that opens one, close by.)
      const before = script.slice(Math.max(0, m.index! - 300), m.index);
      const name = [...before.matchAll(/"([\w-]+)"\s*:\s*\{/g)].at(-1)?.[1];
      if (!name) continue;
      try {
        out.push({ name, table: (JSON.parse(m[0]) as [string, string][]).map(([l, c]) => [clean(l), c]) });
      } catch {
        // (not JSON after all)
      }
    }
  }
  return out;
}

export function choicesOf(xs: Exchange[], args: ArgValue[]): Map<string, Choice> {
  const out = new Map<string, Choice>();
  const texts = xs.map(requestText);
  const unsent = args.filter((a) => {
    const label = clean(a.example).toLowerCase();
    return label.length >= 2 && !texts.some((t) => t.includes(label));
  });
  if (!unsent.length) return out;
  const menus = dropDowns(xs);
  for (const a of unsent) {
    const label = clean(a.example).toLowerCase();
    for (const m of menus) {
      const hit = m.table.find(([l, c]) => l.toLowerCase() === label && c !== l);
      const sent = hit && xs.some((x) => x.index > m.index && requestSlots(x).some((s) => sentAs(s.key, m.name) && s.value === hit[1]));
      if (sent) {
        out.set(a.name, { label: a.example, code: hit[1], table: m.table });
        break;
      }
    }
  }
  return out;
}

/** The definition with every `{{args.<name>…}}` of a choice translated by `choose` first. */
export function withChoices<T extends { meta?: unknown }>(def: T, choices: Map<string, Choice>): T {
  if (!choices.size) return def;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let s = v;
      for (const [name, c] of choices)
        s = s.replace(
          new RegExp(`\\{\\{\\s*args\\.${name}\\s*(\\||\\}\\})`, 'g'),
          (_m, end: string) => `{{args.${name} | choose:${JSON.stringify(c.table)}${end === '|' ? ' |' : '}}'}`,
        );
      return s;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  // (meta notes what was recorded, not templates)
  return { ...(walk({ ...def, meta: undefined }) as T), meta: def.meta };
}
