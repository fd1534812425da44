// Plans the http engine can't run, turned into script connectors (see script-emit.ts):
// a download becomes "http plan + files.save"; a target whose request is computed in page JS
// becomes "log in and submit the page's own form in a browser, capture the response".
import type * as cheerio from 'cheerio';
import { loadHtml } from './html-load.js';
import type { Action, ElementInfo } from '../formats/recording/types.js';
import type { ConnectorDefinition, HttpDefinition, HttpStep } from '../formats/definition/types.js';
import { csvRows, isCsv } from './csv.js';
import { reqHeader } from './normalize.js';
import type { Output } from './output.js';
import { regexFor } from './producers.js';
import type { Schema } from './schema-infer.js';
import { browserCaptureScript, downloadScript, type BrowserCapturePlan } from './script-emit.js';
import type { Chain } from './trace.js';
import type { Exchange } from './types.js';
import { cssq } from './dom-text.js';

/**
 * The script runtime runs json/regex/header/cookie/status/url/body extractors, not CSS or XML (no DOM
 * library in the sandbox): CSS ones are re-derived as bounded regexes from the recorded page,
 * or the recorded value is sent as a constant. Decisions first, then the edits — replacing a var
 * rebuilds the step objects, so editing while iterating would write into detached copies.
 */
function cssToRegex(def: HttpDefinition, chain: Chain, byId: Map<string, Exchange>, warnings: string[]): HttpDefinition {
  const copy = structuredClone(def);
  const constants: { name: string; value: string }[] = [];
  for (const s of [...(copy.login?.steps ?? []), ...copy.steps]) {
    for (const [name, x] of Object.entries(s.extract ?? {})) {
      if (x.from !== 'css' && x.from !== 'xml') continue;
      const v = chain.vars.find((d) => d.name === name);
      const re = v ? regexFor(byId.get(v.producer)?.text ?? '', v.value) : null;
      if (re) s.extract![name] = { from: 'regex', pattern: re.pattern, note: x.note };
      else {
        warnings.push(`value ${name} could not be re-derived as a regex for the script; the recorded value is sent as a constant`);
        delete s.extract![name];
        constants.push({ name, value: v?.value ?? '' });
      }
    }
  }
  for (const c of constants) replaceVar(copy, c.name, c.value);
  return copy;
}

function replaceVar(def: HttpDefinition, name: string, value: string) {
  const re = new RegExp(`\\{\\{\\s*vars\\.${name}(\\s*\\|[^}]*)?\\s*\\}\\}`, 'g');
  const walk = (o: any): any =>
    typeof o === 'string'
      ? o.replace(re, value)
      : Array.isArray(o)
        ? o.map(walk)
        : o && typeof o === 'object'
          ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k, walk(v)]))
          : o;
  for (const list of [def.login?.steps ?? [], def.steps]) list.forEach((s, i) => (list[i] = walk(s) as HttpStep));
}

export function downloadFallback(
  def: HttpDefinition,
  out: Output,
  chain: Chain,
  byId: Map<string, Exchange>,
  warnings: string[],
  recorded?: string,
): { definition: ConnectorDefinition; schema: Schema } {
  const r = out.result as { filename: string; content_type: string };
  const plan = cssToRegex(def, chain, byId, warnings);
  // Rows typed from the recorded file when the HAR holds it (Playwright keeps no download bodies).
  const csv = isCsv(r.content_type, r.filename)
    ? ((recorded ? csvRows(recorded) : null) ?? { schema: { type: 'array', items: { type: 'object' } } as Schema })
    : null;
  const base: Schema = {
    type: 'object',
    properties: {
      file_id: { type: 'string' },
      filename: { type: 'string' },
      content_type: { type: 'string' },
      size_bytes: { type: 'integer' },
      lines: { type: 'integer' },
    },
    required: ['file_id', 'filename', 'content_type', 'size_bytes', 'lines'],
  };
  return {
    definition: downloadScript(plan, { filename: r.filename, contentType: r.content_type, extract: 'content', csv: !!csv }),
    schema: csv ? { ...base, properties: { ...base.properties, rows: csv.schema }, required: [...base.required!, 'rows'] } : base,
  };
}

/** The form in `html` that submits to `action` (resolved against `base`), as a selector. */
function formFor($: cheerio.CheerioAPI, base: string, action: string): string | null {
  let sel: string | null = null;
  $('form').each((_, f) => {
    const a = new URL($(f).attr('action') ?? '', base);
    if (sel || a.origin + a.pathname !== new URL(action).origin + new URL(action).pathname) return;
    const id = $(f).attr('id');
    sel = id ? `#${id}` : `form[action=${cssq($(f).attr('action') ?? '')}]`;
  });
  return sel;
}

/** The most robust unique selector the recorder noted for an element (capture sessions). */
const recorded = (el: ElementInfo | null | undefined) => el?.selectors?.find((x) => x.unique)?.playwright ?? null;

/** Selector of the field `name` of form `form` as the person used it (fill/paste/click actions). */
function actionField(actions: Action[], name: string, form: string): string | null {
  const a = [...actions]
    .reverse()
    .find(
      (x) =>
        (x.type === 'fill' || x.type === 'paste' || x.type === 'select') &&
        x.target?.name === name &&
        (!x.target.form || x.target.form.css === form || `#${x.target.form.id}` === form),
    );
  return recorded(a?.target);
}

function actionSubmit(actions: Action[], form: string): string | null {
  const a = [...actions].reverse().find((x) => x.type === 'submit' && (x.form.css === form || `#${x.form.id}` === form));
  return a?.type === 'submit' ? recorded(a.submitter) : null;
}

const submitOf = ($: cheerio.CheerioAPI, form: string) => ($(`${form} [type=submit]`).length ? `${form} [type=submit]` : `${form} button`);

export function browserFallback(
  def: HttpDefinition,
  out: Output,
  target: Exchange,
  all: Exchange[],
  warnings: string[],
  actions: Action[] = [],
): ConnectorDefinition | null {
  const pages = all.filter((x) => x.text && /html/.test(x.mime) && x.index < target.index);
  const pageWithForm = (action: string, before: number) => {
    for (const p of [...pages].filter((x) => x.index < before).reverse()) {
      const $ = loadHtml(p.text!);
      const form = formFor($, p.finalUrl, action);
      if (form) return { page: p, $, form };
    }
    return null;
  };
  const login: BrowserCapturePlan['login'] = [];
  for (const s of def.login?.steps ?? []) {
    if (!s.body?.form) continue;
    const action = new URL(s.url, def.base_url as string).href;
    const found = pageWithForm(action, Infinity);
    if (!found) return null;
    const fields = Object.entries(s.body.form)
      .filter(([, v]) => /\{\{\s*secrets\./.test(v))
      .map(([k, v]) => ({ selector: actionField(actions, k, found.form) ?? `${found.form} [name=${cssq(k)}]`, value: v }));
    login.push({
      url: login.length ? null : found.page.finalUrl,
      form: found.form,
      fields,
      submit: actionSubmit(actions, found.form) ?? submitOf(found.$, found.form),
    });
  }
  // The page that issued the target request, and the form the person typed into.
  const referer = reqHeader(target, 'referer');
  const page = [...pages].reverse().find((p) => p.finalUrl === referer) ?? [...pages].reverse().find((p) => !/login/i.test(p.finalUrl));
  if (!page) return null;
  const $ = loadHtml(page.text!);
  const step = def.steps.find((s) => s.url === new URL(target.url).pathname || s.url === target.url);
  const argSlots = Object.entries({ ...(step?.query ?? {}), ...(step?.body?.form ?? {}) }).filter(([, v]) =>
    /\{\{\s*args\./.test(String(v)),
  );
  const inputs = argSlots
    .map(([k, v]) => {
      const el = $(`[name=${cssq(k)}]`).first();
      if (!el.length) return null;
      const form = el.closest('form').attr('id');
      const css = form ? `#${form} [name=${cssq(k)}]` : `[name=${cssq(k)}]`;
      return { selector: (form && actionField(actions, k, `#${form}`)) || css, value: String(v), form: form ? `#${form}` : null };
    })
    .filter((x): x is { selector: string; value: string; form: string | null } => !!x);
  if (!inputs.length || !inputs[0].form) {
    warnings.push('browser fallback: no form field of the page matches the arguments of the target request');
    return null;
  }
  const ex = Object.values(out.extract)[0] as { path?: string; all?: boolean };
  const plan: BrowserCapturePlan = {
    login,
    page: page.finalUrl,
    inputs: inputs.map(({ selector, value }) => ({ selector, value })),
    submit: actionSubmit(actions, inputs[0].form) ?? submitOf($, inputs[0].form),
    endpoint: new URL(target.url).pathname,
    result: { path: ex.path ?? '$', list: !!ex.all },
  };
  return browserCaptureScript(plan, def.meta);
}
