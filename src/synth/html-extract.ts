// Stage 6b: an HTML target becomes CSS-selector extraction: a detail block of named fields
// (data-field / itemprop / data-prop / dd after dt), or a list of records from repeated rows.
// Values are typed from the recorded text so the output schema is useful.
import type * as cheerio from 'cheerio';
import { loadHtml, withParsedPages } from './html-load.js';
import type { CssExtractor, CssField } from '../formats/definition/types.js';
import type { Schema } from './schema-infer.js';
import { extractValue, View, visibleText } from '../runtime/worker/engines/extract.js';
import { nextPageLink, structuralCandidates } from './html-structure.js';
import { formRecords } from './html-form-record.js';
import { singleHits } from './html-single-hit.js';
import { clean, cssq, unslug } from './dom-text.js';
import { type El, renderedAnew, typed } from './html-dom.js';
import { type Thread, threadOf } from './html-thread.js';
import { relatedLists } from './html-related.js';

export interface HtmlExtraction {
  kind: 'detail' | 'list';
  extractor: CssExtractor;
  schema: Schema;
  sample: unknown;
  why: string;
  /** Read from label/value pairs (StructuralCandidate.labelled). */
  labelled?: boolean;
  /** The main content block read whole (StructuralCandidate.block). */
  block?: El;
  /** A record's thread, returned beside its fields (html-thread.ts). */
  thread?: Thread;
  /** Tables about the record below it, each under its heading, returned beside its fields (html-related.ts). */
  related?: Thread[];
}

const FIELD_ATTRS = ['data-field', 'itemprop', 'data-prop'];

function fieldOf(
  _$: cheerio.CheerioAPI,
  el: cheerio.Cheerio<any>,
  selector: string | undefined,
): { field: CssField; schema: Schema; value: unknown } {
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
    const box = first
      .parents('[id]')
      .filter((_, p) => $(p).find(`[${a}]`).length === els.length)
      .first();
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
    schema: {
      type: 'array',
      items: { type: 'object', properties: props, required: Object.keys(props).filter((k) => fields[k].required !== false) },
    },
    sample: [sample],
    why: `${best.els.length} repeated rows ${best.sel}`,
  };
}

export interface RankedExtraction extends HtmlExtraction {
  /** Hinted result values the rule does NOT produce on the recorded page. */
  missing: string[];
  /** The CSS selector of a next-page link, when the page has one. */
  next: string | null;
  /** Every candidate considered, best first (for the synthesis report). */
  considered: string[];
  /** The rule reads a block whole that is nearly all links: a menu, no record of anything. */
  menu?: boolean;
}

/**
 * Chooses the extraction rule for an HTML target. Candidates: the markup conventions above
 * (intentional, so preferred) and the structural ones (html-structure.ts). Each is RUN with the
 * runtime's own extractor on the recorded page; the hinted result values are ground truth (the
 * rule that produces most of them wins), then the values the person typed (search hits echo the
 * query), then size and place (main content over page chrome).
 */
export function extractHtml(
  html: string,
  hints: string[] = [],
  typed: string[] = [],
  prefer?: (kind: 'detail' | 'list', sample: unknown) => number, // the person's picks (picks.ts)
  otherPages: string[] = [], // the site's other recorded pages: what they share is template
  named?: string, // the argument the page's address ends with: the record the page is about
): RankedExtraction | null {
  // (One parse of the page for every rule: a record's thread is found beside the block another read.)
  return withParsedPages(() => chooseRule(html, hints, typed, prefer, otherPages, named));
}

function chooseRule(
  html: string,
  hints: string[],
  typed: string[],
  prefer: ((kind: 'detail' | 'list', sample: unknown) => number) | undefined,
  otherPages: string[],
  named: string | undefined,
): RankedExtraction | null {
  const $ = loadHtml(html);
  const view = new View({ url: 'http://recorded.invalid/', status: 200, text: html });
  const conv = [detail($, []), list($, [])].filter((c): c is HtmlExtraction => !!c);
  const cands: { c: HtmlExtraction; score: number; missing: string[] }[] = [];
  // echoes: whether a typed value the candidate shows counts for it — 'heading' only when its own
  // heading shows it, 'never' not even then.
  const consider = (c: HtmlExtraction, base: number, echoes: boolean | 'never' = true) => {
    let sample: unknown;
    try {
      sample = extractValue(c.extractor, view, 'synthesis');
    } catch {
      return; // a rule that fails on the very page it came from is no rule
    }
    const values = flatValues(sample).map((v) => v.toLowerCase());
    if (!values.some((v) => v.trim())) return;
    const exact = hints.filter((h) => values.includes(h.toLowerCase()));
    const inside = hints.filter((h) => !exact.includes(h) && values.some((v) => v.includes(h.toLowerCase())));
    const missing = hints.filter((h) => !exact.includes(h) && !inside.includes(h));
    // Words only, in text only: a typed number (an id) echoes everywhere, in the page's own links
    // ("/issues/31.atom"), dates and times. A link field is no text at all: every command link of
    // a record's page names the record (`cmd.cgi?host=orchard-db`), whatever list it is in.
    // (A list's entry that is nothing but a typed value — "-Payments" on the category page it
    // filters, a link that drops it — names the query: no hit that echoes it. Such a list, when
    // no other entry shows the value, is the menu it was chosen from, not what choosing it showed.)
    const entries = c.kind === 'list' && Array.isArray(sample) ? sample.filter((r) => !namesTyped(r, typed)) : [sample];
    const chooser = Array.isArray(sample) && entries.length < sample.length;
    const texts = flatValues(entries, true)
      .map((v) => v.toLowerCase())
      .filter((v) => !/^(https?:\/\/|\/|\?|#)/.test(v.trim()));
    // (A slug typed into the URL — "the-broken-fence", "Main_Page" — reads as the words it stands for.)
    const words = texts.map(unslug);
    const seen = typed.filter(
      (t) =>
        t.length >= 2 &&
        !/^\d+$/.test(t.trim()) &&
        (texts.some((v) => v.includes(t.toLowerCase())) || words.some((v) => v.includes(unslug(t)))),
    );
    // A page whose address ends with the record's key (`/printers/Orchard_Laser`) is that record:
    // its label/value block headed by the key is the result, not a list the page also shows (the
    // printer's jobs, each named after it — a list another record may not have at all).
    const title = c.kind === 'detail' && sample && typeof sample === 'object' ? (sample as { title?: unknown }).title : undefined;
    const headed = !!named && !!c.labelled && typeof title === 'string' && unslug(title).includes(unslug(named));
    // (A block is credited with an echo its list does not hold only when its own heading shows it:
    // the post a slug names.)
    const echoed =
      seen.length > 0 &&
      echoes !== 'never' &&
      (echoes || (typeof title === 'string' && seen.some((t) => unslug(title).includes(unslug(t)))));
    const score =
      (hints.length ? (100 * (exact.length + 0.6 * inside.length)) / hints.length : 0) +
      (echoed ? 10 : 0) +
      (headed ? 10 : 0) -
      (chooser && !seen.length ? 3 : 0) +
      base +
      (prefer?.(c.kind, sample) ?? 0);
    cands.push({ c: { ...c, sample }, score, missing });
  };
  for (const c of conv) consider(c, 30);
  const structural = structuralCandidates(html, otherPages, [formRecords, singleHits(typed)], typed);
  // (The longest list of records on the page, by its text: a page that is a third or more one
  // table is that table's, not an article — gitweb's directory listing under a path naming it.)
  const listText = Math.max(
    0,
    ...structural.filter((s) => s.kind === 'list' && s.records >= 3 && s.fieldCount >= 2).map((s) => s.text.length),
  );
  const shown = (sel: string) => clean(visibleText($(sel).first())).length;
  // (A lone row beside a list of several records — a search's summary, "Entries found: 4 … Filter
  // performed: gidNumber=10002" over its hits — restates the query: its echo is no hit's.)
  const several = structural.some((s) => s.kind === 'list' && s.main && s.records >= 3 && s.fieldCount >= 2);
  for (const s of structural) {
    const block = /main content block/.test(s.why);
    const size =
      s.kind === 'list'
        ? Math.min(s.records, 25) * 0.4 + Math.min(s.fieldCount, 8) * (s.records >= 3 ? 1 : 0.5)
        : block
          ? 1
          : Math.min(s.fieldCount, 12);
    // A typed value the whole block shows only outside that list (its heading, a breadcrumb) is no
    // echo of hits: the block as a whole gets no credit for it. A block of links under a heading (a
    // category's pages and its navigation) is a list page, whatever its heading says.
    consider(
      { kind: s.kind, extractor: s.extractor, schema: s.schema, sample: null, why: s.why, labelled: s.labelled, block: s.block },
      size + (s.main ? 5 : 0) + (s.bonus ?? 0),
      (block && linkDense($, s.extractor.selector)) || (several && s.kind === 'list' && s.records === 1 && !s.bonus)
        ? 'never'
        : !(block && listText * 3 >= shown(s.extractor.selector)),
    );
  }
  // (A stable sort: of equal scores the first candidate, in the page's order, wins — the list
  // right under the page's heading over another further down.)
  cands.sort((a, b) => b.score - a.score);
  const best = cands[0];
  if (!best) return null;
  const { block, ...chosen } = best.c;
  const own = Object.keys(best.c.extractor.fields ?? {});
  const thread = block ? threadOf($, block, structural, own) : null;
  const related = best.c.kind === 'detail' && !block ? relatedLists($, $(best.c.extractor.selector).first(), structural, own) : [];
  return {
    ...chosen,
    ...(thread ? { thread } : {}),
    ...(related.length ? { related } : {}),
    ...(block && linkDense($, best.c.extractor.selector) ? { menu: true } : {}),
    missing: best.missing,
    next: best.c.kind === 'list' ? nextPageLink($) : null,
    considered: cands.slice(0, 5).map((x) => `${Math.round(x.score)}: ${x.c.why}`),
  };
}

/** Whether the text of block `sel` below its headings is (nearly) all links' words: a page of links, not an article. */
function linkDense($: cheerio.CheerioAPI, sel: string): boolean {
  const block = $(sel).first();
  const len = (e: cheerio.Cheerio<any>) => e.toArray().reduce((n, x) => n + clean(visibleText($(x))).length, 0);
  const heads = block.find('h1, h2, h3');
  const text = len(block) - len(heads);
  const links = len(block.find('a[href]').filter((_, a) => !$(a).closest('h1, h2, h3').length));
  return text > 0 && links >= text * 0.8;
}

/** A record whose text, but for signs around it, is one of the typed values. */
const namesTyped = (record: unknown, typed: string[]): boolean => {
  const text = unslug(flatValues(record, true).join(' ')).replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  return typed.some((t) => unslug(t) === text);
};

/** Every leaf value of a sample; `textOnly` leaves out link fields (`x_url`, `url`). */
const flatValues = (v: unknown, textOnly = false): string[] =>
  v === null || v === undefined
    ? []
    : Array.isArray(v)
      ? v.flatMap((x) => flatValues(x, textOnly))
      : typeof v === 'object'
        ? Object.entries(v as object).flatMap(([k, x]) => (textOnly && /(^|_)url$/i.test(k) ? [] : flatValues(x, textOnly)))
        : [String(v)];

/** The element that marks a login page (a form with a password or one-time-code input). */
export function loginPageMarkers(html: string): string[] {
  const $ = loadHtml(html);
  const out: string[] = [];
  $('form').each((_, f) => {
    const form = $(f);
    if (!form.find('input[type=password], input[autocomplete=one-time-code]').length) return;
    // (As specific as the form allows: an admin page's own password form — a new mailbox's — is no
    // sign-in form. PostfixAdmin's has no id and an empty action, but a name.)
    // (Not an id the page renders anew on each load: Icinga Web's `form_login-kiepmntsqhfx`.)
    const id = renderedAnew($, form.attr('id')) ? undefined : form.attr('id');
    const name = form.attr('name');
    const action = form.attr('action');
    const pw = form.find('input[type=password]').first().attr('name');
    out.push(
      id
        ? `#${id}`
        : name
          ? `form[name=${cssq(name)}]`
          : action
            ? // (An action every form of the site shares — phpLDAPadmin's `cmd.php` — would mark an
              // editor's page too: the sign-in's own password field narrows it.)
              `form[action=${cssq(action)}]${pw ? `:has(input[type=password][name=${cssq(pw)}])` : ''}`
            : pw
              ? `form input[type=password][name=${cssq(pw)}]`
              : 'form input[type=password]',
    );
  });
  return out;
}
