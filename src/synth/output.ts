// Stage 6: what the run returns. JSON targets: the whole body, the array that pagination
// collects, the subtree holding the example result values from hints, or the records a string of
// code in it passes to a function (call-records.ts); HTML targets: CSS
// extraction of a detail block or a list of records; downloads: the body text with its type.
// The output schema is inferred from every recorded sample of the target endpoint.
import type { Extractor, JsonTemplate } from '../formats/definition/types.js';
import { extractValue, View } from '../runtime/worker/engines/extract.js';
import { callRecords } from './call-records.js';
import { extractHtml } from './html-extract.js';
import { outcomeMessage } from './html-outcome.js';
import { isHtml, isJson, isXml, resHeader } from './normalize.js';
import { inferMerged, inferSchema, labelSets, nullableFields, type Schema } from './schema-infer.js';
import { jp, jsonLeaves, parseJson, recordsPath } from './slots.js';
import { isDownload } from './target.js';
import { extractXml } from './xml-records.js';
import type { Exchange } from './types.js';
import type { RulePreference } from './picks.js';

export interface Output {
  extract: Record<string, Extractor>;
  result: JsonTemplate;
  schema: Schema;
  why: string;
  kind: 'json' | 'download' | 'html' | 'xml' | 'id' | 'none';
  /** Hinted result values the chosen rule does not produce on the recorded response. */
  missing?: string[];
  /** HTML: the other rules considered, best first (for meta.notes). */
  considered?: string[];
}

/** Deepest common prefix of the paths holding the hinted values; array indices become [*]. */
function projection(body: unknown, hints: string[]): (string | number | '*')[] | null {
  if (!hints.length) return null;
  const leaves = jsonLeaves(body);
  const paths = hints
    .map((h) => leaves.find((l) => String(l.value).toLowerCase() === h.toLowerCase())?.path)
    .filter((p): p is (string | number)[] => !!p);
  if (!paths.length) return null;
  const common: (string | number)[] = [];
  for (let i = 0; paths.every((p) => i < p.length - 1 && p[i] === paths[0][i]); i++) common.push(paths[0][i]);
  // Values in one record of a list: project onto the list, not onto the one record.
  const idx = paths[0].findIndex((p) => typeof p === 'number');
  if (idx >= 0 && idx <= common.length) return [...paths[0].slice(0, idx), '*'];
  return common;
}

const dig = (v: any, path: (string | number)[]) => path.reduce((a, k) => (a == null ? a : a[k]), v);

export interface OutputContext {
  /** The values the person typed (search hits echo the query). */
  typed?: string[];
  /** The argument the target's address ends with (`/printers/{printer}`): the page is that record's. */
  named?: string;
  /** The person's picks (picks.ts). */
  prefer?: RulePreference;
  /** The site's other recorded HTML pages: what they share with the target is its template. */
  otherPages?: string[];
  /** The target changes data: a landing list's status message is its outcome (html-outcome.ts). */
  write?: boolean;
  /** Every other recorded page of the site (a message they also show is a banner, not an outcome). */
  sitePages?: string[];
  /** A write answered with a bare id: the field a later request sent it as (`attachment_id`). */
  idSentAs?: string;
}

/** A write's answer that is one bare id (WordPress's async upload answers `25`), or null. */
export function bareId(text: string | undefined): string | null {
  const t = (text ?? '').trim();
  return /^\d{1,18}$/.test(t) || /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(t) ? t : null;
}

export function buildOutput(samples: Exchange[], paging: boolean, resultHints: string[], ctx: OutputContext = {}): Output {
  const { typed = [], prefer, otherPages = [], named } = ctx;
  const t = samples[0];
  if (isJson(t)) {
    const bodies = samples.map((s) => parseJson(s.text)).filter((b) => b !== undefined);
    const proj = projection(bodies[0], resultHints);
    // Records the answer carries as code for the page to run (calls with JSON arguments in a string).
    const calls = paging || proj ? null : callRecords(bodies[0], t.text ?? '', [...resultHints, ...typed]);
    if (calls)
      return {
        extract: { items: { ...calls.extractor, note: calls.why } },
        result: { items: '{{vars.items}}' },
        schema: { type: 'object', properties: { items: calls.schema }, required: ['items'] },
        kind: 'json',
        why: calls.why,
      };
    const rec = recordsPath(bodies[0]);
    if (paging || (proj && proj.at(-1) === '*')) {
      const base = proj && proj.at(-1) === '*' ? (proj.slice(0, -1) as (string | number)[]) : (rec?.path ?? []);
      const items = bodies.flatMap((b) => (dig(b, base) as unknown[]) ?? []);
      return {
        extract: { items: { from: 'json', path: `${jp(base)}[*]`, all: true, required: false, note: 'records of every page' } },
        result: { items: '{{vars.items}}' },
        schema: {
          type: 'object',
          properties: { items: labelSets({ type: 'array', items: nullableFields(inferMerged(items)) }) },
          required: ['items'],
        },
        kind: 'json',
        why: `records at ${jp(base)}[*]${paging ? ' collected over every page' : ''}${proj ? ' (projected onto the hinted result values)' : ''}`,
      };
    }
    const path = (proj ?? []) as (string | number)[];
    const sub = bodies.map((b) => dig(b, path));
    const schema = labelSets(nullableFields(inferMerged(sub)));
    const isObj = schema.type === 'object';
    return {
      extract: {
        data: { from: 'json', path: jp(path), note: `the response body${path.length ? ' subtree holding the hinted values' : ''}` },
      },
      result: isObj ? '{{vars.data}}' : { data: '{{vars.data}}' },
      schema: isObj ? schema : { type: 'object', properties: { data: schema }, required: ['data'] },
      kind: 'json',
      why: `JSON ${jp(path)} of the target response`,
    };
  }
  if (isDownload(t) && !isHtml(t)) {
    const ct = (resHeader(t, 'content-type') ?? t.mime) || 'application/octet-stream';
    const name = /filename="?([^";]+)"?/i.exec(resHeader(t, 'content-disposition') ?? '')?.[1] ?? 'download';
    return {
      extract: { content: { from: 'body', note: 'the downloaded document' } },
      result: { filename: name, content_type: ct.split(';')[0], content: '{{vars.content}}' },
      schema: {
        type: 'object',
        properties: { filename: { type: 'string' }, content_type: { type: 'string' }, content: { type: 'string' } },
        required: ['filename', 'content_type', 'content'],
      },
      kind: 'download',
      why: `download ${name} (${ct})`,
    };
  }
  if (isHtml(t) && t.text) {
    const h = extractHtml(t.text, resultHints, typed, prefer, otherPages, named);
    // A write answered by a list (a redirect back to it) with a status message: the message is the
    // outcome, not the list's first page. A detail page (the record made) stays the result.
    // (A write redirected back to the URL it was posted to — the form's own page, now with a
    // message — has made no page of its own: that page's text is no detail of what was made. Nor
    // is a page whose only block of text is its menu: DAViCal's "Principal deleted." under it.)
    const backToForm = t.hops.length > 0 && sameResource(t.url, t.finalUrl);
    const said =
      ctx.write && !resultHints.length && (h?.kind !== 'detail' || backToForm || h.menu)
        ? outcomeMessage(t.text, ctx.sitePages ?? otherPages, t.finalUrl)
        : null;
    if (said)
      return {
        extract: said.extract,
        result: said.result,
        schema: said.schema,
        why: `the site's message after the write (${JSON.stringify(said.text.slice(0, 80))})`,
        kind: 'html',
        ...(h ? { considered: h.considered } : {}),
      };
    if (h) {
      const ex: Extractor = { ...h.extractor, note: h.why };
      const extra = { missing: h.missing, considered: h.considered };
      if (h.kind === 'detail' && h.thread) {
        // The record's fields, then its thread (a post's comments) under the name of its container.
        const { name, extractor, schema } = h.thread;
        const own = Object.keys(h.extractor.fields ?? {});
        const record = h.schema as { properties: Record<string, Schema>; required?: string[] };
        return {
          extract: { record: ex, thread: { ...extractor, note: `the record's ${name}` } },
          result: { ...Object.fromEntries(own.map((k) => [k, `{{vars.record.${k}}}`])), [name]: '{{vars.thread}}' },
          schema: {
            type: 'object',
            properties: { ...record.properties, [name]: schema },
            required: [...(record.required ?? []), name],
          },
          why: `${h.why}, with its ${name}`,
          kind: 'html',
          ...extra,
        };
      }
      if (h.kind === 'detail' && h.related?.length) {
        // The record's fields, then each table about it under its heading's name (html-related.ts).
        const own = Object.keys(h.extractor.fields ?? {});
        const record = h.schema as { properties: Record<string, Schema>; required?: string[] };
        const lists = Object.fromEntries(h.related.map((l) => [l.name, { ...l.extractor, note: `the record's ${l.name}` }]));
        return {
          extract: { record: ex, ...lists },
          result: {
            ...Object.fromEntries(own.map((k) => [k, `{{vars.record.${k}}}`])),
            ...Object.fromEntries(h.related.map((l) => [l.name, `{{vars.${l.name}}}`])),
          },
          schema: {
            type: 'object',
            properties: { ...record.properties, ...Object.fromEntries(h.related.map((l) => [l.name, l.schema])) },
            required: [...(record.required ?? []), ...h.related.map((l) => l.name)],
          },
          why: `${h.why}, with its ${h.related.map((l) => l.name).join(', ')}`,
          kind: 'html',
          ...extra,
        };
      }
      if (h.kind === 'detail')
        return { extract: { record: ex }, result: '{{vars.record}}', schema: h.schema, why: h.why, kind: 'html', ...extra };
      // A next-page link is returned with the records (links as fields): the caller can follow it.
      const next: Record<string, Extractor> = h.next
        ? { next_page_url: { from: 'css', selector: h.next, attr: 'href', required: false, note: 'link to the next page of results' } }
        : {};
      return {
        extract: { items: ex, ...next },
        result: { items: '{{vars.items}}', ...(h.next ? { next_page_url: '{{vars.next_page_url}}' } : {}) },
        schema: {
          type: 'object',
          properties: { items: h.schema, ...(h.next ? { next_page_url: { type: ['string', 'null'] } as Schema } : {}) },
          required: ['items'],
        },
        why: h.why,
        kind: 'html',
        ...extra,
      };
    }
  }
  const xml = isXml(t) && t.text ? extractXml(t.text, resultHints) : null;
  if (xml) {
    const ex: Extractor = { ...xml.extractor, note: xml.why };
    return xml.kind === 'detail'
      ? { extract: { record: ex }, result: '{{vars.record}}', schema: xml.schema, why: xml.why, kind: 'xml' }
      : {
          extract: { items: ex },
          result: { items: '{{vars.items}}' },
          schema: { type: 'object', properties: { items: xml.schema }, required: ['items'] },
          why: xml.why,
          kind: 'xml',
        };
  }
  const id = ctx.write ? bareId(t.text) : null;
  if (id) {
    // (The id of what the write made: its name is the field the page then sent it as.)
    const name = ctx.idSentAs && /^[A-Za-z_][A-Za-z0-9_]{0,60}$/.test(ctx.idSentAs) ? ctx.idSentAs : 'id';
    const numeric = /^\d+$/.test(id);
    return {
      extract: {
        [name]: {
          from: 'regex',
          pattern: '^\\s*(\\S+)\\s*$',
          ...(numeric ? { type: 'integer' as const } : {}),
          note: "the write's answer: one bare id",
        },
        status: { from: 'status' },
      },
      result: { [name]: `{{vars.${name}}}`, status: '{{vars.status}}' },
      schema: {
        type: 'object',
        properties: { [name]: { type: numeric ? 'integer' : 'string' }, status: { type: 'integer' } },
        required: [name, 'status'],
      },
      why: `the answer is one bare id${ctx.idSentAs ? ` (the page then sent it as ${ctx.idSentAs})` : ''}`,
      kind: 'id',
    };
  }
  // (A write answered in a few words of plain text — "OK", "Flow deployed", "Job 17 queued" — says
  // how it went: the run returns what the site said, beside the status.)
  if (ctx.write && plainAnswer(t))
    return {
      extract: {
        message: {
          from: 'regex',
          pattern: '^\\s*([^<>{}]{1,300}?)\\s*$',
          required: false,
          note: "the write's plain-text answer (a few words, as recorded)",
        },
        status: { from: 'status' },
        url: { from: 'url' },
      },
      result: { message: '{{vars.message}}', status: '{{vars.status}}', url: '{{vars.url}}' },
      schema: {
        type: 'object',
        properties: { message: { type: 'string' }, status: { type: 'integer' }, url: { type: 'string' } },
        required: ['status', 'url'],
      },
      why: "the write's answer is a short plain text: that text, status and final URL",
      kind: 'none',
    };
  return {
    extract: { status: { from: 'status' }, url: { from: 'url' } },
    result: { status: '{{vars.status}}', url: '{{vars.url}}' },
    schema: { type: 'object', properties: { status: { type: 'integer' }, url: { type: 'string' } }, required: ['status', 'url'] },
    why: 'no data in the response: status and final URL',
    kind: 'none',
  };
}

/** A short plain-text answer with words in it (not markup, not a JSON value, not a blank). */
function plainAnswer(t: Exchange): boolean {
  const text = (t.text ?? '').trim();
  return /^text\/plain\b/i.test(t.mime ?? '') && text.length > 0 && text.length <= 300 && /\p{L}/u.test(text) && !/[<>{}]/.test(text);
}

export { inferSchema };

/**
 * Hinted result values that the output's extractors, run with the runtime's own code on the
 * recorded target response, do not produce (exactly, or inside a longer text value).
 */
export function outputMissing(out: Output, t: Exchange, hints: string[]): string[] {
  if (!hints.length) return [];
  if (out.missing) return out.missing;
  const values = outputValues(out, t);
  return hints.filter((h) => !values.some((v) => v.includes(h.toLowerCase())));
}

/** Every non-empty leaf the output's extractors produce on the recorded response (lower case). */
export function outputValues(out: Output, t: Exchange): string[] {
  const view = new View({
    url: t.finalUrl,
    status: t.status,
    text: t.text ?? '',
    headers: Object.fromEntries(t.resHeaders.map((h) => [h.name.toLowerCase(), h.value])),
  });
  const values: string[] = [];
  const flat = (v: unknown): void =>
    v === null || v === undefined
      ? undefined
      : Array.isArray(v)
        ? v.forEach(flat)
        : typeof v === 'object'
          ? Object.values(v as object).forEach(flat)
          : void values.push(String(v).toLowerCase());
  for (const [k, x] of Object.entries(out.extract)) {
    if (x.from === 'status' || x.from === 'url') continue;
    try {
      flat(extractValue(x, view, k));
    } catch {
      /* nothing from this one */
    }
  }
  return values.filter((v) => v !== '');
}

/** Two URLs naming the same page: origin and path, trailing slash aside (queries may differ). */
function sameResource(a: string, b: string): boolean {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    return x.origin === y.origin && x.pathname.replace(/\/$/, '') === y.pathname.replace(/\/$/, '');
  } catch {
    return false;
  }
}
