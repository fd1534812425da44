// Publish-time validation of a definition: the JSON Schema first (shape, precise locs), then the
// rules a schema can't say: unique step ids, every template reference resolvable (arguments in
// input_schema, secret slots and fields, extracted vars), regexes and CSS selectors that compile,
// pagination that can stop, scripts that parse. Every problem is a 422 entry under
// ["body", "definition", …] (or `prefix`), all reported at once.
import * as cheerio from 'cheerio';
import { transformSync } from 'esbuild';
import type { Loc, Problem } from '../../lib/errors.js';
import { ajvToEntries } from '../../lib/json-schema-problems.js';
import { FILE_ID_FORMAT, makeAjv } from '../../lib/json-schema.js';
import { DEFINITION_SCHEMA } from './schema.js';
import { holesOf, parseTemplate, TemplateError } from './template.js';
import type { BrowserStep, ConnectorDefinition, Extractor, HttpStep, SecretSlot } from './types.js';

const ajv = makeAjv({ useDefaults: false });
const checkShape = ajv.compile(DEFINITION_SCHEMA);

// `basic`: base64 of `username:password`, the token of an `Authorization: Basic` header (RFC 7617).
const SLOT_FIELDS = { login: ['username', 'password', 'totp', 'basic'], string: ['value'] } as const;
const ROOTS = ['args', 'secrets', 'vars', 'page', 'item', 'index', 'run', 'files'];
/** What `{{files.<argument>.…}}` tells of the uploaded file an argument names. */
const FILE_FIELDS = ['name', 'content_type', 'size'];
const UNSAFE_KEYS = ['__proto__', 'constructor', 'prototype'];

export interface DefinitionContext {
  inputSchema: unknown;
  requiredSecrets: SecretSlot[];
}

export function validateDefinition(def: unknown, ctx: DefinitionContext, prefix: Loc = ['body', 'definition']): Problem[] {
  if (!checkShape(def)) {
    return ajvToEntries(checkShape.errors ?? [], 'body', def).map((e) => ({ ...e, loc: [...prefix, ...e.loc.slice(1)] }));
  }
  const d = def as ConnectorDefinition;
  const out: Problem[] = [];
  const err = (loc: Loc, msg: string, input?: unknown) =>
    out.push({ loc: [...prefix, ...loc], msg, type: 'value_error', ...(input !== undefined ? { input } : {}) });

  if (d.engine === 'script') {
    try {
      transformSync(d.source, { format: 'esm', loader: 'js', logLevel: 'silent' });
    } catch (e) {
      const first = (e as { errors?: { text: string; location?: { line: number; column: number } }[] }).errors?.[0];
      err(
        ['source'],
        `Value error, script does not parse: ${first ? `${first.text} (line ${first.location?.line}, column ${first.location?.column})` : String(e)}`,
      );
    }
    if (!/export\s+default\b/.test(d.source))
      err(['source'], 'Value error, script must `export default` an async function (ctx) => result');
    return out;
  }

  const slots = new Map(ctx.requiredSecrets.map((s) => [s.name, s]));
  const argProps = argumentNames(ctx.inputSchema);
  const vars = new Set<string>();
  const mapNames = new Set<string>();
  collectMapNames(d.result, mapNames);

  // Pass 1: names every extract defines, step ids, extractor syntax.
  const ids = new Map<string, Loc>();
  // An extractor's `where`: templates rendered at extraction (checked in pass 2).
  const wheres: { loc: Loc; where: Record<string, string> }[] = [];
  // A query or form field whose NAME is a template (`chk_{{vars.device_id}}`: a row's checkbox
  // named by its record's id), checked in pass 2 as `where` is.
  const keyTemplates: { loc: Loc; where: Record<string, string> }[] = [];
  // An uploaded file sent as a body or a multipart part: named by the caller or a step, never a secret.
  const fileRefs: { loc: Loc; where: Record<string, string> }[] = [];
  const visitExtractors = (ex: Record<string, Extractor> | undefined, at: Loc) => {
    for (const [name, x] of Object.entries(ex ?? {})) {
      vars.add(name);
      checkExtractor(x, [...at, name], err);
      if ((x.from === 'json' || x.from === 'css' || x.from === 'xml') && x.where)
        wheres.push({ loc: [...at, name, 'where'], where: x.where });
    }
  };
  const visitHttp = (steps: HttpStep[], at: Loc) =>
    steps.forEach((s, i) => {
      const loc = [...at, i];
      if (ids.has(s.id)) err([...loc, 'id'], `Value error, duplicate step id '${s.id}'`, s.id);
      ids.set(s.id, loc);
      visitExtractors(s.extract, [...loc, 'extract']);
      for (const [part, o] of [
        ['query', s.query],
        ['form', s.body?.form],
      ] as const)
        for (const k of Object.keys(o ?? {}))
          if (k.includes('{{'))
            keyTemplates.push({ loc: [...loc, ...(part === 'form' ? ['body', 'form'] : ['query'])], where: { [k]: k } });
      if (s.paginate) checkPagination(s, [...loc, 'paginate'], err);
      checkFileBody(s, loc, fileRefs, err);
      if (s.body?.json !== undefined) checkPatches(s.body.json, [...loc, 'body', 'json'], err);
    });
  const visitBrowser = (steps: BrowserStep[], at: Loc) =>
    steps.forEach((s, i) => {
      const loc = [...at, i];
      if (s.id) {
        if (ids.has(s.id)) err([...loc, 'id'], `Value error, duplicate step id '${s.id}'`, s.id);
        ids.set(s.id, loc);
      }
      if ('selector' in s && s.selector) checkSelector(s.selector, [...loc, 'selector'], err);
      if (s.action === 'extract') visitExtractors(s.values, [...loc, 'values']);
      if (s.action === 'loop') {
        if (s.while_selector) checkSelector(s.while_selector, [...loc, 'while_selector'], err);
        visitBrowser(s.steps, [...loc, 'steps']);
      }
    });
  if (d.engine === 'http') {
    if (d.login) visitHttp(d.login.steps, ['login', 'steps']);
    visitHttp(d.steps, ['steps']);
  } else {
    if (d.login) visitBrowser(d.login.steps, ['login', 'steps']);
    visitBrowser(d.steps, ['steps']);
  }
  for (const m of [...(d.detect?.login_page ?? []), ...(d.detect?.anti_bot ?? [])]) if (m.css) checkSelector(m.css, ['detect'], err);

  if ((d.engine === 'http' || d.engine === 'browser') && d.basic_auth !== undefined) {
    const slot = slots.get(d.basic_auth);
    if (slot?.type !== 'login') err(['basic_auth'], `Value error, '${d.basic_auth}' is not a login slot of required_secrets`, d.basic_auth);
    // (The browser answers for the origin of the first page it opens.)
    if (d.engine === 'browser' && ![...(d.login?.steps ?? []), ...d.steps].some((st) => st.action === 'navigate'))
      err(
        ['basic_auth'],
        'Value error, basic_auth needs a navigate step: the browser answers for the origin of the first page it opens',
        d.basic_auth,
      );
  }
  if (d.login) {
    const slot = slots.get(d.login.slot);
    if (!slot) err(['login', 'slot'], `Value error, '${d.login.slot}' is not one of required_secrets`, d.login.slot);
    else if (slot.type !== 'login')
      err(['login', 'slot'], `Value error, slot '${d.login.slot}' has type ${slot.type}; the login chain needs a login slot`, d.login.slot);
  }

  // Pass 2: every template reference.
  const { meta: _meta, ...rest } = d as ConnectorDefinition & { meta?: unknown };
  let holes: ReturnType<typeof holesOf> = [];
  try {
    holes = holesOf(stripNonTemplates(rest));
  } catch {
    holes = [];
  }
  scanTemplates(stripNonTemplates(rest), [], err);
  for (const [list, what] of [
    [wheres, 'a record is chosen'],
    [keyTemplates, "a field's name is built"],
    [fileRefs, 'a file is chosen'],
  ] as const)
    for (const w of list) {
      // (A file's template is a value, scanned with the rest; a where or a field's name is not.)
      const scanned = list === fileRefs;
      if (!scanned) scanTemplates(w.where, w.loc, err);
      try {
        // (A record is chosen — a field named, a file sent — by what the caller gave or a step
        // read, never by a secret: the value would reach the run's error, or a URL in the run's log.)
        for (const h of holesOf(w.where, w.loc)) {
          if (h.hole.path[0] === 'args' || h.hole.path[0] === 'vars') {
            if (!scanned) holes.push(h);
          } else err(h.loc, `Value error, {{${h.hole.path.join('.')}}}: ${what} by {{args.…}} or {{vars.…}} only`);
        }
      } catch {}
    }
  for (const { loc, hole } of holes) {
    const [root, a, b] = hole.path;
    const where = `{{${hole.path.join('.')}}}`;
    if (!ROOTS.includes(root) && !mapNames.has(root)) {
      err(loc, `Value error, unknown template root in ${where}; use one of ${ROOTS.join(', ')}`);
    } else if (root === 'args') {
      if (!a) err(loc, `Value error, ${where} needs an argument name`);
      else if (argProps && !argProps.has(a)) err(loc, `Value error, ${where}: '${a}' is not a property of input_schema`);
    } else if (root === 'secrets') {
      const slot = a ? slots.get(a) : undefined;
      if (!slot) err(loc, `Value error, ${where}: '${a ?? ''}' is not one of required_secrets`);
      else if (!(SLOT_FIELDS[slot.type] as readonly string[]).includes(b ?? '')) {
        err(loc, `Value error, ${where}: a ${slot.type} slot has fields ${SLOT_FIELDS[slot.type].join(', ')}`);
      } else if (b === 'totp' && !slot.supports_totp) err(loc, `Value error, ${where}: slot '${a}' does not declare supports_totp`);
    } else if (root === 'vars') {
      if (!a || !vars.has(a)) err(loc, `Value error, ${where}: no step extracts '${a ?? ''}'`);
    } else if (root === 'files') {
      // (The name, type or size of the file an argument names: the host reads it for the step.)
      const format = (ctx.inputSchema as { properties?: Record<string, { format?: unknown }> } | undefined)?.properties?.[a ?? '']?.format;
      if (d.engine !== 'http') err(loc, `Value error, ${where}: only http steps may name an uploaded file's ${b ?? 'fields'}`);
      else if (hole.path.length !== 3 || !FILE_FIELDS.includes(b ?? ''))
        err(loc, `Value error, ${where}: use {{files.<argument>.${FILE_FIELDS.join('|')}}}`);
      else if (argProps && format !== FILE_ID_FORMAT)
        err(loc, `Value error, ${where}: '${a}' is not an argument of format ${FILE_ID_FORMAT} in input_schema`);
    }
  }
  return out;
}

/** A `file` body stands alone; a multipart part has `value` or `file`, not both. */
function checkFileBody(
  s: HttpStep,
  loc: Loc,
  refs: { loc: Loc; where: Record<string, string> }[],
  err: (loc: Loc, msg: string, input?: unknown) => void,
): void {
  const b = s.body;
  if (!b) return;
  if (b.file !== undefined) {
    refs.push({ loc: [...loc, 'body'], where: { file: b.file } });
    const others = (['json', 'form', 'multipart', 'text'] as const).filter((k) => b[k] !== undefined);
    if (others.length) err([...loc, 'body'], `Value error, a file body is the whole body: drop ${others.join(', ')}`);
  }
  b.multipart?.forEach((m, i) => {
    if (m.file === undefined) return;
    refs.push({ loc: [...loc, 'body', 'multipart', i], where: { file: m.file } });
    if (m.value !== undefined)
      err([...loc, 'body', 'multipart', i], "Value error, a part's content is its `value` or its `file`, not both");
  });
}

/** Declared argument names; null when input_schema declares none (any name is then allowed). */
function argumentNames(schema: unknown): Set<string> | null {
  const s = schema as { properties?: Record<string, unknown> } | null;
  return s && typeof s === 'object' && s.properties && typeof s.properties === 'object' ? new Set(Object.keys(s.properties)) : null;
}

/** Every `{"$patch": …, "set": [{at, value}]}` in a JSON body has the shape the engine reads. */
function checkPatches(t: unknown, at: Loc, err: (loc: Loc, msg: string, input?: unknown) => void): void {
  if (Array.isArray(t)) return t.forEach((x, i) => checkPatches(x, [...at, i], err));
  if (!t || typeof t !== 'object') return;
  const o = t as Record<string, unknown>;
  if (!('$patch' in o)) return Object.entries(o).forEach(([k, x]) => checkPatches(x, [...at, k], err));
  if (typeof o.$patch !== 'string' || !o.$patch.includes('{{'))
    err([...at, '$patch'], 'Value error, $patch must be a template of the document to edit, e.g. "{{vars.config}}"', o.$patch);
  if (!Array.isArray(o.set) || !o.set.length) return err([...at, 'set'], 'Value error, $patch needs a non-empty `set` list', o.set);
  o.set.forEach((s, i) => {
    const e = s as { at?: unknown; value?: unknown; append?: unknown } | null;
    const segOk = (g: unknown) =>
      (typeof g === 'string' && !['__proto__', 'constructor', 'prototype'].includes(g)) ||
      (typeof g === 'number' && Number.isInteger(g) && g >= 0) ||
      (!!g &&
        typeof g === 'object' &&
        !Array.isArray(g) &&
        Object.keys(g).length > 0 &&
        Object.values(g).every((v) => typeof v === 'string'));
    if (!e || typeof e !== 'object' || !Array.isArray(e.at) || !e.at.length || !e.at.every(segOk))
      err(
        [...at, 'set', i, 'at'],
        'Value error, `at` is a non-empty list of keys, indexes and {field: value} record selectors',
        e && typeof e === 'object' ? e.at : e,
      );
    if (!e || typeof e !== 'object' || 'value' in e === 'append' in e)
      err([...at, 'set', i, 'value'], 'Value error, each set needs a `value` (or an `append` to a list)');
  });
}

function collectMapNames(t: unknown, into: Set<string>): void {
  if (Array.isArray(t)) t.forEach((x) => collectMapNames(x, into));
  else if (t && typeof t === 'object') {
    const o = t as Record<string, unknown>;
    if ('$map' in o) into.add(typeof o.as === 'string' ? o.as : 'item');
    Object.values(o).forEach((x) => collectMapNames(x, into));
  }
}

/** Drops fields that are not templates (extractor patterns, selectors, notes) before scanning holes. */
function stripNonTemplates(t: unknown): unknown {
  if (Array.isArray(t)) return t.map(stripNonTemplates);
  if (t && typeof t === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(t)) {
      if (
        [
          'note',
          'provenance',
          'pattern',
          'path',
          'selector',
          'except',
          'css',
          'text_match',
          'while_selector',
          'detect',
          'extract',
          'values',
          'next',
        ].includes(k)
      )
        continue;
      out[k] = stripNonTemplates(v);
    }
    return out;
  }
  return t;
}

function scanTemplates(t: unknown, at: Loc, err: (loc: Loc, msg: string) => void): void {
  if (typeof t === 'string') {
    try {
      parseTemplate(t);
    } catch (e) {
      if (e instanceof TemplateError) err(at, `Value error, bad template: ${e.message}`);
    }
  } else if (Array.isArray(t)) t.forEach((x, i) => scanTemplates(x, [...at, i], err));
  else if (t && typeof t === 'object') for (const [k, v] of Object.entries(t)) scanTemplates(v, [...at, k], err);
}

function checkSelector(selector: string, loc: Loc, err: (loc: Loc, msg: string) => void, xml = false): void {
  try {
    cheerio.load('<p></p>', { xml })(selector);
  } catch (e) {
    err(loc, `Value error, invalid CSS selector: ${(e as Error).message}`);
  }
}

function checkExtractor(x: Extractor, loc: Loc, err: (loc: Loc, msg: string) => void): void {
  if ((x.from === 'css' || x.from === 'xml' || x.from === 'json') && (x.where || x.select !== undefined)) {
    if (x.select !== undefined && !/^\$/.test(x.select) && !(x.select === '~' && x.from === 'json'))
      err([...loc, 'select'], "Value error, a JSONPath starts with '$' (or, for json, '~': the record's key)");
    for (const k of Object.keys(x.where ?? {}))
      if (k.split('.').some((g) => !g || UNSAFE_KEYS.includes(g)))
        err([...loc, 'where', k], 'Value error, a field is a key or a dotted path of keys inside the record');
    // (A css/xml record is the object its `fields` build: without them there is no field to compare.)
    if (x.from !== 'json' && !x.fields) err([...loc, 'where'], 'Value error, where and select need fields: the records they read');
  }
  if (x.from === 'css' || x.from === 'xml') {
    const xml = x.from === 'xml';
    checkSelector(x.selector, [...loc, 'selector'], err, xml);
    for (const [k, f] of Object.entries(x.fields ?? {})) {
      if (f.selector) checkSelector(f.selector, [...loc, 'fields', k, 'selector'], err, xml);
      if (f.except) checkSelector(f.except, [...loc, 'fields', k, 'except'], err, xml);
      if (f.pattern) {
        try {
          new RegExp(f.pattern);
        } catch (e) {
          err([...loc, 'fields', k, 'pattern'], `Value error, invalid regular expression: ${(e as Error).message}`);
        }
      }
    }
  } else if (x.from === 'regex') {
    try {
      new RegExp(x.pattern, x.flags);
    } catch (e) {
      err([...loc, 'pattern'], `Value error, invalid regular expression: ${(e as Error).message}`);
    }
  } else if (x.from === 'json') {
    if (!/^\$/.test(x.path)) err([...loc, 'path'], "Value error, a JSONPath starts with '$'");
  } else if (x.from === 'calls' && x.in !== undefined && !/^\$/.test(x.in)) {
    err([...loc, 'in'], "Value error, a JSONPath starts with '$'");
  }
}

function checkPagination(s: HttpStep, loc: Loc, err: (loc: Loc, msg: string) => void): void {
  const p = s.paginate!;
  // (Without a query parameter the request itself reads the page: a JSON body's {{page.number}}
  // or {{page.cursor}} — a POST search, GraphQL variables.)
  const readsPage = /\{\{[^}]*\bpage\.(number|cursor)\b/.test(JSON.stringify([s.url, s.query, s.headers, s.body]));
  if ((p.mode === 'page' || p.mode === 'cursor') && !p.param && !readsPage)
    err([...loc, 'param'], `Field required for mode '${p.mode}' (unless the request reads {{page.number}} or {{page.cursor}})`);
  if ((p.mode === 'cursor' || p.mode === 'next_url') && !p.next) err([...loc, 'next'], `Field required for mode '${p.mode}'`);
  if (p.next) checkExtractor(p.next, [...loc, 'next'], err);
  for (const k of ['stop_when_empty', 'stop_when_false'] as const) {
    const name = p[k];
    if (name && !(s.extract && name in s.extract)) err([...loc, k], `Value error, '${name}' is not an extract of this step`);
  }
  if (p.mode === 'page' && !p.stop_when_empty && !p.stop_when_false && !p.max_pages) {
    err([...loc], 'Value error, page pagination needs stop_when_empty, stop_when_false or max_pages');
  }
}
