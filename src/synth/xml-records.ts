// Stage 6c: an XML target (a feed, a WebDAV multistatus, a SOAP or XML-API answer) becomes an `xml`
// extractor: the element that repeats is a record (RSS `item`, Atom `entry`, DAV `response`), and
// the elements inside it that hold text (or one attribute: Atom's `<link href>`) are its fields,
// named by their local names and typed from the recorded text. One record and nothing repeating:
// the document's text elements are the fields of one record.
import * as cheerio from 'cheerio';
import type { CssField, XmlExtractor } from '../formats/definition/types.js';
import { typed } from './html-dom.js';
import type { Schema } from './schema-infer.js';
import { argName } from './values.js';

export interface XmlExtraction {
  kind: 'detail' | 'list';
  extractor: XmlExtractor;
  schema: Schema;
  why: string;
}

type El = { tagName: string; attribs: Record<string, string>; children: unknown[]; parent: unknown };
const isEl = (n: unknown): n is El => !!n && typeof n === 'object' && (n as { type?: string }).type === 'tag';
const kids = (el: El) => el.children.filter(isEl);
/** A tag name in a selector (`C:calendar-description` → `C\:calendar-description`). */
const sel = (tag: string) => tag.replace(/([^\w-])/g, '\\$1');
const local = (tag: string) => tag.slice(tag.indexOf(':') + 1);

/** The path of tag names from the root down to `el` (a selector). */
function pathOf(el: El): string {
  const out: string[] = [];
  for (let n: unknown = el; isEl(n); n = n.parent) out.unshift(sel(n.tagName));
  return out.join(' > ');
}

/** Leaf elements under `el`, by their path from it: text, or the single attribute of an empty one. */
function leaves(el: El, $: cheerio.CheerioAPI, at: string[] = [], out = new Map<string, { attr?: string; values: string[] }>()) {
  for (const k of kids(el)) {
    const path = [...at, sel(k.tagName)];
    if (kids(k).length) {
      leaves(k, $, path, out);
      continue;
    }
    const text = $(k as any)
      .text()
      .trim();
    const attrs = Object.keys(k.attribs).filter((a) => !a.startsWith('xmlns'));
    const key = path.join(' > ');
    const slot = out.get(key) ?? { values: [] };
    if (text) slot.values.push(text);
    else if (attrs.length === 1) {
      slot.attr = attrs[0];
      slot.values.push(k.attribs[attrs[0]!]!);
    }
    out.set(key, slot);
  }
  return out;
}

/** The largest group of same-named siblings that hold elements (the records), preferring one holding hinted values. */
function recordGroup(root: El, $: cheerio.CheerioAPI, hints: string[]): El[] | null {
  const groups: El[][] = [];
  const walk = (el: El) => {
    const byName = new Map<string, El[]>();
    for (const k of kids(el)) byName.set(k.tagName, [...(byName.get(k.tagName) ?? []), k]);
    for (const g of byName.values()) if (g.length >= 2 && g.some((k) => kids(k).length)) groups.push(g);
    kids(el).forEach(walk);
  };
  walk(root);
  const text = (k: El) => $(k as any).text();
  const holds = (g: El[]) => hints.filter((h) => g.some((k) => text(k).includes(h))).length;
  groups.sort((a, b) => holds(b) - holds(a) || b.length - a.length);
  return groups[0] ?? null;
}

/** Fields for records `els`, keyed by local names (a repeated one is told apart by its parent's). */
function fieldsOf(els: El[], $: cheerio.CheerioAPI): { fields: Record<string, CssField>; schema: Schema } | null {
  const all = new Map<string, { attr?: string; values: string[] }>();
  for (const el of els)
    for (const [k, v] of leaves(el, $)) {
      const slot = all.get(k) ?? { values: [] };
      slot.values.push(...v.values);
      slot.attr ??= v.attr;
      all.set(k, slot);
    }
  const fields: Record<string, CssField> = {};
  const properties: Record<string, Schema> = {};
  const taken = new Set<string>();
  for (const [path, { attr, values }] of all) {
    if (!values.length) continue; // (empty everywhere: a marker, or a property the server didn't have)
    const parts = path.split(' > ').map((p) => local(p.replace(/\\/g, '')));
    const raw = taken.has(argName(parts.at(-1)!, new Set())) && parts.length > 1 ? `${parts.at(-2)} ${parts.at(-1)}` : parts.at(-1)!;
    const name = argName(raw, taken);
    taken.add(name);
    const types = values.map((v) => typed(v));
    const same = types.every((t) => t.type === types[0]!.type && JSON.stringify(t.schema) === JSON.stringify(types[0]!.schema));
    const t = same ? types[0]! : { type: undefined, schema: { type: 'string' } };
    // (`:not(:empty)`: a WebDAV answer lists the properties it lacks as empty elements beside the ones it has.)
    fields[name] = {
      selector: attr ? path : `${path}:not(:empty)`,
      ...(attr ? { attr } : {}),
      ...(t.type ? { type: t.type } : {}),
      required: false,
    };
    properties[name] = { ...t.schema, type: [t.schema.type, 'null'] };
  }
  if (!Object.keys(fields).length) return null;
  return { fields, schema: { type: 'object', properties } };
}

export function extractXml(text: string, hints: string[]): XmlExtraction | null {
  let $: cheerio.CheerioAPI;
  try {
    $ = cheerio.load(text, { xml: true });
  } catch {
    return null;
  }
  const root = $.root().children().toArray().find(isEl) as El | undefined;
  if (!root) return null;
  const group = recordGroup(root, $, hints);
  if (group) {
    const f = fieldsOf(group, $);
    if (f)
      return {
        kind: 'list',
        extractor: { from: 'xml', selector: pathOf(group[0]!), all: true, required: false, fields: f.fields },
        schema: { type: 'array', items: f.schema },
        why: `XML records ${pathOf(group[0]!)} (${group.length} recorded), fields from their text elements`,
      };
  }
  const f = fieldsOf([root], $);
  return f
    ? {
        kind: 'detail',
        extractor: { from: 'xml', selector: sel(root.tagName), fields: f.fields },
        schema: f.schema,
        why: `XML document ${root.tagName}, fields from its text elements`,
      }
    : null;
}
