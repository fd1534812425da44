// Stage 5a: which literals are secrets. Sources: pasted placeholders (capture sessions), values
// of stored secrets named in hints.secrets (resolved in the server, TOTP codes computed for the
// time of each request), passwords / one-time codes typed by hand into password-like fields, and
// HTTP Basic credentials (an `Authorization: Basic` header: a browser's sign-in dialog, curl -u),
// and tokens or API keys in credential headers that no recorded response handed out.
import { loadHtml } from './html-load.js';
import { TOTP_PERIOD_S, totpCode } from '../lib/totp.js';
import { basicToken } from '../lib/secret-forms.js';
import type { SecretField } from '../formats/recording/types.js';
import type { SecretSlot } from '../formats/definition/types.js';
import { jsonLeaves, parseJson, requestSlots } from './slots.js';
import { htmlEscaped, looksRandom } from './values.js';
import { isHtml } from './normalize.js';
import { isUserField, plainUsername, type SecretNeedle } from './substitute.js';
import type { Exchange, Hints, Recording, SecretValues } from './types.js';

// Words inside a field name (pma_password, user[password], login_email): real apps prefix them.
// (Also a form's second entry of it — `password2`, `password_confirmation` — and a new one; not a
// word about it — Cacti's `password_change` box, a `password_policy` choice.)
export const PASSWORD_FIELD =
  /(^|[-_.[])((new|confirm|repeat)[-_]?)?(pass(word)?|passwd|pwd|current[-_]?password|secret)(\d|[-_]?(confirm(ation)?|again|repeat|new|old|current))?(\]|$|[-_](?!(change|changed|policy|reset|expires?|expired|expiry|expiration|strength|hint|rules?|length|age|required|enabled|mode|type)([-_\]]|$)))/i;
/** A box's or a switch's value, never a password typed. */
const FLAG_VALUE = /^(on|off|true|false|yes|no|0|1)$/i;

/**
 * Sign-in forms in the recorded pages: the names of their password inputs (whatever they are
 * called, e.g. DokuWiki's `p`), each with the text/email input before it (the username).
 */
export function pagePasswordFields(xs: Exchange[]): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const x of xs) {
    if (!/html/.test(x.mime) || !x.text || !/type=["']?password/i.test(x.text)) continue;
    const $ = loadHtml(x.text);
    $('form').each((_, f) => {
      const inputs = $(f)
        .find('input')
        .toArray()
        .map((e) => $(e));
      inputs.forEach((inp, i) => {
        const name = inp.attr('name');
        if ((inp.attr('type') ?? '').toLowerCase() !== 'password' || !name) return;
        const user = inputs
          .slice(0, i)
          .reverse()
          .find((u) => /^(text|email|tel|)$/i.test(u.attr('type') ?? '') && u.attr('name'));
        out.set(name, user?.attr('name') ?? null);
      });
    });
  }
  return out;
}
const OTP_FIELD = /^(otp|totp|code|otp_?code|2fa|mfa|one[-_]?time[-_]?code|verification_?code|token)$/i;

export interface SecretPlan {
  slots: SecretSlot[];
  /** Needles to replace in one exchange (TOTP codes depend on its time). */
  needlesFor(x: Exchange): SecretNeedle[];
  slotOfSecretId(id: string, field: SecretField): string | null;
  /** Slot → stored secret id (hints.secrets and pastes). */
  secretIds: Record<string, string>;
  /** Login values typed by hand (for a replay only). */
  typedLogins(): Record<string, { username: string; password: string }>;
  /** Credential header values recorded in the HAR (for a replay only). */
  typedValues(): Record<string, string>;
  warnings: string[];
}

/** The credentials of a request's `Authorization: Basic` header, if it holds any. */
function basicCredentialsOf(x: Exchange): { token: string; username: string; password: string } | null {
  const h = x.reqHeaders.find((h) => h.name.toLowerCase() === 'authorization');
  const m = h && /^\s*basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(h.value);
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // Not credentials: no separator, or bytes that are no UTF-8 text (the token is something else);
  // nor a login pasted in a capture session (its placeholders: substitute.ts pastedBasic).
  if (
    colon < 0 ||
    decoded.includes('\uFFFD') ||
    decoded.includes('{{secret:') ||
    basicToken(decoded.slice(0, colon), decoded.slice(colon + 1)) !== m[1]
  )
    return null;
  return { token: m[1], username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

// Headers that carry a credential by their name (`X-Api-Key`, `Private-Token`, `X-Auth-Token`);
// anti-forgery tokens, nonces and request ids are handed out by the site or made by page script.
const CREDENTIAL_HEADER = /(^|-)(api-?key|apikey|key|auth-?token|access-?token|private-?token|token|secret)$/i;
// A header named as a password carries one, random-looking or not: a person chose it.
const PASSWORD_HEADER = /(^|-)(pass(word)?|passwd|pwd)$/i;
// (`Sec-WebSocket-Key` and the other `Sec-` headers are the browser's own.)
const NOT_CREDENTIAL_HEADER = /^sec-|csrf|xsrf|nonce|request|trace|correlation|idempotency|session-id|challenge/i;

/**
 * The tokens of a request's credential headers: `Authorization: <scheme> <token>` (Bearer, Token,
 * any scheme but Basic and the negotiated ones) or a bare random-looking Authorization value,
 * headers named as keys or tokens, and headers named as passwords.
 */
function credentialHeadersOf(x: Exchange): { header: string; name: string; token: string }[] {
  const out: { header: string; name: string; token: string }[] = [];
  for (const h of x.reqHeaders) {
    const n = h.name.toLowerCase();
    const v = h.value.trim();
    if (n === 'authorization') {
      const m = /^([A-Za-z][\w-]*)\s+(\S+)$/.exec(v);
      const token = m ? (/^(basic|digest|negotiate|ntlm)$/i.test(m[1]) ? null : m[2]) : /\s/.test(v) ? null : v;
      if (token && looksRandom(token)) out.push({ header: h.name, name: 'access_token', token });
    } else if (PASSWORD_HEADER.test(n) && v) {
      out.push({ header: h.name, name: 'password', token: v });
    } else if (CREDENTIAL_HEADER.test(n) && !NOT_CREDENTIAL_HEADER.test(n) && looksRandom(v)) {
      out.push({ header: h.name, name: n.replace(/^x-/, '').replace(/-/g, '_'), token: v });
    }
  }
  return out;
}

/** Whether a JSON answer before `x` holds `value` under the same field name (`gui.password`): a
 * document the page read and sends back, not a password typed into it. So does a page whose form
 * printed the box with that value (DAViCal's `<input type=password name=newpass1 value="$pwstars">`,
 * sent untouched: "no new password"). */
function readAsField(xs: Exchange[], x: Exchange, key: string, value: string): boolean {
  const name = key.split('.').at(-1);
  return xs.some(
    (y) =>
      y.index < x.index &&
      (isHtml(y)
        ? !!(y.text?.includes(value) || y.text?.includes(htmlEscaped(value))) &&
          loadHtml(y.text)('input[type=password]')
            .toArray()
            .some((e) => e.attribs.name === key && e.attribs.value === value)
        : !!y.text?.includes(JSON.stringify(value)) &&
          jsonLeaves(parseJson(y.text)).some((l) => l.value === value && String(l.path.at(-1)) === name)),
  );
}

/** Whether a response before `x` (its body, a header, a cookie it set) holds `token`: then it is traced, not a secret. */
function handedOut(xs: Exchange[], x: Exchange, token: string): boolean {
  const escaped = JSON.stringify(token).slice(1, -1);
  return (
    x.reqCookies.some((c) => c.value.includes(token)) ||
    xs.some(
      (y) =>
        y.index < x.index && (y.text?.includes(token) || y.text?.includes(escaped) || y.resHeaders.some((h) => h.value.includes(token))),
    )
  );
}

function totpCodes(seed: string, atMs: number): string[] {
  return [-2, -1, 0, 1].map((d) => totpCode(seed, atMs + d * TOTP_PERIOD_S * 1000));
}

export function planSecrets(rec: Recording, xs: Exchange[], hints: Hints, values: SecretValues): SecretPlan {
  const slots = new Map<string, SecretSlot>();
  const warnings: string[] = [];
  const byId = new Map<string, string>(Object.entries(hints.secrets ?? {}).map(([slot, id]) => [id, slot]));
  const fixed: SecretNeedle[] = [];
  const totpSeeds: { slot: string; seed: string }[] = [];
  for (const [slot, v] of Object.entries(values)) {
    if (v.type === 'login') {
      slots.set(slot, {
        name: slot,
        type: 'login',
        supports_totp: false,
        description: `Login used to sign in (recorded as a stored secret)`,
      });
      fixed.push(
        { slot, field: 'username', needle: v.username, ...(plainUsername(v.username) ? { exact: true } : {}) },
        { slot, field: 'password', needle: v.password },
        { slot, field: 'basic', needle: basicToken(v.username, v.password) },
      );
      if (v.totp_secret) totpSeeds.push({ slot, seed: v.totp_secret });
    } else {
      slots.set(slot, { name: slot, type: 'string', description: 'Secret value used by the site (recorded as a stored secret)' });
      fixed.push({ slot, field: 'value', needle: v.value });
    }
  }
  // Pasted secrets (capture): one login slot per secret id.
  // A recording made on another server (uploaded) pastes secret ids unknown here: they bind to
  // the hinted login slots no paste claimed, in order.
  const free = [...slots.values()]
    .filter((s) => s.type === 'login' && !rec.pasted.some((p) => byId.get(p.secret_id) === s.name))
    .map((s) => s.name);
  for (const p of rec.pasted) {
    let slot = byId.get(p.secret_id);
    if (!slot && free.length) {
      slot = free.shift()!;
      byId.set(p.secret_id, slot);
    }
    if (!slot) {
      slot = slots.size === 0 ? 'account' : `login_${slots.size + 1}`;
      byId.set(p.secret_id, slot);
    }
    const s = slots.get(slot) ?? {
      name: slot,
      type: 'login' as const,
      supports_totp: false,
      description: 'Login pasted during the capture session',
    };
    if (p.field === 'totp') s.supports_totp = true;
    slots.set(slot, s);
  }
  // Typed by hand: a password field in a form body, with its username sibling; then a one-time code.
  const typed: SecretNeedle[] = [];
  const known = new Set(fixed.map((f) => f.needle));
  let typedSlot: string | null = null;
  const pagePw = pagePasswordFields(xs);
  // A plain stored username ("admin", "pma") is a word that occurs elsewhere (`do=admin`, cookie
  // names): it is the credential only in the field it was typed into — a user-like field or the
  // text input before a sign-in form's password input.
  const userKeys = new Set([...pagePw.values()].filter((k): k is string => !!k));
  for (const n of fixed) {
    if (!n.exact) continue;
    const field = xs
      .flatMap((x) => requestSlots(x))
      .find(
        (s) =>
          s.where !== 'query' &&
          s.where !== 'path' &&
          s.value === n.needle &&
          (userKeys.has(s.key) || isUserField(s.key.split('.').at(-1)!)),
      );
    if (field) n.key = field.key;
  }
  // A value the person gave as an argument (a NEW user's password in an admin form) is an input
  // of the connector, not their login.
  const argued = new Set(Object.values(hints.arguments ?? {}).filter((v): v is string => typeof v === 'string'));
  for (const x of xs) {
    const fields = requestSlots(x).filter((s) => s.where === 'form' || s.where === 'json' || s.where === 'multipart');
    const pw = fields.find(
      (s) =>
        (PASSWORD_FIELD.test(s.key.split('.').at(-1)!) || pagePw.has(s.key)) &&
        s.value &&
        !FLAG_VALUE.test(s.value) &&
        !known.has(s.value) &&
        !argued.has(s.value) &&
        // (a settings document sent back holds the stored hash the page read: nobody typed it)
        !readAsField(xs, x, s.key, s.value) &&
        !/\{\{secret:/.test(s.value),
    );
    if (pw) {
      typedSlot = [...slots.values()].find((s) => s.type === 'login')?.name ?? 'account';
      if (!slots.has(typedSlot))
        slots.set(typedSlot, { name: typedSlot, type: 'login', supports_totp: false, description: 'Login typed into the sign-in form' });
      typed.push({ slot: typedSlot, field: 'password', needle: pw.value });
      const userName = pagePw.get(pw.key);
      const user = fields.find((s) => (userName ? s.key === userName : isUserField(s.key.split('.').at(-1)!)) && s.value);
      if (user && !known.has(user.value)) typed.push({ slot: typedSlot, field: 'username', needle: user.value, key: user.key });
      known.add(pw.value);
      continue;
    }
    const otp = fields.find((s) => OTP_FIELD.test(s.key.split('.').at(-1)!) && /^\d{6,8}$/.test(s.value));
    const loginSlot = typedSlot ?? [...slots.values()].find((s) => s.type === 'login')?.name;
    if (otp && loginSlot && !totpSeeds.some((t) => t.slot === loginSlot && totpCodes(t.seed, x.time).includes(otp.value))) {
      slots.get(loginSlot)!.supports_totp = true;
      typed.push({ slot: loginSlot, field: 'totp', needle: otp.value });
    }
  }
  // A password typed by hand into a password input (the action log) is the login's wherever the
  // page sends it — not in a form's password field (above) but in a header (Rspamd's web UI sends
  // `Password: <typed>` with every call), a query parameter or a raw body.
  for (const a of rec.actions) {
    if (a.type !== 'fill' || a.target?.type !== 'password' || a.secret || a.value.length < 4) continue;
    if (known.has(a.value) || argued.has(a.value) || !xs.some((x) => requestSlots(x).some((s) => s.value.includes(a.value)))) continue;
    typedSlot ??= [...slots.values()].find((s) => s.type === 'login')?.name ?? 'account';
    if (!slots.has(typedSlot))
      slots.set(typedSlot, { name: typedSlot, type: 'login', supports_totp: false, description: 'Login typed into the sign-in form' });
    typed.push({ slot: typedSlot, field: 'password', needle: a.value });
    known.add(a.value);
  }
  // Basic credentials no stored secret holds: a login of their own, used for the replay only.
  const typedBasic = new Map<string, { username: string; password: string }>();
  for (const x of xs) {
    const cred = basicCredentialsOf(x);
    if (!cred || known.has(cred.token)) continue;
    known.add(cred.token);
    const slot = slots.size === 0 ? 'account' : `basic_auth${typedBasic.size ? `_${typedBasic.size + 1}` : ''}`;
    slots.set(slot, { name: slot, type: 'login', supports_totp: false, description: 'Login sent as HTTP Basic credentials' });
    typedBasic.set(slot, { username: cred.username, password: cred.password });
    typed.push({ slot, field: 'basic', needle: cred.token });
  }
  // A token in a credential header that no earlier response holds (an API key, a bearer token the
  // browser kept from before the recording): a string slot, so the definition never carries it.
  const typedValues = new Map<string, string>();
  for (const x of xs) {
    for (const c of credentialHeadersOf(x)) {
      if (known.has(c.token) || handedOut(xs, x, c.token)) continue;
      known.add(c.token);
      let slot = c.name;
      for (let i = 2; slots.has(slot); i++) slot = `${c.name}_${i}`;
      slots.set(slot, {
        name: slot,
        type: 'string',
        description: `Credential sent in the ${c.header} header (no recorded response handed it out)`,
      });
      typedValues.set(slot, c.token);
      typed.push({ slot, field: 'value', needle: c.token });
    }
  }
  return {
    slots: [...slots.values()],
    needlesFor(x) {
      const out = [...fixed, ...typed];
      for (const t of totpSeeds) {
        for (const code of totpCodes(t.seed, x.time)) {
          if (requestSlots(x).some((s) => s.value === code)) {
            out.push({ slot: t.slot, field: 'totp', needle: code });
            slots.get(t.slot)!.supports_totp = true;
          }
        }
      }
      return out;
    },
    slotOfSecretId: (id) => byId.get(id) ?? null,
    secretIds: Object.fromEntries([...byId].map(([id, slot]) => [slot, id])),
    typedValues: () => Object.fromEntries(typedValues),
    typedLogins() {
      const out: Record<string, { username: string; password: string }> = Object.fromEntries(typedBasic);
      for (const t of typed) {
        if (t.field !== 'username' && t.field !== 'password') continue;
        out[t.slot] = Object.assign({ username: '', password: '' }, out[t.slot], { [t.field]: t.needle });
      }
      return out;
    },
    warnings,
  };
}

/** Every secret literal a plan could contain (for the final no-leak check). */
export function allNeedles(plan: SecretPlan, xs: Exchange[]): string[] {
  // A typed username is checked where it was typed (its field), not as a substring anywhere.
  return [
    ...new Set(
      xs.flatMap((x) =>
        plan
          .needlesFor(x)
          .filter((n) => !n.key && !n.exact)
          .map((n) => n.needle),
      ),
    ),
  ].filter((n) => n.length >= 2);
}
