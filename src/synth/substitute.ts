// Arguments and secrets inside one literal: exact (case-folded) matches become the whole
// template (so the JSON type is kept), substrings become template fragments. Secrets first,
// so a password that happens to contain an argument value is never half-templated.
import { SECRET_PLACEHOLDER_RE } from '../formats/recording/types.js';
import { htmlEscaped } from './values.js';
import type { SecretField } from '../formats/recording/types.js';
import type { Slot } from './types.js';

export interface ArgValue {
  name: string;
  /** The example as it appears in the recording (string form). */
  example: string;
  /** Values typed into the same field before this one, in order (`facts.ts`; `listEntries` keeps
   * those a request sent beside it and drops the rest). */
  earlier?: string[];
  /** Typed into a number input whose step allows fractions (`step="any"`, `0.5`): a `number`, not an `integer`, whatever the example. */
  fractional?: boolean;
}

export interface SecretNeedle {
  slot: string;
  /** `basic`: the token of an `Authorization: Basic` header, base64 of `username:password`. */
  field: SecretField | 'value' | 'basic';
  /** The literal to replace: a resolved value or a capture placeholder. */
  needle: string;
  /**
   * Only in this field (exact value): a username typed into a sign-in form is often a plain word
   * ("admin") that also occurs elsewhere (`do=admin`) without being the credential.
   */
  key?: string;
  /** Only as a whole field value (a short username is a word that also occurs inside other text). */
  exact?: boolean;
}

/** Words inside a field name that say it holds a username (login_email, user[name]): real apps prefix them. */
const USER_FIELD = /(^|[-_.[])(user(name)?|login|email|e-?mail|account|user_?id)(\]|[-_]|$)/i;

/** Whether a field's name says it holds a username: `login_email`, `user[name]`, and the same words
 * in camelCase (n8n's sign-in sends `emailOrLdapLoginId`). */
export const isUserField = (key: string) => USER_FIELD.test(key.replace(/([a-z0-9])([A-Z])/g, '$1_$2'));

/**
 * Where a plain username whose form field is unknown (the recording holds placeholders) can be
 * the credential: a body field or header, or a query parameter named like a username field; a
 * path segment or other query value (`/admin/`, `do=admin`) is a word of the site.
 */
const plainUsernameCanBe = (s: Pick<Slot, 'where' | 'key'>) => s.where !== 'path' && (s.where !== 'query' || isUserField(s.key));

/** The needles that apply to one request field. */
export const needlesForField = (needles: SecretNeedle[], slot: Pick<Slot, 'where' | 'key' | 'value'>) =>
  needles.filter((n) =>
    n.key ? n.key === slot.key && n.needle === slot.value : n.exact ? n.needle === slot.value && plainUsernameCanBe(slot) : true,
  );

/** A username too short or plain to be recognised inside longer text (cookies, URLs, `do=admin`). */
export const plainUsername = (u: string) => u.length < 10 || /^[a-z]+$/i.test(u);

export interface Substituted {
  template: string;
  args: string[];
  secrets: { slot: string; field: string }[];
  /** Nothing literal is left. */
  whole: boolean;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A JSON object or array written as text. */
function jsonText(v: string): boolean {
  const s = v.trim();
  if (!/^[[{]/.test(s)) return false;
  try {
    return typeof JSON.parse(s) === 'object';
  } catch {
    return false;
  }
}

/** An XML (or HTML) document or fragment written as text: `<?xml …`, or elements with an end tag. */
function xmlText(v: string): boolean {
  return /^\s*(<\?xml\b|<([A-Za-z][\w:.-]*)\b[^>]*>[\s\S]*<\/[A-Za-z][\w:.-]*\s*>\s*$)/.test(v);
}

export function substitute(
  value: string,
  args: ArgValue[],
  secrets: SecretNeedle[],
  slotOfSecretId: (id: string, f: SecretField) => string | null,
): Substituted {
  const used = { args: [] as string[], secrets: [] as { slot: string; field: string }[] };
  // (A JSON document sent as text — a form field holding `{"title": "…"}` — gets each value escaped
  // as a JSON string's inside: a quote or a line break in an argument would break the document.)
  // (So is XML — a WebDAV PROPPATCH, a SOAP call —: as character data, `&` `<` `>` escaped; a
  // typed value is found there in that form too, `Plums &amp; pears`.)
  const inXml = xmlText(value);
  const inDocument = jsonText(value) ? ' | jsonesc' : inXml ? ' | xmlesc' : '';
  // 1. capture placeholders (a login pasted to answer a site's Basic challenge is in the header's
  // token: `Basic base64("{{secret:…:username}}:{{secret:…:password}}")`, the slot's `basic`)
  const basic = pastedBasic(value, slotOfSecretId);
  if (basic) {
    used.secrets.push({ slot: basic, field: 'basic' });
    return { template: `Basic {{secrets.${basic}.basic}}`, args: [], secrets: used.secrets, whole: false };
  }
  let t = value.replace(SECRET_PLACEHOLDER_RE, (m, id: string, f: SecretField) => {
    const slot = slotOfSecretId(id, f);
    if (!slot) return m;
    used.secrets.push({ slot, field: f });
    return `\u0000{{secrets.${slot}.${f}${inDocument}}}\u0000`;
  });
  // 2. resolved secret values (longest first: a password containing the username stays whole)
  for (const s of [...secrets].sort((a, b) => b.needle.length - a.needle.length)) {
    if (!s.needle || s.needle.length < 2) continue;
    const re = new RegExp(esc(s.needle), 'g');
    if (re.test(t)) {
      used.secrets.push({ slot: s.slot, field: s.field });
      t = t.replace(re, `\u0000{{secrets.${s.slot}.${s.field}${inDocument}}}\u0000`);
    }
  }
  // 3. arguments: exact case-folded, then substrings (longest first)
  // (A browser sends a textarea's line breaks as CRLF: an example typed with `\n` matches either.)
  const lines = (v: string) => v.replace(/\r\n/g, '\n').toLowerCase();
  const plain = t.replace(/\u0000/g, '');
  const exact = args.find((a) => a.example.length >= 1 && lines(a.example) === lines(plain));
  // (Sent with CRLF line breaks, as a browser sends a textarea: the run sends the argument so too.)
  const crlf = (sent: string) => (/\r\n/.test(sent) ? ' | crlf' : '');
  if (exact && !used.secrets.length)
    return { template: `{{args.${exact.name}${crlf(plain)}}}`, args: [exact.name], secrets: [], whole: true };
  for (const a of [...args].sort((x, y) => y.example.length - x.example.length)) {
    if (a.example.length < 2) continue;
    const parts = t.split('\u0000');
    let hit = false;
    // (A number is a word of its own: "71" inside a hash `e9d71f5…` or an id `a71` is not the argument.)
    const bounded = /^\d+$/.test(a.example);
    for (let i = 0; i < parts.length; i += 2) {
      const forms = inXml && htmlEscaped(a.example) !== a.example ? [htmlEscaped(a.example), a.example] : [a.example];
      const source = `(?:${forms.map((f) => esc(f).replace(/\r?\n/g, '\r?\n')).join('|')})`;
      const re = new RegExp(bounded ? `(?<![A-Za-z0-9])${source}(?![A-Za-z0-9])` : source, 'gi');
      if (re.test(parts[i])) {
        hit = true;
        parts[i] = parts[i].replace(re, (m) => `\u0000{{args.${a.name}${inDocument || crlf(m)}}}\u0000`);
      }
    }
    if (hit) {
      used.args.push(a.name);
      t = parts.join('\u0000');
    }
  }
  // Site-specific encodings of a typed value with spaces: "Shopping List" sent as shopping_list or
  // shopping-list (page names, slugs). The template applies the same transformation.
  for (const a of [...args].sort((x, y) => y.example.length - x.example.length)) {
    if (used.args.includes(a.name) || !/ /.test(a.example.trim()) || a.example.length < 3) continue;
    for (const sep of ['_', '-']) {
      const form = a.example.trim().split(/\s+/).join(sep);
      const parts = t.split('\u0000');
      let hit = false;
      for (let i = 0; i < parts.length; i += 2) {
        const re = new RegExp(esc(form), 'gi');
        parts[i] = parts[i].replace(re, (m) => {
          hit = true;
          const lower = m === m.toLowerCase() && form !== form.toLowerCase() ? ' | lower' : '';
          return `\u0000{{args.${a.name} | trim${lower} | replace:[" ","${sep}"]}}\u0000`;
        });
      }
      if (hit) {
        used.args.push(a.name);
        t = parts.join('\u0000');
        break;
      }
    }
  }
  const template = t.replace(/\u0000/g, '');
  const whole = t.split('\u0000').every((p, i) => i % 2 === 1 || p === '');
  return { template, ...used, whole };
}

/** The login slot whose pasted username and password make up `value`'s HTTP Basic token, if they do. */
export function pastedBasic(value: string, slotOfSecretId: (id: string, f: SecretField) => string | null): string | null {
  const m = /^\s*basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(value);
  if (!m) return null;
  const p = /^\{\{secret:([0-9a-zA-Z-]+):username\}\}:\{\{secret:([0-9a-zA-Z-]+):password\}\}$/.exec(
    Buffer.from(m[1]!, 'base64').toString('utf8'),
  );
  if (!p || p[1] !== p[2]) return null;
  return slotOfSecretId(p[1]!, 'password');
}
