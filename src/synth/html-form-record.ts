// A record shown in a form: an edit page (an admin's change form, a profile, settings) prints the
// record's data as the values of labelled inputs, not as text. Such a form becomes one object of
// {label: value}: text-like inputs by their `value`, a textarea by its text, a select by its
// selected option's text, a checkbox as a boolean. Fields are found by their `name` (what the site
// submits, so it stays put), never by class.
import type * as cheerio from 'cheerio';
import type { CssField } from '../formats/definition/types.js';
import { HIDDEN_TEXT } from '../runtime/worker/engines/extract.js';
import { inTemplate } from './page-template.js';
import type { Schema } from './schema-infer.js';
import { fieldName, foldedAway, inChrome, inMain, nullable, stableId, type StructuralCandidate, typed } from './html-dom.js';
import { clean, cssq } from './dom-text.js';

type El = cheerio.Cheerio<any>;

/** Inputs that show data (not buttons, hidden fields, passwords, files or radio groups). */
const VALUE_INPUTS = ['text', 'number', 'email', 'url', 'tel', 'date', 'datetime-local', 'time', 'month', 'checkbox']
  .map((t) => `input[type=${t}]`)
  .concat('input:not([type])', 'textarea', 'select:not([multiple])')
  .join(', ');
/** Boxes one types a line into (a sign-in's user name or code among them). */
const TEXT_INPUTS = ['text', 'email', 'tel', 'number']
  .map((t) => `input[type=${t}]`)
  .concat('input:not([type])')
  .join(', ');

const textOf = (e: El) => {
  const c = e.clone();
  c.find(`input, select, textarea, ${HIDDEN_TEXT}`).remove();
  return clean(c.text());
};

/** A copy of `parent` holding only what comes before its child `el`. */
const before = (parent: El, el: El) => {
  const c = parent.clone();
  const i = parent.contents().index(el);
  c.contents().slice(Math.max(0, i)).remove();
  return c;
};

/**
 * The text a person reads for a form control: its <label>, else its aria-label, else the text of
 * its row — the nearest enclosing element that holds this one control and some text (a table's
 * `<tr><th>Hostname</th><td><input>`, a grid's `<div class=row><div>Hostname</div><div><input>`,
 * as Cacti and many admin UIs lay out their forms without <label>).
 */
function labelOf($: cheerio.CheerioAPI, form: El, el: El): string {
  const id = el.attr('id');
  const byFor = id ? form.find(`label[for=${cssq(id)}]`).first() : $([]);
  const wrapping = el.closest('label');
  const label = byFor.length ? byFor : wrapping;
  if (label.length) {
    const t = textOf(label);
    if (t) return t;
  }
  const aria = clean(el.attr('aria-label') ?? '');
  if (aria) return aria;
  let row = el.parent();
  const box = !/^(checkbox|radio)$/i.test(el.attr('type') ?? '');
  for (let up = 0, child = el; up < 6 && row.length && !row.is('form'); up++, child = row, row = row.parent()) {
    if (row.find(VALUE_INPUTS).length > 1) return '';
    // (Text after a text box — "(structural)", the group a number stands for — is a hint or a
    // unit, not its label; a checkbox's caption does follow it.)
    const t = box ? textOf(before(row, child)) : textOf(row);
    // (Marks alone — a required "*" — are no label: the label is further out.)
    if (/[\p{L}\p{N}]/u.test(t)) return t.length <= 60 && up < 4 ? t : '';
    // (A grid's label column beside the field's column, the field wrapped in a table of its own
    // with its add/remove buttons: LAM's "Telephone number" | <table><tr><td><input>…; or the row
    // above the field's row, its first cell the label and the next a note — phpLDAPadmin's
    // "cn | required" over the value's row.)
    const prev = row.prev();
    const prevCell = prev.is('tr')
      ? prev
          .children()
          .filter((_, c) => !!textOf($(c)))
          .first()
      : prev;
    const caption = prev.length && !prev.find('input, select, textarea, button').length ? textOf(prevCell) : '';
    if (caption && !/^h[1-6]$/.test(prev.prop('tagName')?.toLowerCase() ?? '')) return caption.length <= 60 ? caption : '';
  }
  return '';
}

/** A sign-in form: a password box beside at most two other text boxes (a user name, a code). A
 * device's or an account's settings form with a password among its many fields is a record. */
export function isSignInForm(form: El): boolean {
  return form.find('input[type=password]').length > 0 && form.find(TEXT_INPUTS).length <= 2;
}

/** A form control's field (relative to its form) and the value it shows on the recorded page. */
function controlField(el: El, name: string): { field: CssField; value: string | boolean; schema: Schema } | null {
  const tag = (el.prop('tagName') ?? '').toLowerCase();
  const type = (el.attr('type') ?? 'text').toLowerCase();
  if (tag === 'select') {
    const opt = el.find('option[selected]').first();
    // (No selected option: the browser shows the first, which the page never said is the value.)
    if (!opt.length) return null;
    return {
      field: { selector: `select[name=${cssq(name)}] option[selected]`, required: false },
      value: clean(opt.text()),
      schema: nullable({ type: 'string' }),
    };
  }
  if (type === 'checkbox') {
    return {
      // (Not the hidden twin many forms put before a checkbox so that "off" is sent too — Rails,
      // DAViCal: `<input type=hidden name=active value=off><input type=checkbox name=active>`.)
      field: {
        selector: `input[name=${cssq(name)}]:not([type=hidden])`,
        attr: 'checked',
        type: 'boolean',
        required: false,
        default: false,
      },
      value: el.attr('checked') !== undefined,
      schema: { type: 'boolean' },
    };
  }
  const value = tag === 'textarea' ? el.text().trim() : (el.attr('value') ?? '').trim();
  const t = typed(value);
  return {
    field: {
      selector: `${tag}[name=${cssq(name)}]`,
      ...(tag === 'input' ? { attr: 'value' } : {}),
      ...(t.type ? { type: t.type } : {}),
      required: false,
    },
    value,
    // (A box holds what someone typed, or nothing: a format its one recorded value had — an
    // e-mail address — is no promise for the next record, whose box may be empty.)
    schema: nullable(t.type ? t.schema : { type: 'string' }),
  };
}

/** Forms (POST, visible, not a login) holding at least two labelled controls with a value. */
export function formRecords($: cheerio.CheerioAPI, template: Set<unknown>): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  $('form').each((_, f) => {
    const form = $(f);
    // A GET form holds a query (search, filters), not a record; a password makes it a sign-in.
    if ((form.attr('method') ?? 'get').toLowerCase() !== 'post') return;
    if (isSignInForm(form) || inChrome(form) || inTemplate(template, form)) return;
    if (foldedAway($, form)) return; // an edit form the page keeps folded away
    const fields: Record<string, CssField> = {};
    const props: Record<string, Schema> = {};
    const taken = new Set<string>();
    const names = new Set<string>();
    let filled = 0;
    const texts: string[] = [];
    form.find(VALUE_INPUTS).each((_, e) => {
      const el = $(e);
      const name = el.attr('name');
      // (A name used twice is a group of checkboxes or a repeated row: not one field.)
      if (
        !name ||
        names.has(name) ||
        form.find(`[name=${cssq(name)}]`).length > 1 + form.find(`input[type=hidden][name=${cssq(name)}]`).length
      )
        return;
      if (foldedAway($, el)) return;
      names.add(name);
      const label = labelOf($, form, el);
      if (!label) return;
      const c = controlField(el, name);
      if (!c) return;
      const key = fieldName(label, taken, name);
      fields[key] = c.field;
      props[key] = c.schema;
      if (typeof c.value === 'string' && c.value) {
        filled++;
        texts.push(c.value);
      }
    });
    if (filled < 2) return;
    const id = form.attr('id');
    const action = form.attr('action');
    // (Not by an id or an address that names the record — Rails' `form#edit_user_5` posting to
    // `/users/5`: another record's page has its own.)
    const byAction = action && !/[/=]\d+(?=[/?&#;]|$)/.test(action);
    const selector = stableId(id)
      ? `form#${id}`
      : byAction
        ? `form[action=${cssq(action)}]`
        : `form:has(${Object.values(fields)[0].selector})`;
    if ($(selector).length !== 1) return;
    out.push({
      kind: 'detail',
      extractor: { from: 'css', selector, fields },
      schema: { type: 'object', properties: props },
      why: `form ${selector}: ${Object.keys(fields).length} labelled field(s) and their values`,
      text: texts.join(' '),
      records: 1,
      fieldCount: Object.keys(fields).length,
      main: inMain(form),
    });
  });
  return out;
}
