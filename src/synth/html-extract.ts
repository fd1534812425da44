// Stage 6b: an HTML target becomes CSS-selector extraction: a detail block of named fields
// (data-field / itemprop / data-prop / dd after dt), or a list of records from repeated rows.
// Values are typed from the recorded text so the output schema is useful.
import * as cheerio from 'cheerio';
import type { CssExtractor, CssField, ValueType } from '../runtime/definition/types.js';
import type { Schema } from './schema-infer.js';
import { stringFormat, typeOf } from './values.js';

export interface HtmlExtraction {
  kind: 'detail' | 'list';
  extractor: CssExtractor;
  schema: Schema;
  sample: unknown;
  why: string;
}

const FIELD_ATTRS = ['data-field', 'itemprop', 'data-prop'];
const cssq = (s: string) => JSON.stringify(s);

function typed(text: string): { type?: ValueType; schema: Schema; value: unknown } {
  const t = typeOf(text);
  if (t.type === 'integer') return { type: 'integer', schema: { type: 'integer' }, value: Number(text) };
  if (t.type === 'number') return { type: 'number', schema: { type: 'number' }, value: Number(text) };
  const f = stringFormat(text);
  return { schema: f && f !== 'uri' ? { type: 'string', format: f } : { type: 'string' }, value: text };
}

function fieldOf($: cheerio.CheerioAPI, el: cheerio.Cheerio<any>, selector: string | undefined): { field: CssField; schema: Schema; value: unknown } {
  const dt = el.attr('datetime');
  const text = dt ?? el.text().trim().replace(/\s+/g, ' ');
  const t = typed(text);
  const field: CssField = { ...(selector ? { selector } : {}), ...(dt ? { attr: 'datetime' } : {}), ...(t.type ? { type: t.type } : {}) };
  return { field, schema: t.schema, value: t.value };
}

/** Named fields in one block: `[data-field=x]` etc. */
function detail($: cheerio.CheerioAPI, hints: string[]): HtmlExtraction | null {
  for (const a of FIELD_ATTRS) {
    const els = $(`[${a}]`).filter((_, e) => $(e).closest('header, nav, form').length === 0);
    if (els.length < 1) continue;
    // The common container: the nearest ancestor with an id holding all fields.
    const first = els.first();
    const box = first.parents('[id]').filter((_, p) => $(p).find(`[${a}]`).length === els.length).first();
    const root = box.length ? `#${box.attr('id')}` : 'body';
    const fields: Record<string, CssField> = {};
    const props: Record<string, Schema> = {};
    const sample: Record<string, unknown> = {};
    els.each((_, e) => {
      const name = $(e).attr(a)!;
      if (fields[name]) return;
      const f = fieldOf($, $(e), `[${a}=${cssq(name)}]`);
      fields[name] = f.field;
      props[name] = f.schema;
      sample[name] = f.value;
    });
    if (hints.length && !hints.some((h) => Object.values(sample).some((v) => String(v).toLowerCase() === h.toLowerCase()))) continue;
    return {
      kind: 'detail',
      extractor: { from: 'css', selector: root, fields },
      schema: { type: 'object', properties: props, required: Object.keys(props) },
      sample,
      why: `HTML detail block ${root} with ${Object.keys(fields).length} [${a}] fields`,
    };
  }
  return null;
}

/** Repeated rows (same data-testid, or same tag+class under one parent) with a link or text. */
function list($: cheerio.CheerioAPI, hints: string[]): HtmlExtraction | null {
  const groups = new Map<string, cheerio.Cheerio<any>>();
  $('main [data-testid], body [data-testid]').each((_, e) => {
    const k = `[data-testid=${cssq($(e).attr('data-testid')!)}]`;
    if (!groups.has(k)) groups.set(k, $(k));
  });
  let best: { sel: string; els: cheerio.Cheerio<any> } | null = null;
  for (const [sel, els] of groups) {
    if (els.length < 2 || els.closest('header, nav').length) continue;
    const text = els.text().toLowerCase();
    if (hints.length && !hints.some((h) => text.includes(h.toLowerCase()))) continue;
    if (!best || els.length > best.els.length) best = { sel, els };
  }
  if (!best) return null;
  const row = best.els.first();
  const fields: Record<string, CssField> = {};
  const props: Record<string, Schema> = {};
  const sample: Record<string, unknown> = {};
  for (const [a, v] of Object.entries(row.attr() ?? {})) {
    if (!a.startsWith('data-') || a === 'data-testid') continue;
    const name = a.slice(5).replace(/-/g, '_');
    const t = typed(v);
    fields[name] = { attr: a, ...(t.type ? { type: t.type } : {}) };
    props[name] = t.schema;
    sample[name] = t.value;
  }
  const link = row.find('a[href]').first();
  if (link.length) {
    fields.name = { selector: 'a' };
    props.name = { type: 'string' };
    sample.name = link.text().trim();
    fields.url = { selector: 'a', attr: 'href' };
    props.url = { type: 'string' };
    sample.url = link.attr('href');
  }
  row.children('[class]').each((_, c) => {
    const cls = $(c).attr('class')!.split(/\s+/)[0];
    if (!cls || fields[cls] || $(c).is('a')) return;
    const f = fieldOf($, $(c), `.${cls}`);
    fields[cls] = { ...f.field, required: false };
    props[cls] = f.schema;
    sample[cls] = f.value;
  });
  if (!Object.keys(fields).length) fields.text = {};
  return {
    kind: 'list',
    extractor: { from: 'css', selector: best.sel, all: true, required: false, fields },
    schema: { type: 'array', items: { type: 'object', properties: props, required: Object.keys(props).filter((k) => fields[k].required !== false) } },
    sample: [sample],
    why: `${best.els.length} repeated rows ${best.sel}`,
  };
}

export function extractHtml(html: string, hints: string[] = []): HtmlExtraction | null {
  const $ = cheerio.load(html);
  return detail($, hints) ?? list($, hints) ?? detail($, []) ?? list($, []);
}

/** The element that marks a login page (a form with a password or one-time-code input). */
export function loginPageMarkers(html: string): string[] {
  const $ = cheerio.load(html);
  const out: string[] = [];
  $('form').each((_, f) => {
    const form = $(f);
    if (!form.find('input[type=password], input[autocomplete=one-time-code]').length) return;
    const id = form.attr('id');
    out.push(id ? `#${id}` : form.attr('action') ? `form[action=${cssq(form.attr('action')!)}]` : 'form input[type=password]');
  });
  return out;
}
