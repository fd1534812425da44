// Stage 3+4: walk back from the target. Every literal of every request in the chain becomes an
// argument, a secret, a constant, or a value extracted from an EARLIER response (traced backwards
// in time only). Producers join the chain and are resolved the same way, recursively. Cookies are
// left to the jar, but the responses that set them join the chain so the jar gets them.
import type { Extractor } from '../formats/definition/types.js';
import { findIn, type Found, formControlProducer, untickedBoxes } from './producers.js';
import { isJson, isRead } from './normalize.js';
import { type MirroredLeaf, mirroredLeaves } from './mirrored-objects.js';
import { documentReadBack, type ReadBack } from './read-modify-write.js';
import { idInName, parseJson, requestSlots } from './slots.js';
import { needlesForField, substitute, type ArgValue } from './substitute.js';
import { keyedRecord, recordByArgument } from './record-by-argument.js';
import { clickedLink, linkedRecord } from './html-record-link.js';
import { isHtml } from './normalize.js';
import type { SecretPlan } from './secrets.js';
import type { Exchange, Slot } from './types.js';
import { argName, looksRandom, lowEntropy, nowInside, nowTemplate, preview, randomLetters } from './values.js';

export type Resolution =
  | { kind: 'template'; template: string; args: string[]; secrets: { slot: string; field: string }[] }
  | { kind: 'var'; template: string; var: string }
  | { kind: 'constant'; why: string }
  /** Set by the pager: a query parameter is left to it; a body leaf reads the page (`template`). */
  | { kind: 'paging'; template?: string }
  | { kind: 'computed'; why: string };

export interface ResolvedSlot {
  slot: Slot;
  res: Resolution;
  /** The field's name as a template, when the name holds a record's id (`chk_{{vars.id}}`). */
  name?: string;
}

export interface VarDef {
  /** Template filter that turns the extracted (escaped) text into the value sent. */
  decode?: string;
  name: string;
  producer: string;
  extractor: Extractor;
  how: string;
  value: string;
}

export interface Chain {
  /** Exchange ids in the chain, with their resolved slots. */
  steps: Map<string, ResolvedSlot[]>;
  vars: VarDef[];
  /** Ids of exchanges that set a cookie a later chain request sent. */
  cookieProducers: Map<string, string[]>;
  problems: { exchange: string; message: string; value: string }[];
  warnings: string[];
  usedArgs: Set<string>;
  usedSecrets: Set<string>;
  /** What of each used secret the plan sends: `slot.field` (`account.username`, `account.password`). */
  usedSecretFields: Set<string>;
  /** Exchange id → ids of the exchanges it needs (value producers and cookie setters). */
  deps: Map<string, Set<string>>;
  /** Writes that send back a document read before, changed (read-modify-write): the var it is read into. */
  readBacks: Map<string, { var: string; rb: ReadBack }>;
}

export interface TraceInput {
  all: Exchange[];
  start: Exchange[];
  args: ArgValue[];
  secrets: SecretPlan;
  /** Query parameter driven by pagination on the start exchange; `body`: a JSON body leaf instead,
   * which reads this page value (`page.number`, `page.cursor`). */
  pagingParam?: { exchange: string; param: string; body?: 'page.number' | 'page.cursor' };
  /** Values known constant / dynamic from a second recording. */
  constants?: Set<string>;
  dynamics?: Set<string>;
  /** The sign-in: ids of the requests that send a login's password or other credential (the
   * login traffic `synthesize` found). */
  signIns?: Set<string>;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * The id the page made for a new record (a WebDAV collection's path, a client-side record id): a
 * UUID first seen in the request of a write that creates (a POST, a MKCOL, or answered 201 Created),
 * in no earlier request or answer. (A PUT answered 200 updates a record the page knew from before
 * the recording.) Each run sends a new one,
 * `{{run.uuid}}`, as the page would; replaying the recorded one would collide with the record the
 * recording made. (One per flow: a second such id stays what page JavaScript computed.)
 */
export function pageMadeId(all: Exchange[]): string | null {
  const seen = new Set<string>();
  for (const x of [...all].sort((a, b) => a.index - b.index)) {
    const sent = `${x.url}\n${x.body?.text ?? ''}\n${(x.body?.params ?? []).map((p) => p.value ?? '').join('\n')}`.match(UUID) ?? [];
    const made = sent.map((u) => u.toLowerCase()).find((u) => !seen.has(u));
    const creates = x.status === 201 || ['POST', 'MKCOL', 'MKCALENDAR'].includes(x.method);
    if (made && creates && !isRead(x)) return made;
    for (const u of [...sent, ...((x.text ?? '').match(UUID) ?? [])]) seen.add(u.toLowerCase());
  }
  return null;
}

/** A media type (`text/vnd.tiddlywiki`, `application/json`): a name a program uses, never a token. */
const MEDIA_TYPE = /^(?:text|application|image|audio|video|font|multipart|model)\/[a-z0-9][\w.+-]*$/i;

/**
 * Values the page holds for the whole visit and sends unchanged with its requests (n8n's
 * `browser-id` header: a UUID the page made once and keeps in its storage; the site binds the
 * session to it at sign-in): random-looking, yet sent by the same header or parameter with three
 * requests or more, to two paths or more — the sign-in among them, or a request before it. A
 * value computed per request (a signature, a nonce) differs from one request to the next; one
 * first sent after the sign-in may be the session's own credential (a token the page kept), which
 * a definition must never carry. A run sends a held value as recorded, as the same browser would.
 */
export function pageHeldValues(all: Exchange[], signsIn: (x: Exchange) => boolean): Set<string> {
  const ordered = [...all].filter((x) => !x.after).sort((a, b) => a.index - b.index);
  const signIn = ordered.findIndex(signsIn);
  if (signIn < 0) return new Set();
  const seen = new Map<string, { value: string; paths: Set<string>; sent: number; unsigned: boolean }>();
  ordered.forEach((x, i) => {
    const path = new URL(x.url).pathname;
    for (const s of requestSlots(x)) {
      if (s.where === 'path' || !looksRandom(s.value)) continue;
      const key = `${s.where}\u0000${s.key}\u0000${s.value}`;
      const one = seen.get(key) ?? seen.set(key, { value: s.value, paths: new Set(), sent: 0, unsigned: false }).get(key)!;
      one.paths.add(path);
      one.sent++;
      if (i <= signIn) one.unsigned = true;
    }
  });
  return new Set([...seen.values()].filter((p) => p.unsigned && p.sent >= 3 && p.paths.size >= 2).map((p) => p.value));
}

export function traceChain(inp: TraceInput): Chain {
  const chain: Chain = {
    steps: new Map(),
    vars: [],
    cookieProducers: new Map(),
    problems: [],
    warnings: [],
    usedArgs: new Set(),
    usedSecrets: new Set(),
    usedSecretFields: new Set(),
    deps: new Map(),
    readBacks: new Map(),
  };
  const dep = (x: string, y: string) => (chain.deps.get(x) ?? chain.deps.set(x, new Set()).get(x)!).add(y);
  const byValue = new Map<string, VarDef>();
  const made = pageMadeId(inp.all);
  const held = pageHeldValues(inp.all, (x) => inp.signIns?.has(x.id) ?? false);
  const names = new Set<string>();
  const queue = [...inp.start];
  const byId = new Map(inp.all.map((x) => [x.id, x]));
  for (const s of inp.start) byId.set(s.id, s);
  while (queue.length) {
    const x = queue.shift()!;
    if (chain.steps.has(x.id)) continue;
    /** `def` read from `producer` before `x`: a var of the chain, the producer a step too. */
    const readVar = (def: VarDef, producer: Exchange) => {
      chain.vars.push(def);
      dep(x.id, producer.id);
      queue.push(producer);
    };
    // Landings (synthetic re-fetches) are never producers: the exchange that landed there is.
    const earlier = inp.all.filter((y) => y.index < x.index && y.id !== x.id && !y.after).sort((a, b) => b.index - a.index);
    if (x.after) {
      dep(x.id, x.after);
      queue.push(byId.get(x.after)!);
    }
    const resolved: ResolvedSlot[] = [];
    chain.steps.set(x.id, resolved);
    /** The page whose edit form this request submitted (some field was read from it). */
    let formPage: Exchange | null = null;
    /** The fields the request's form body sent (which of a page's forms it was). */
    const slots = pathArgsJoined(requestSlots(x), inp.args);
    const sentNames = slots.filter((s) => s.where === 'form' || s.where === 'multipart').map((s) => s.key);
    const needles = inp.secrets.needlesFor(x);
    // A document read before and sent back changed: its unchanged leaves come from reading it again.
    const rb = documentReadBack(x, earlier);
    if (rb) {
      const tail = new URL(rb.producer.url).pathname
        .split('/')
        .filter((g) => g && !/\d/.test(g))
        .at(-1);
      const def: VarDef = {
        name: argName(tail ?? 'document', names),
        producer: rb.producer.id,
        extractor: { from: 'json', path: '$' },
        how: 'the whole document, which the write sends back changed',
        value: '',
      };
      readVar(def, rb.producer);
      chain.readBacks.set(x.id, { var: def.name, rb });
    }
    // Objects of the body copied from a record read before (not the whole document: that is `rb`).
    const mirrored = rb ? new Map<string, MirroredLeaf>() : mirroredLeaves(x, earlier);
    const mirrorVars = new Map<string, VarDef>();
    // The argument values this request is addressed by (an id in its path or query).
    const ownArgs = slots
      .filter((s) => s.where === 'path' || s.where === 'query')
      .map((s) => s.value)
      .filter((v) => inp.args.some((a) => a.example === v));
    for (const slot of slots) {
      const pg = inp.pagingParam;
      if (pg && pg.exchange === x.id && slot.where === (pg.body ? 'json' : 'query') && slot.key === pg.param) {
        resolved.push({ slot, res: { kind: 'paging', ...(pg.body ? { template: `{{${pg.body}}}` } : {}) } });
        continue;
      }
      // The form on an earlier page that printed this field with this value, looked up once (below).
      let formControl: ReturnType<typeof formControlProducer> | undefined;
      const controlOf = () =>
        (formControl ??=
          slot.where === 'form' || slot.where === 'multipart'
            ? formControlProducer(earlier, x.url, slot.key, slot.value, sentNames)
            : null);
      let sub = substitute(slot.value, inp.args, needlesForField(needles, slot), inp.secrets.slotOfSecretId);
      // An argument found only INSIDE a form field that an earlier page's form printed whole with
      // this value (an untouched field: book 13's title "… volume 13") is a coincidence: the field
      // is read from the form below, as the browser sent it. So is a whole field that equals an
      // argument only but for its case (LAM's first name "Chidi", left as the page printed it, on
      // the record addressed by `uid=chidi`).
      const caseOnly = sub.args.every((n) => !slot.value.includes(inp.args.find((a) => a.name === n)?.example ?? ''));
      if (sub.args.length && !sub.secrets.length && (!sub.whole || caseOnly) && controlOf())
        sub = { ...sub, args: [], template: slot.value };
      // A leaf of a copied object is read from the record the run reads — also one equal to an
      // argument's example (a translation's id "1" beside the product's id 1) when that argument
      // is still sent elsewhere in the request.
      const mirror = slot.where === 'json' && !sub.secrets.length ? mirrored.get(slot.key) : undefined;
      if (mirror && (!sub.args.length || slots.some((o) => o !== slot && !mirrored.has(o.key) && o.value === slot.value))) {
        const key = `${mirror.producer.id} ${mirror.path}`;
        let def = mirrorVars.get(key);
        if (!def) {
          def = {
            name: argName(slot.key.split('.').at(-1)!, names),
            producer: mirror.producer.id,
            extractor: { from: 'json', path: mirror.path, ...(mirror.json ? { type: 'json' as const } : {}) },
            how: `JSON ${mirror.path}: the body's object repeats that record`,
            value: slot.value,
          };
          mirrorVars.set(key, def);
          readVar(def, mirror.producer);
        }
        resolved.push({ slot, res: { kind: 'var', template: varTpl(def), var: def.name } });
        continue;
      }
      // (A leaf sent as the document held it is read again at run time; one holding an argument
      // stays a template: it tells which record the write is about.)
      if (rb && slot.where === 'json' && rb.kept.has(slot.key) && !sub.args.length) {
        resolved.push({ slot, res: { kind: 'constant', why: 'read again: the document read before holds it' } });
        continue;
      }
      sub.args.forEach((a) => chain.usedArgs.add(a));
      for (const s of sub.secrets) {
        chain.usedSecrets.add(s.slot);
        chain.usedSecretFields.add(`${s.slot}.${s.field}`);
      }
      if (sub.args.length || sub.secrets.length) {
        resolved.push({ slot, res: { kind: 'template', template: sub.template, args: sub.args, secrets: sub.secrets } });
        if (sub.whole) continue;
      }
      const v = slot.value;
      // This slot read at run time from `got`'s response (a var named after the slot unless `as` names
      // it), reused for every later equal value.
      const bindSlot = (got: { x: Exchange; f: Found }, as = slot.where === 'path' ? segmentName(x, slot) : fieldVarName(slot.key)) => {
        const def: VarDef = {
          name: argName(as, names),
          producer: got.x.id,
          extractor: got.f.extractor,
          how: got.f.how,
          value: v,
          ...(got.f.decode ? { decode: got.f.decode } : {}),
        };
        readVar(def, got.x);
        byValue.set(v, def);
        resolved.push({ slot, res: { kind: 'var', template: varTpl(def), var: def.name } });
      };
      if (sub.args.length || sub.secrets.length) continue; // remaining literal text is constant
      // Empty fields are sent too (a form's blank hidden inputs: some sites check they are there).
      if (v === '') {
        resolved.push({ slot, res: { kind: 'constant', why: 'empty field' } });
        continue;
      }
      if (inp.constants?.has(v)) {
        resolved.push({ slot, res: { kind: 'constant', why: 'equal in both recordings' } });
        continue;
      }
      if (made && v.toLowerCase().includes(made)) {
        const template = v.replace(new RegExp(made, 'gi'), '{{run.uuid}}');
        resolved.push({ slot, res: { kind: 'template', template, args: [], secrets: [] } });
        continue;
      }
      // (A one-character value in a body field not named as an id — a flag `autologin=0` — is not
      // the "0" another field was traced to: it would send that field's next value, a record's id.)
      const flag =
        v.length === 1 && (slot.where === 'form' || slot.where === 'json' || slot.where === 'multipart') && !/id$/i.test(slot.key);
      let known = flag ? undefined : byValue.get(v);
      // (An equal value read under another name — `created_at` for `updated_at` — stands in only
      // when no earlier response holds this field's own; that response is then the producer below.)
      const consumer = {
        key: slot.where === 'json' ? slot.key : undefined,
        args: ownArgs,
        collection: slot.where === 'path' ? collectionOf(x.url, Number(slot.key)) : undefined,
      };
      let own: ReturnType<typeof pickProducer> | undefined;
      const lastKey = slot.key.split('.').at(-1);
      if (known && slot.where === 'json' && known.extractor.from === 'json' && !known.extractor.path.endsWith(`.${lastKey}`)) {
        own = pickProducer(earlier, v, false, consumer);
        if ((own?.f.keyMatch ?? 0) > 0) known = undefined;
      }
      if (known && byId.get(known.producer)!.index < x.index) {
        resolved.push({ slot, res: { kind: 'var', template: varTpl(known), var: known.name } });
        dep(x.id, known.producer);
        continue;
      }
      // A field the form on an earlier page printed with this value (an edit form's untouched
      // fields): read from that form at run time, as a browser submits what the form holds.
      const control = controlOf();
      if (control) {
        const def: VarDef = {
          name: argName(slot.key, names),
          producer: control.x.id,
          extractor: control.f.extractor,
          how: control.f.how,
          value: v,
        };
        readVar(def, control.x);
        // (A low-entropy value — an author's id "3" — speaks for this field only, not for every "3".)
        if (!lowEntropy(v)) byValue.set(v, def);
        resolved.push({ slot, res: { kind: 'var', template: varTpl(def), var: def.name } });
        if (slot.where === 'form') formPage = control.x;
        continue;
      }
      // A short id the page looked up with what the person typed (a typeahead's search for
      // "Presses" answering `{"id": "20", "name": "Orchard/Presses"}`, then `groups[]=20`): read from
      // that lookup, which the run makes with its own argument.
      const lookup = slot.where !== 'path' && lowEntropy(v) ? lookupProducer(earlier, v, inp.args, slots) : null;
      if (lookup) {
        const def: VarDef = {
          name: argName(slot.key.split('.').at(-1)!, names),
          producer: lookup.x.id,
          extractor: lookup.f.extractor,
          how: `${lookup.f.how}: the record a lookup with the typed value answered`,
          value: v,
        };
        readVar(def, lookup.x);
        resolved.push({ slot, res: { kind: 'var', template: varTpl(def), var: def.name } });
        continue;
      }
      // An id in a URL that a list page linked to from the row an argument names (or a box of that
      // row the form sent): the row the person clicked, read by the run's argument
      // (html-record-link.ts).
      const byRow =
        (/\d/.test(v) || looksRandom(v)) &&
        (slot.where === 'path' || slot.where === 'query' || slot.where === 'form' || slot.where === 'multipart');
      // (Or the key of a record in an earlier JSON answer's list keyed by id: record-by-argument.ts.)
      const byLink = byRow
        ? linkedRecord(earlier, v, inp.args, slot.where === 'form' || slot.where === 'multipart' ? slot.key : undefined)
        : null;
      const keyed = !byLink && slot.where !== 'header' && (/\d/.test(v) || looksRandom(v)) ? keyedRecord(earlier, v, inp.args) : null;
      const linked = byLink ?? keyed;
      if (linked && !(isRead(x) && searchedFor(linked.x, inp.args, linked.arg))) {
        bindSlot(linked, keyed?.name);
        chain.usedArgs.add(linked.arg);
        continue;
      }
      // Short values only follow strong, id-like evidence (a JSON "id" key, a data-*-id attribute).
      // A plain word or identifier without digits ("search", "login", a GraphQL operation name
      // "SearchBooks", a JSON-RPC method "core.pause_torrent") is a name the code uses, not a token;
      // so is a media type ("text/vnd.tiddlywiki").
      const weak =
        lowEntropy(v) ||
        MEDIA_TYPE.test(v) ||
        (slot.where !== 'path' &&
          codeName(v) &&
          !/id$/i.test(slot.key) &&
          !/token|csrf|xsrf|nonce|state|sig|key|auth|hash|sectok/i.test(slot.key));
      // (A number in a body field named as an id — JSON `id`, a form's `post_ID` — is traced as
      // the query's are, from strong evidence only: a record the site made during the flow.)
      // (An element of a list named as ids counts as its list: Transmission's `"ids": [3]`, a
      // PHP form's `hostids[0]=10561`.)
      const idKey = /ids?$/i.test(listKey(slot.key)) && /^\d+$/.test(v);
      const idLike = slot.where === 'path' ? /\d/.test(v) || looksRandom(v) || randomLetters(v) : slot.where !== 'query' || !weak || idKey;
      // A number in the address of a page the person opened by clicking a link on the page before
      // (`…&user_no=1004`), where nothing else traces it: read from that link, on the page the run
      // opened (html-record-link.ts). (So is the same number in the address a form on that page
      // posted back to: its own.)
      const byClick = () => {
        if ((slot.where !== 'query' && slot.where !== 'path') || !/\d/.test(v)) return false;
        const page = x.method === 'GET' ? x : earlier.find((y) => y.url === x.url && y.method === 'GET' && isHtml(y));
        const clicked = page ? clickedLink(page === x ? earlier : earlier.filter((y) => y.index < page.index), page, v, inp.args) : null;
        if (!clicked) return false;
        bindSlot(clicked);
        return true;
      };
      if (((weak && slot.where !== 'path' && slot.where !== 'query' && !idKey) || !idLike) && !inp.dynamics?.has(v)) {
        if (byClick()) continue;
        resolved.push({ slot, res: { kind: 'constant', why: 'short/low-entropy literal' } });
        continue;
      }
      // (The lookup above, when it ran with the same strength, is this one.)
      const found = own && !weak ? own : pickProducer(earlier, v, weak, consumer, inp.args);
      if (found) {
        bindSlot(found);
        continue;
      }
      // A token inside a longer literal ("Bearer <token>", "a=<token>"): trace the token, keep the
      // rest. So are the numbers of a route carried in a query (`rest_route=/wp/v2/posts/21`), from
      // strong evidence only (an id key or field), as a path's own segments are.
      const route = v.startsWith('/') ? v.split('/').filter((t) => /^\d+$/.test(t)) : [];
      // (A `key=value` part gives its value; a base64 token keeps its `=` padding, which the answer
      // that handed it out holds too: Node-RED's `Bearer …Pns=`. Longest first: a shorter reading
      // of the same token is skipped once the longer one is traced.)
      const words = v.split(/[\s,;:]+/).flatMap((p) => /^[\w.-]+=(.+)$/.exec(p)?.[1] ?? p);
      const inner = [
        ...[...new Set([...words, ...v.split(/[\s,;:=]+/)])].filter((t) => t !== v && looksRandom(t)).sort((a, b) => b.length - a.length),
        ...route,
      ];
      let fragment = v;
      let traced = false;
      for (const tok of inner) {
        if (!fragment.includes(tok)) continue;
        const reuse = byValue.get(tok);
        const got = reuse ? null : pickProducer(earlier, tok, route.includes(tok));
        if (!reuse && !got) continue;
        const def: VarDef = reuse ?? {
          name: argName(tokenName(slot.key.split('.').at(-1)!, route.includes(tok) ? v.split('/') : null, tok), names),
          producer: got!.x.id,
          extractor: got!.f.extractor,
          how: got!.f.how,
          value: tok,
          ...(got!.f.decode ? { decode: got!.f.decode } : {}),
        };
        if (!reuse) {
          chain.vars.push(def);
          byValue.set(tok, def);
          queue.push(got!.x);
        }
        dep(x.id, def.producer);
        fragment = route.includes(tok)
          ? fragment
              .split('/')
              .map((seg) => (seg === tok ? varTpl(def) : seg))
              .join('/')
          : fragment.split(tok).join(varTpl(def));
        traced = true;
      }
      if (traced) {
        resolved.push({ slot, res: { kind: 'var', template: fragment, var: fragment } });
        continue;
      }
      const now = nowTemplate(v, x.time) ?? nowInside(v, x.time);
      if (now) {
        resolved.push({ slot, res: { kind: 'template', template: now, args: [], secrets: [] } });
        continue;
      }
      // (Also when a second recording sent another one: each browser makes its own.)
      if (held.has(v)) {
        resolved.push({ slot, res: { kind: 'constant', why: 'held by the page: sent unchanged with its requests' } });
        continue;
      }
      if (looksRandom(v) || inp.dynamics?.has(v)) {
        const why = inp.dynamics?.has(v)
          ? 'differs between the two recordings and no earlier response contains it'
          : 'looks random and no earlier response contains it';
        resolved.push({ slot, res: { kind: 'computed', why } });
        chain.problems.push({
          exchange: x.id,
          message: `${slot.where} ${slot.key} = ${JSON.stringify(preview(v))} ${why}: it is probably computed in page JavaScript`,
          value: v,
        });
        continue;
      }
      if (byClick()) continue;
      resolved.push({ slot, res: { kind: 'constant', why: 'not typed, not found in an earlier response' } });
    }
    // A field whose NAME holds the id of the record an argument names (Cacti's row box `chk_7`,
    // whose row reads "Cold Store Monitor"): the run names the box of the row it names.
    for (const r of resolved) {
      const s = r.slot;
      const inName = s.where === 'form' || s.where === 'query' ? idInName(s.key) : null;
      if (!inName) continue;
      const v = inName.id;
      const known = byValue.get(v);
      // (A var of this chain read by the same argument from an earlier page: the same row's id.)
      let def =
        known && 'where' in known.extractor && known.extractor.where && byId.get(known.producer)!.index < x.index ? known : undefined;
      if (!def) {
        const linked = linkedRecord(earlier, v, inp.args);
        if (!linked || (isRead(x) && searchedFor(linked.x, inp.args, linked.arg))) continue;
        def = {
          name: argName(fieldVarName(inName.before.replace(/[\W_]+$/, '')) || 'id', names),
          producer: linked.x.id,
          extractor: linked.f.extractor,
          how: `${linked.f.how}: the id in the field name ${s.key}`,
          value: v,
        };
        readVar(def, linked.x);
        byValue.set(v, def);
        chain.usedArgs.add(linked.arg);
      } else dep(x.id, def.producer);
      r.name = `${inName.before}${varTpl(def)}${inName.after}`;
    }
    // An edit form's unticked boxes, which the browser did not send: read from the form too (a
    // urlencoded body of unique names only, where a field whose value is null is left out).
    const sent = new Set(sentNames);
    if (formPage && sent.size === sentNames.length) {
      for (const box of untickedBoxes(formPage, x.url, sent)) {
        const def: VarDef = {
          name: argName(box.name, names),
          producer: formPage.id,
          extractor: box.f.extractor,
          how: box.f.how,
          value: '',
        };
        chain.vars.push(def);
        resolved.push({
          slot: { exchange: x.id, where: 'form', key: box.name, value: '' },
          res: { kind: 'var', template: varTpl(def), var: def.name },
        });
      }
    }
    // Cookies: the jar carries them; the response that set each one must be in the chain.
    for (const c of x.reqCookies) {
      const setter = [...earlier].reverse().find((y) => y.setCookies.some((k) => k.name === c.name && k.value === c.value));
      // (One no response set, whose value an earlier answer handed out — a token from a sign-in's
      // JSON that the page's script put in `document.cookie` — is set so by the step too.)
      const handed = !setter && looksRandom(c.value) ? (byValue.get(c.value) ?? pickProducer(earlier, c.value, false)) : null;
      if (handed) {
        let def: VarDef;
        if ('producer' in handed) {
          def = handed;
          dep(x.id, def.producer);
        } else {
          def = {
            name: argName(`${c.name}_cookie`, names),
            producer: handed.x.id,
            extractor: handed.f.extractor,
            how: handed.f.how,
            value: c.value,
            ...(handed.f.decode ? { decode: handed.f.decode } : {}),
          };
          byValue.set(c.value, def);
          readVar(def, handed.x);
        }
        resolved.push({
          slot: { exchange: x.id, where: 'cookie', key: c.name, value: c.value },
          res: { kind: 'var', template: varTpl(def), var: def.name },
        });
        continue;
      }
      if (!setter) {
        chain.warnings.push(
          `cookie ${c.name} sent by ${x.id} was not set by any recorded response (set by page JavaScript or before the recording); the replay will not send it`,
        );
        continue;
      }
      const list = chain.cookieProducers.get(setter.id) ?? [];
      if (!list.includes(c.name)) list.push(c.name);
      chain.cookieProducers.set(setter.id, list);
      dep(x.id, setter.id);
      queue.push(setter);
    }
  }
  // A value read from a record of a JSON list is read from the record the arguments name, not
  // from the recorded record's place in the list (record-by-argument.ts).
  for (const v of chain.vars) {
    const y = byId.get(v.producer);
    if (v.extractor.from !== 'json' || !y || !isJson(y)) continue;
    const args = inp.args.filter((a) => a.example !== v.value);
    const by = recordByArgument(v.extractor, parseJson(y.text), args);
    if (!by) continue;
    const readers = [...chain.steps]
      .filter(([, rs]) => rs.some((r) => r.res.kind === 'var' && r.res.template.includes(`vars.${v.name}`)))
      .map(([id]) => byId.get(id));
    if (searchedFor(y, inp.args, by.arg) && readers.every((r) => r && isRead(r))) continue;
    v.extractor = by.extractor;
    v.how = `${v.how}, ${by.how}`;
    chain.usedArgs.add(by.arg);
  }
  return chain;
}

/** A traced token's name: `access_token` in an Authorization header, `post_id` for `/posts/21`, else `<key>_token`. */
function tokenName(key: string, route: string[] | null, tok: string): string {
  const before = route?.[route.indexOf(tok) - 1];
  if (before) return `${before.replace(/s$/, '')}_id`;
  return key === 'authorization' ? 'access_token' : `${key}_token`;
}

const varTpl = (d: VarDef) => `{{vars.${d.name}${d.decode ? ` | ${d.decode}` : ''}}}`;

function segmentName(x: Exchange, slot: Slot): string {
  const segs = new URL(x.url).pathname.split('/');
  const prev = segs[Number(slot.key) - 1];
  return prev ? `${prev.replace(/s$/, '')}_id` : 'id';
}

/**
 * The latest earlier JSON answer to a request that carried an argument's example the write itself
 * does not send (a typeahead's query), holding `v` under an id-named key: the record that lookup found.
 */
function lookupProducer(earlier: Exchange[], v: string, args: ArgValue[], sent: Slot[]): { x: Exchange; f: Found } | null {
  const typed = args
    .map((a) => a.example.toLowerCase())
    .filter((e) => e.length >= 3 && !sent.some((s) => s.value.toLowerCase().includes(e)));
  if (!typed.length) return null;
  for (const y of earlier) {
    if (!isJson(y) || !requestSlots(y).some((s) => typed.includes(s.value.toLowerCase()))) continue;
    const f = findIn(y, v, { strongOnly: true });
    if (f?.extractor.from === 'json') return { x: y, f };
  }
  return null;
}

/**
 * A response that hands back a value its own request sent (a REST API returning the nonce header
 * it was given) is an echo: replaying it needs the value first. Sources come before echoes; then a
 * response to a request addressed by the consumer's own argument values; then, for a JSON body
 * field, the leaf of its name and place; then fewest unresolved dependencies (a producer with no
 * request literals of its own), then nearest.
 */
function pickProducer(
  earlier: Exchange[],
  v: string,
  weak: boolean,
  consumer?: { key?: string; args: string[]; collection?: string },
  args: ArgValue[] = [],
): { x: Exchange; f: Found } | null {
  const hits: { x: Exchange; f: Found; echo: number; own: number; named: number; list: number; deps: number; dist: number }[] = [];
  earlier.forEach((y, dist) => {
    const f = findIn(y, v, { strongOnly: weak, consumerKey: consumer?.key });
    if (!f) return;
    const slots = requestSlots(y);
    const deps = slots.filter((s) => s.where !== 'path' && !lowEntropy(s.value)).length;
    const own = slots.some((s) => consumer?.args.includes(s.value)) ? 1 : 0;
    // (The answer of the collection the consumer's path addresses a member of: `GET /items/books`
    // for `/items/books/6`. Not any list that holds a 6: a field's `meta.id` in `GET /fields`.)
    const list = consumer?.collection && collectionOf(y.url) === consumer.collection ? 1 : 0;
    // (A record of a list that an argument names: the record the person chose, read by that
    // argument at run time — not a later refresh of the list that leaves its names out.)
    const named =
      args.length &&
      f.extractor.from === 'json' &&
      /\[\d+\]/.test(f.extractor.path) &&
      recordByArgument(f.extractor, parseJson(y.text), args)
        ? 1
        : 0;
    hits.push({ x: y, f, echo: slots.some((s) => s.value === v) ? 1 : 0, own, named, list, deps, dist });
  });
  hits.sort(
    (a, b) =>
      a.echo - b.echo ||
      b.own - a.own ||
      b.named - a.named ||
      b.list - a.list ||
      (b.f.keyMatch ?? 0) - (a.f.keyMatch ?? 0) ||
      a.deps - b.deps ||
      a.f.rank - b.f.rank ||
      a.dist - b.dist,
  );
  return hits[0] ?? null;
}

/**
 * The list `y` answered is a search for the argument (its request sends it): a read of the record
 * the person opened from it stays the list-then-detail hop — the first hit of the run's search —
 * rather than the hit whose name is exactly the query. (A write names its record exactly.)
 */
function searchedFor(y: Exchange, args: ArgValue[], arg: string): boolean {
  const example = args.find((a) => a.name === arg)?.example.toLowerCase();
  return !!example && requestSlots(y).some((s) => s.value.toLowerCase().includes(example));
}

/**
 * A name code uses, not a value the site hands out: a word or identifier without digits
 * (`search`, `torrent-get`, `SearchBooks`, a radio's `requesting-user-name-allowed` in CUPS's
 * form: the choice is the form's, the same on every load), or such names joined by dots — a JSON-RPC method
 * (`core.set_torrent_options`, `host.get`), which an API's own method list (Deluge's
 * `system.listMethods`) holds too, at a place that moves between starts.
 */
const codeName = (v: string) =>
  !randomLetters(v) &&
  ((v.length <= 40 && /^[a-z]+(?:[_-][a-z]+)*$/i.test(v)) ||
    (v.length <= 48 && /^[a-z]+(?:[_-][a-z]+)*(?:\.[a-z]+(?:[_-][a-z]+)*)+$/i.test(v)));

/** A field's name without its list places: `arguments.ids.0` → `ids`, `hostids[0]` → `hostids`. */
const listKey = (key: string) =>
  key
    .replace(/(\[\d*\])+$/, '')
    .split('.')
    .filter((k) => !/^\d+$/.test(k))
    .at(-1) ?? '';

/** A var for a field's value; a list's element is named by its list (`ids.0`, `hostids[0]` → `id`, `hostid`). */
const fieldVarName = (key: string) => listKey(key).replace(/(id)s$/i, '$1') || key;

/** A URL's path up to segment `upTo` (all of it when omitted), without a trailing slash: `/items/books`. */
function collectionOf(url: string, upTo?: number): string {
  const segs = new URL(url).pathname.split('/');
  return (upTo === undefined ? segs : segs.slice(0, upTo)).join('/').replace(/\/+$/, '');
}

/**
 * An argument that spans several path segments (a file path `notes/orchard.txt` in
 * `/api/contents/notes/orchard.txt`, a nested category) is one slot over those segments, keyed
 * `first-last`: the plan puts the argument there whole (`{{args.path | urlpath}}`).
 */
export function pathArgsJoined(slots: Slot[], args: ArgValue[]): Slot[] {
  const path = slots.filter((s) => s.where === 'path');
  let out = slots;
  for (const a of args) {
    const want = a.example.replace(/^\/+|\/+$/g, '').toLowerCase();
    if (!want.includes('/')) continue;
    const n = want.split('/').length;
    for (let i = 0; i + n <= path.length; i++) {
      const run = path.slice(i, i + n);
      if (!run.every((s, k) => k === 0 || Number(s.key) === Number(run[k - 1].key) + 1)) continue;
      if (
        run
          .map((s) => s.value)
          .join('/')
          .toLowerCase() !== want
      )
        continue;
      const joined: Slot = { ...run[0], key: `${run[0].key}-${run.at(-1)!.key}`, value: run.map((s) => s.value).join('/') };
      out = out.flatMap((s) => (s === run[0] ? [joined] : run.includes(s) ? [] : [s]));
      break;
    }
  }
  return out;
}
