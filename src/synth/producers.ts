// Where did a value come from? Searches one earlier response for a literal and returns the
// extractor that reads it again on replay: cookie jar / cookie, JSON leaf, response header, HTML
// hidden input, meta tag, element attribute or text, and a bounded regex as the last resort.
import type * as cheerio from 'cheerio';
import { loadHtml } from './html-load.js';
import type { Extractor } from '../formats/definition/types.js';
import { isHtml, isJson } from './normalize.js';
import { jsonLeaves, parseJson, recordKeyPaths } from './slots.js';
import { htmlEscaped } from './values.js';
import type { Exchange } from './types.js';
import { clean, cssq } from './dom-text.js';
import { renderedAnew } from './html-dom.js';

export interface Found {
  extractor: Extractor;
  /** Lower is more robust. */
  rank: number;
  how: string;
  /** The extracted text is an escaped form of the value: the template decodes it with this filter. */
  decode?: 'jsunescape' | 'htmlunescape' | 'urldecode';
  /** How well a JSON leaf's place names the consuming field: 3 the same path, 2 the same but for array places, 1 the same key. */
  keyMatch?: number;
}

/** A JSON path with array places blurred (`posts.0.title` → `posts.#.title`). */
const shape = (path: (string | number)[]) =>
  path.map((p) => (typeof p === 'number' || /^\d+$/.test(String(p)) ? '#' : String(p))).join('.');

/**
 * Escaped forms a value takes inside a response: a JS/JSON string literal (`\/`, `\"`, `\u002B`),
 * HTML text (`&amp;`, `&#43;`), a URL component (`%2B`). Only forms that differ from the value.
 */
export function escapedForms(value: string): { form: string; decode: NonNullable<Found['decode']> }[] {
  const js = JSON.stringify(value).slice(1, -1);
  const forms: { form: string; decode: NonNullable<Found['decode']> }[] = [
    { form: js, decode: 'jsunescape' },
    { form: js.replace(/\//g, '\\/'), decode: 'jsunescape' },
    { form: js.replace(/[+/=&<>]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`), decode: 'jsunescape' },
    { form: js.replace(/[+/=&<>]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`), decode: 'jsunescape' },
    { form: htmlEscaped(value), decode: 'htmlunescape' },
    { form: value.replace(/[^A-Za-z0-9_\-.~]/g, (c) => `&#${c.charCodeAt(0)};`), decode: 'htmlunescape' },
    { form: value.replace(/[^A-Za-z0-9_\-.~]/g, (c) => `&#x${c.charCodeAt(0).toString(16)};`), decode: 'htmlunescape' },
    { form: encodeURIComponent(value), decode: 'urldecode' },
    // (PHP's urlencode and RFC 3986 escape `!'()*` too, which encodeURIComponent leaves: a token
    // `*a37…` in a link is `%2Aa37…`.)
    { form: encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`), decode: 'urldecode' },
  ];
  const seen = new Set([value]);
  return forms.filter((f) => !seen.has(f.form) && seen.add(f.form));
}

export function jsonPathOf(path: (string | number)[]): string {
  return `$${path.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('')}`;
}

/** Exact occurrences in `x`'s response. `strongOnly`: only id-like evidence (for short values). */
export function findIn(x: Exchange, value: string, opts: { strongOnly?: boolean; consumerKey?: string } = {}): Found | null {
  const c = x.setCookies.find((k) => k.value === value && value !== '');
  if (c && !opts.strongOnly) return { extractor: { from: 'cookie', name: c.name }, rank: 1, how: `Set-Cookie ${c.name}` };
  // A cookie stored URL-encoded and sent decoded (page JS copies it into a header or field).
  const ce = value !== '' && !opts.strongOnly ? x.setCookies.find((k) => k.value !== value && safeDecode(k.value) === value) : undefined;
  if (ce) return { extractor: { from: 'cookie', name: ce.name }, rank: 1, how: `Set-Cookie ${ce.name} (URL-encoded)`, decode: 'urldecode' };
  if (isJson(x)) {
    const doc = parseJson(x.text);
    const hits = jsonLeaves(doc).filter(
      (l) =>
        l.value !== null &&
        typeof l.value !== 'object' &&
        String(l.value) === value &&
        (!opts.strongOnly || /id$/i.test(String(l.path.at(-1)))),
    );
    // A JSON body field is best read from the leaf of the same name and place: a record sent back
    // whole (an editor's PUT) takes its `updated_at` from the record's, not from an equal
    // `created_at` or from another record's in a list.
    const want = opts.consumerKey?.split('.');
    const match = (path: (string | number)[]) =>
      !want ? 0 : path.join('.') === want.join('.') ? 3 : shape(path) === shape(want) ? 2 : String(path.at(-1)) === want.at(-1) ? 1 : 0;
    const hit = hits.reduce<(typeof hits)[number] | undefined>((a, b) => (!a || match(b.path) > match(a.path) ? b : a), undefined);
    if (hit)
      return {
        extractor: { from: 'json', path: jsonPathOf(hit.path), ...(typeof hit.value === 'number' ? { type: 'json' as const } : {}) },
        rank: 0,
        how: `JSON ${jsonPathOf(hit.path)}`,
        keyMatch: match(hit.path),
      };
    // The key of a record in a list keyed by id (`{"torrents": {"<hash>": {…}}}`): JSONPath-plus's
    // `~` reads it back (record-by-argument.ts reads it from the record an argument names).
    // (Only when the text holds the value quoted, as a key is: no second walk of every answer.)
    const keyAt = x.text?.includes(JSON.stringify(value)) ? recordKeyPaths(doc, value)[0] : undefined;
    if (keyAt) return { extractor: { from: 'json', path: `${jsonPathOf(keyAt)}~` }, rank: 1, how: `JSON key ${jsonPathOf(keyAt)}` };
  }
  if (!opts.strongOnly) {
    for (const h of x.resHeaders) {
      if (!/^(set-cookie|date|etag|last-modified|content-length|expires)$/i.test(h.name) && h.value === value)
        return { extractor: { from: 'header', name: h.name.toLowerCase() }, rank: 2, how: `header ${h.name}` };
    }
  }
  if (isHtml(x) && x.text) return findInHtml(x.text, value, opts);
  // Scripts and other text (a config.js with the token): the bounded regex, raw or escaped.
  if (x.text && !opts.strongOnly && /javascript|text\/|xml/.test(x.mime)) return findInText(x.text, value);
  return null;
}

function findInText(text: string, value: string): Found | null {
  const re = regexFor(text, value);
  if (re) return { extractor: { from: 'regex', pattern: re.pattern }, rank: 3, how: `regex after ${JSON.stringify(re.before)}` };
  for (const e of escapedForms(value)) {
    const r = regexFor(text, e.form, true);
    if (r)
      return {
        extractor: { from: 'regex', pattern: r.pattern },
        rank: 3,
        how: `regex after ${JSON.stringify(r.before)} (escaped, decoded on use)`,
        decode: e.decode,
      };
  }
  return null;
}

function uniqueSelector($: cheerio.CheerioAPI, el: cheerio.Cheerio<any>): string | null {
  const tag = el.prop('tagName')?.toLowerCase() ?? '*';
  const attrs = ['id', 'name', 'data-testid', 'itemprop', 'property', 'data-field'];
  for (const a of attrs) {
    const v = el.attr(a);
    // (An id the page renders anew on each load is found on no other load.)
    if (!v || (a === 'id' && renderedAnew($, v))) continue;
    const sel = a === 'id' && /^[A-Za-z][\w-]*$/.test(v) ? `#${v}` : `${tag}[${a}=${cssq(v)}]`;
    if ($(sel).first().is(el)) return sel;
    const form = el.closest('form').attr('id');
    if (form && !renderedAnew($, form) && $(`#${form} ${sel}`).first().is(el)) return `#${form} ${sel}`;
  }
  const parent = el.parent();
  const pt = parent.attr('data-testid');
  if (pt) {
    const sel = `[data-testid=${cssq(pt)}] > ${tag}`;
    if ($(sel).first().is(el)) return sel;
  }
  return null;
}

/** An attribute named as an id: `id`, `data-id`, `data-post-id`, `data-postid`, `itemId` (not `width`, `grid`). */
const idAttr = (a: string) => /(^|[-_:.])(\w+[-_])?(id|ids|uid|uuid|pk)$/i.test(a) || /^data-\w*id$/i.test(a) || /[a-z]I[dD]$/.test(a);

function findInHtml(html: string, value: string, opts: { strongOnly?: boolean }): Found | null {
  const $ = loadHtml(html);
  if (!opts.strongOnly) {
    const input = $('input')
      .filter((_, e) => $(e).attr('value') === value)
      .first();
    if (input.length) {
      const sel = uniqueSelector($, input);
      if (sel) return { extractor: { from: 'css', selector: sel, attr: 'value' }, rank: 1, how: `HTML input ${sel}` };
    }
    const meta = $('meta')
      .filter((_, e) => $(e).attr('content') === value)
      .first();
    if (meta.length) {
      const n = meta.attr('name') ?? meta.attr('property');
      if (n)
        return {
          extractor: { from: 'css', selector: `meta[${meta.attr('name') ? 'name' : 'property'}=${cssq(n)}]`, attr: 'content' },
          rank: 1,
          how: `HTML meta ${n}`,
        };
    }
  }
  // A form's field named as an id (`<input type=hidden name="post_ID" value="21">`): the record the
  // page is about, which the site made for this visit (a draft it created on load).
  if (opts.strongOnly) {
    const input = $('input')
      .filter((_, e) => $(e).attr('value') === value && /id$/i.test($(e).attr('name') ?? $(e).attr('id') ?? ''))
      .first();
    const sel = input.length ? uniqueSelector($, input) : null;
    if (sel) return { extractor: { from: 'css', selector: sel, attr: 'value' }, rank: 1, how: `HTML input ${sel}` };
  }
  // An attribute holding exactly the value, on the first element of its kind (ids in lists).
  let found: Found | null = null;
  $('*').each((_, e) => {
    if (found) return false;
    for (const [a, v] of Object.entries((e as any).attribs ?? {})) {
      if (v !== value || a === 'value' || a === 'class' || a === 'style') continue;
      if (opts.strongOnly && !idAttr(a)) continue;
      const el = $(e);
      const tag = el.prop('tagName')?.toLowerCase();
      const key = el.attr('data-testid') ? `[data-testid=${cssq(el.attr('data-testid')!)}]` : `${tag}[${a}]`;
      const first = $(key).first();
      if (first.attr(a) === value) {
        found = { extractor: { from: 'css', selector: key, attr: a }, rank: 2, how: `HTML ${key} @${a}` };
        return false;
      }
    }
    return undefined;
  });
  if (found) return found;
  if (opts.strongOnly) return null;
  // Inline scripts / text: a bounded regex anchored on the text just before the value — or on
  // the value escaped (a token in an inline script as "abc+\/def", entity-encoded text): the
  // escaped text is captured and the template decodes it.
  return findInText(html, value);
}

/** A URL component decoded (`Orchard%20Laser`), or as it is when its escapes are malformed. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * A bounded regex that finds `value` again from the text just before it (first match must be it).
 * Each occurrence is tried in turn (a few): the first may sit where the text before it says little
 * (`createNonceMiddleware( "`), a later one in a config object (`"nonce":"`). The context starts at a
 * token boundary when that leaves enough of it, else it is the raw text before the value.
 */
export function regexFor(text: string, value: string, escaped = false): { pattern: string; before: string } | null {
  if (value.length < 6) return null;
  // Escaped forms also hold backslashes, entity and percent characters.
  // (Tokens with a type and a time, csrf-magic's `sid:<hash>,<time>`, hold ':' and ',' too.)
  const charClass = escaped
    ? '[A-Za-z0-9_\\-.~+/=%\\\\&#;]'
    : /^[0-9a-f]+$/i.test(value)
      ? '[0-9A-Fa-f]'
      : /[:,]/.test(value)
        ? '[A-Za-z0-9_\\-.~+/=%:,]'
        : '[A-Za-z0-9_\\-.~+/=%]';
  const quantifier = `{${Math.max(1, value.length - 8)},${value.length + 16}}`;
  for (let i = text.indexOf(value), tries = 0; i > 0 && tries < 5; i = text.indexOf(value, i + 1), tries++) {
    const raw = text.slice(Math.max(0, i - 24), i);
    const trimmed = raw.replace(/^[^\s"'=:<>]*[\s"'=:<>]/, '');
    // (A link's query before the value names the record — `id=1031&confirm=` — and another run's
    // record has another number: its own parameter's name, `confirm=`, anchors it first.)
    const param = /\d/.test(trimmed) ? /[&?;]([^&?;\d]{4,})$/.exec(trimmed)?.[1] : undefined;
    for (const before of [...(param ? [param] : []), ...(trimmed.length >= 4 ? [trimmed] : [trimmed, raw])]) {
      const esc = before.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (esc.length < 4) continue;
      const pattern = `${esc}(${charClass}${quantifier})`;
      try {
        const m = new RegExp(pattern).exec(text);
        if (m && m[1] === value) return { pattern, before };
      } catch {
        /* unusable context */
      }
    }
  }
  return null;
}

/** Data controls a person edits (not hidden fields, buttons, files, passwords or checkboxes). */
const DATA_CONTROLS =
  'textarea, select, input[type=radio], input:not([type]), input[type=text], input[type=number], input[type=email], input[type=url], input[type=tel], input[type=date], input[type=datetime-local], input[type=time], input[type=month]';

/**
 * The form on the latest earlier page that submits to `action` and holds a control named `name`
 * with `value` (an edit form's untouched fields: a select's chosen option, a textarea's text, an
 * input's value, a checked radio). A browser submits what the form holds, so the run reads it
 * from that control; a low-entropy value ("1", an author's id) qualifies, as the form says where
 * it came from.
 */
export function formControlProducer(
  earlier: Exchange[],
  action: string,
  name: string,
  value: string,
  sent: string[] = [name],
): { x: Exchange; f: Found } | null {
  const norm = (s: string) => s.replace(/\r\n/g, '\n').trim();
  for (const y of earlier) {
    if (!(isHtml(y) ? y.text : undefined)?.includes(name)) continue;
    const page = formPostingTo(y, action, sent);
    if (!page) continue;
    const { $, form, scope } = page;
    const el = form.find(DATA_CONTROLS).filter((_, e) => $(e).attr('name') === name);
    const tag = (el.first().prop('tagName') ?? '').toLowerCase();
    const by = `[name=${cssq(name)}]`;
    const box = form.find('input[type=checkbox]').filter((_, e) => $(e).attr('name') === name);
    let f: Found | null = null;
    if (box.length === 1 && !el.length) {
      // A ticked box sends its value, an unticked one nothing: read whether the run's record has it
      // ticked (null leaves the field out), so an edit does not tick or untick it by the recording.
      if (box.attr('checked') === undefined || (box.attr('value') ?? 'on') !== value) return null;
      f = {
        extractor: { from: 'css', selector: `${scope}input${by}[checked]`, attr: 'value', required: false },
        rank: 1,
        how: `the form's checkbox ${name}`,
      };
    } else if (tag === 'textarea' && el.length === 1 && norm(el.text()) === norm(value)) {
      f = { extractor: { from: 'css', selector: `${scope}textarea${by}` }, rank: 1, how: `the form's textarea ${name}` };
    } else if (tag === 'select' && el.length === 1) {
      const opt = el.find('option[selected]').first();
      if (opt.length && (opt.attr('value') ?? clean(opt.text())) === value)
        f = {
          extractor: {
            from: 'css',
            selector: `${scope}select${by} option[selected]`,
            ...(opt.attr('value') !== undefined ? { attr: 'value' } : {}),
          },
          rank: 1,
          how: `the form's select ${name} (its selected option)`,
        };
    } else if (tag === 'input' && el.length >= 1) {
      const radio = el.filter('[type=radio]');
      if (radio.length && radio.filter('[checked]').attr('value') === value)
        f = {
          extractor: { from: 'css', selector: `${scope}input${by}[checked]`, attr: 'value' },
          rank: 1,
          how: `the form's checked radio ${name}`,
        };
      else if (!radio.length && el.length === 1 && el.attr('value') === value)
        f = { extractor: { from: 'css', selector: `${scope}input${by}`, attr: 'value' }, rank: 1, how: `the form's input ${name}` };
    } else if (!el.length && /^\d{2,}$/.test(value)) {
      // A hidden field holding a number (the record's own id, `user_no=1004`, on a form of the page
      // the run opens for its record): sent as the run's form holds it, as a browser sends it.
      const hidden = form.find('input[type=hidden]').filter((_, e) => $(e).attr('name') === name);
      if (hidden.length === 1 && hidden.attr('value') === value)
        f = { extractor: { from: 'css', selector: `${scope}input${by}`, attr: 'value' }, rank: 1, how: `the form's hidden input ${name}` };
    }
    // (The selector's first match must be this form's control, as the run reads the first.)
    const first = f?.extractor.from === 'css' ? $(f.extractor.selector).first() : null;
    if (first?.length && (page.fragment ? !first.closest('form').length : first.closest('form').is(form))) return { x: y, f: f! };
    // (The form had the control with another value: the person changed it, so it is not read.)
    if (el.length) return null;
  }
  return null;
}

/**
 * The form of page `y` that posts to `action`'s path, and a selector prefix for it (its id). Where
 * several do (Adminer's edit, logout and search forms all post to "/"), the one holding the most of
 * the controls the request sent (`names`), if just one does.
 */
function formPostingTo(
  y: Exchange,
  action: string,
  names: string[],
): { $: cheerio.CheerioAPI; form: cheerio.Cheerio<any>; scope: string; fragment: boolean } | null {
  const html = isHtml(y) ? y.text : undefined;
  if (!html) return null;
  const target = new URL(action);
  const $ = loadHtml(html);
  let form = $('form').filter((_, f) => {
    try {
      const to = new URL($(f).attr('action') || y.url, y.url);
      return to.origin === target.origin && to.pathname === target.pathname;
    } catch {
      return false;
    }
  });
  if (form.length > 1) {
    const held = form.toArray().map((f) => names.filter((n) => $(f).find(`[name=${cssq(n)}]`).length).length);
    const most = Math.max(...held);
    form = most > 0 && held.filter((h) => h === most).length === 1 ? $(form.get(held.indexOf(most))) : $([]);
  }
  // A dialog's form that arrives as a fragment of the same site, its controls in no <form> (the
  // page's script wraps them: tt-rss's feed editor, beside its own icon upload form), is the form
  // when those controls hold three of the fields sent at least, half of them are among those, and
  // no <form> posting there holds as many.
  const loose = $(DATA_CONTROLS)
    .filter((_, e) => !$(e).closest('form').length)
    .toArray()
    .map((e) => $(e).attr('name'))
    .filter((n): n is string => !!n);
  const held = new Set(loose.filter((n) => names.includes(n)));
  const fragment = new URL(y.url).origin === target.origin && held.size >= 3 && held.size * 2 >= new Set(loose).size;
  if (form.length === 1 && !(fragment && names.filter((n) => form.find(`[name=${cssq(n)}]`).length).length < held.size)) {
    const id = form.attr('id');
    const scope = id && /^[A-Za-z][\w-]*$/.test(id) && !renderedAnew($, id) ? `form#${id} ` : '';
    return { $, form, scope, fragment: false };
  }
  return fragment && form.length <= 1 ? { $, form: $('body'), scope: '', fragment: true } : null;
}

/**
 * The unticked checkboxes of the edit form on page `y` that the request to `action` did not send
 * (a browser sends nothing for them): each read at run time like the ticked ones, so a record
 * whose box is ticked keeps it ticked. Only boxes alone under their name, not among `sent`.
 */
export function untickedBoxes(y: Exchange, action: string, sent: Set<string>): { name: string; f: Found }[] {
  const page = formPostingTo(y, action, [...sent]);
  if (!page) return [];
  const { $, form, scope } = page;
  return form
    .find('input[type=checkbox]:not([checked])')
    .filter((_, e) => !page.fragment || !$(e).closest('form').length)
    .toArray()
    .map((e) => $(e).attr('name') ?? '')
    .filter(
      (name) =>
        name &&
        !sent.has(name) &&
        form.find(`[name=${cssq(name)}]`).length === 1 &&
        (page.fragment ||
          $(`input[name=${cssq(name)}]`)
            .first()
            .closest('form')
            .is(form)),
    )
    .map((name) => ({
      name,
      f: {
        extractor: { from: 'css', selector: `${scope}input[name=${cssq(name)}][checked]`, attr: 'value', required: false },
        rank: 1,
        how: `the form's checkbox ${name} (unticked when recorded)`,
      },
    }));
}
