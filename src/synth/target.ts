// Stage 2: which request(s) is the connector about? Every candidate gets a score with the reasons
// recorded; the best one wins, and its siblings on the same templated endpoint join it when they
// show pagination (page numbers or offsets counting up, a cursor taken from the previous response,
// or the chain of next-page links).
import { type ChosenUpload, fileParts, rawFile } from './file-args.js';
import { isSignInForm } from './html-form-record.js';
import { loadHtml } from './html-load.js';
import { nextLinkOf } from './html-structure.js';
import { isHtml, isJson, isRead, isXml, reqHeader, requestUrl, resHeader } from './normalize.js';
import { isFormBody, jsonLeaves, parseJson, recordsPath, requestSlots } from './slots.js';
import type { Exchange } from './types.js';
import { lowEntropy } from './values.js';

export interface Candidate {
  exchange: Exchange;
  score: number;
  /** The score without the recency bonus: what speaks for this request beyond being late. */
  evidence: number;
  reasons: string[];
}

export interface TargetFacts {
  /** Argument examples (lower-cased strings). */
  argValues: string[];
  /** Example result values (strings). */
  resultValues: string[];
  /** Exchange ids that carry a secret (login traffic). */
  secretCarriers: Set<string>;
  /** Time (ms) of the last submit/click/Enter action, when there is an action log. */
  lastActionTime: number | null;
  /** URLs of the pages the person picked the result on in the live view (picks.ts). */
  pickedUrls?: string[];
  /** Writes addressed by the record an argument names (an id a list linked to from its row): the
   * argument examples (lower case) they carry that way (named-records.ts). */
  namedBy?: Map<string, string[]>;
  /** The files the person chose in the live view (the recording's `upload` actions). */
  chosenFiles?: ChosenUpload[];
  /** The caller said the flow changes something (`hints.allow_side_effects`). */
  sideEffects?: boolean;
}

/** Words of a page's background writes: long polls, heartbeats, presence, read-time tracking. */
const BACKGROUND = /\b(poll|long-?poll|heartbeat|keep-?alive|presence|timings)\b/i;
/** The last path segment of a write that only checks what a later one will do (a name's
 * validation, a dry run, a preview). */
const CHECK_ONLY = /^(validate|validation|verify|check|dry-?run|preview|lint)$/i;
const checksOnly = (x: Exchange) => CHECK_ONLY.test(new URL(x.url).pathname.split('/').filter(Boolean).at(-1) ?? '');

export const isDownload = (x: Exchange) =>
  /attachment/i.test(resHeader(x, 'content-disposition') ?? '') || /text\/csv|application\/(pdf|octet-stream|vnd\.|zip)/.test(x.mime);
export const endpointKey = (x: Exchange) => {
  const u = new URL(x.url);
  return `${x.method} ${u.origin}${u.pathname}`;
};

/** `+` and %-escapes decoded (a URL, or an urlencoded body an XHR sent as raw text). */
const formDecoded = (t: string) => {
  try {
    return decodeURIComponent(t.replace(/\+/g, ' '));
  } catch {
    return t;
  }
};

export function requestText(x: Exchange): string {
  const body = x.body?.text ?? '';
  const text = x.body && isFormBody(x.body) ? formDecoded(body) : body;
  return `${formDecoded(x.url)}\n${text}\n${(x.body?.params ?? []).map((p) => `${p.name}=${p.value ?? ''}`).join('&')}`.toLowerCase();
}

const sameUrl = (a: string, b: string) => {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    x.hash = y.hash = '';
    return x.href === y.href;
  } catch {
    return a === b;
  }
};

/** A page navigation (the browser's own form submit), not a script's fetch/XHR. */
export const isNavigationRequest = (x: Exchange) =>
  x.isNavigation ||
  x.resourceType === 'document' ||
  /navigate/i.test(reqHeader(x, 'sec-fetch-mode') ?? '') ||
  reqHeader(x, 'sec-fetch-dest') === 'document';

/** An HTML document with its <html> element (not a fragment a script inserts into a page). */
const fullPage = (x: Exchange) => /<html[\s>]/i.test(x.text ?? '');

const typedIn = (x: Exchange, argValues: string[]) => {
  const rt = requestText(x);
  return argValues.filter(
    (v) =>
      v.length >= 1 &&
      (shortOrNumber(v)
        ? wholeIn(rt, v)
        : rt.includes(v) || (/ /.test(v.trim()) && ['_', '-'].some((sep) => rt.includes(v.trim().split(/\s+/).join(sep))))),
  );
};

/** The typed values a request sends as whole values of their own: a path segment, a parameter, a field. */
const wholeTyped = (x: Exchange, typed: string[]) => {
  const values = new Set(requestSlots(x).map((s) => s.value.trim().toLowerCase()));
  return typed.filter((v) => values.has(v.trim()));
};

/** A number or a short value ("2", "en") is typed where it stands alone: a uid of 2 is in `uid=2&`,
 * not in every clock reading or cache-buster with a 2 among its digits. */
const shortOrNumber = (v: string) => v.length < 4 || /^\d+$/.test(v);
const wholeIn = (text: string, v: string) =>
  new RegExp(`(^|[^A-Za-z0-9])${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9])`).test(text);

/**
 * What a JSON answer says about the typed values: `found`, the ones that occur inside longer
 * texts of listed records (search hits: "clara" in "Clara Graft"); `names`, the ones equal to the
 * `id` or `name` of the record it answers with (not one inside a list: the record that value addresses).
 */
function jsonEvidence(x: Exchange, argValues: string[]): { found: string[]; names: string[] } {
  if (!isJson(x) || !argValues.length) return { found: [], names: [] };
  const leaves = jsonLeaves(parseJson(x.text));
  const words = argValues.filter((v) => v.trim().length >= 2 && !/^\d+$/.test(v.trim()));
  const found = words.filter((v) =>
    leaves.some(
      (l) =>
        l.path.some((p) => typeof p === 'number') &&
        typeof l.value === 'string' &&
        l.value.length > v.length &&
        l.value.toLowerCase().includes(v),
    ),
  );
  const names = argValues.filter((v) =>
    leaves.some(
      (l) =>
        !l.path.some((p) => typeof p === 'number') &&
        // (a record's `name` too: queues, buckets, packages, branches are addressed by it)
        /^(id|uuid|key|slug|name|[a-z]+_id)$/i.test(String(l.path.at(-1))) &&
        String(l.value).toLowerCase() === v,
    ),
  );
  return { found, names };
}

/** A JSON answer with nothing to read: empty (`[]`, `{}`), or bare numbers and booleans in arrays
 * with no named field and no text (a progress bar's piece states, a chart's series): data for a
 * widget, not what a person looks at. */
function nothingToRead(x: Exchange): boolean {
  if (!isJson(x)) return false;
  const v = parseJson(x.text);
  if (v === null || typeof v !== 'object') return false;
  const leaves = jsonLeaves(v);
  return (
    !leaves.length || (leaves.length > 1 && leaves.every((l) => l.path.every((p) => typeof p === 'number') && typeof l.value !== 'string'))
  );
}

/** The text length of an HTML answer with under 100 characters of text and no form, table or list
 * (Cacti's `ping_host` "Device Status: Unknown", fetched by the edit page it follows), else null. */
function littleToRead(x: Exchange): number | null {
  const t = x.text ?? '';
  // (A form, a table or a list is data however short its text: an edit form's values are attributes.)
  if (!isHtml(x) || !t || t.length > 4000 || /<(form|table|input|select|textarea|ul|ol|dl)\b/i.test(t)) return null;
  const text = t
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[#\w]+;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length < 100 ? text.length : null;
}

/** A page with a sign-in form: a password box (or a one-time code's) beside at most two text boxes
 * — not a user's or a device's settings form that has a password among its fields. */
function signInPage(x: Exchange): boolean {
  if (!isHtml(x) || !/<input[^>]+(type=["']?password|autocomplete=["']?one-time-code)/i.test(x.text ?? '')) return false;
  const $ = loadHtml(x.text!);
  return (
    $('input[autocomplete=one-time-code]').length > 0 ||
    $('form')
      .toArray()
      .some((f) => isSignInForm($(f))) ||
    // (A password box outside any form: a script signs in with it.)
    $('input[type=password]').filter((_, e) => !$(e).closest('form').length).length > 0
  );
}

export function scoreTargets(xs: Exchange[], f: TargetFacts): Candidate[] {
  const n = xs.length;
  // The typed values some request carries: a request carrying all of them (the PATCH of the id and
  // the new year) is more the point than one carrying a part (the record's GET by its id).
  // (The typed values each request carries, found once: every rule below asks.)
  const typedOf = new Map(xs.map((x) => [x.id, [...new Set([...typedIn(x, f.argValues), ...(f.namedBy?.get(x.id) ?? [])])]]));
  const typedBy = (x: Exchange) => typedOf.get(x.id)!;
  const carried = new Set(xs.flatMap(typedBy)).size;
  // How many requests send each typed value: one sent by a single request went there.
  const senders = new Map<string, number>();
  for (const x of xs) for (const v of typedBy(x)) senders.set(v, (senders.get(v) ?? 0) + 1);
  const evidenceOf = new Map(xs.map((x) => [x.id, jsonEvidence(x, f.argValues)]));
  // Typed values a read request searched with and found records for: a background write carrying
  // only those (a saved view, a remembered filter) is the app keeping its state, not the point.
  const searched = new Set(xs.filter((x) => isRead(x) && typedBy(x).length).flatMap((x) => evidenceOf.get(x.id)!.found));
  // Pages the person opened (full HTML documents) with typed values in their request: an HTML
  // fragment a script of that page then fetched with the same values (a ticket's history, a
  // comments panel) is a part of the page, not the page.
  const opened = xs
    .filter((x) => isRead(x) && isNavigationRequest(x) && isHtml(x) && fullPage(x))
    .map((d) => ({ index: d.index, typed: new Set(typedBy(d)) }));
  // Form submits (and links that act: `post.php?post=12&action=trash`) that carry typed values: a
  // background XHR with the same values (autosave, preview, live validation, a poll about the
  // page's rows) is not the point of the flow.
  const submits = xs.filter((x) => !isRead(x) && !f.secretCarriers.has(x.id) && isNavigationRequest(x)).map((x) => new Set(typedBy(x)));
  // Writes that carry typed values: a read before one, carrying only some of them, looked
  // something up for it (a typeahead's search for the group typed into a create form).
  const writes = xs
    .filter((x) => !isRead(x) && !f.secretCarriers.has(x.id))
    .map((x) => ({ x, index: x.index, typed: typedBy(x), whole: wholeTyped(x, typedBy(x)) }))
    .filter((w) => w.typed.length);
  // JSON reads by the typed values they carry, with the size of their answers (named fields: bare
  // numbers are data for a widget): of two calls a page polls about the same record (a folder's
  // status and its sync completion), the fuller one.
  const jsonReads = xs
    .filter((x) => isRead(x) && isJson(x) && !f.secretCarriers.has(x.id))
    .map((x) => ({
      x,
      typed: [...typedBy(x)].sort().join('\n'),
      leaves: namedLeaves(x),
    }))
    .filter((r) => r.typed);
  const lastWrite = carried === 0 && !f.resultValues.length && f.lastActionTime === null ? plainLastWrite(xs, f) : undefined;
  const fullestLast = carried === 0 && !f.resultValues.length ? fullestOfLastBurst(xs, f) : undefined;
  // The caller said the flow changes something: the last write that carries every typed value, each
  // as a value of its own (not one that only checks, not the app saving a search, not a draft's
  // name, not chatter) commits it — Unleash's archive DELETE after the flag's page was read and
  // the archive checked (`…/validate`) — and a read that carried those values before it looked the
  // record up.
  const chatter = f.sideEffects ? chatterOf(xs) : () => false;
  const commit = f.sideEffects
    ? writes
        .filter(
          ({ x, typed, whole }) =>
            typed.length === carried &&
            whole.length === typed.length &&
            x.status >= 200 &&
            x.status < 400 &&
            !checksOnly(x) &&
            !typed.every((v) => searched.has(v)) &&
            !chatter(x),
        )
        .at(-1)?.x
    : undefined;
  // A form on the page a typed read opened, submitted from it with nothing typed of its own (LAM's
  // "Delete" on the confirmation page the entry's DN opened: the entry waits in the session): the
  // read led to that write, which is the point. (Never a sign-out.)
  const typedPages = xs.filter((r) => isRead(r) && typedBy(r).length && isHtml(r) && !!r.text && !f.secretCarriers.has(r.id));
  const confirmOf = new Map<string, Exchange>();
  for (const x of xs) {
    if (isRead(x) || !isNavigationRequest(x) || f.secretCarriers.has(x.id) || typedBy(x).length || SIGN_OUT.test(x.url)) continue;
    // (Right after it: the next page the person went to. A later submit came from that page.)
    const from = typedPages
      .filter((r) => r.index < x.index && !xs.some((y) => y.index > r.index && y.index < x.index && isNavigationRequest(y)))
      .find((r) => submittedFrom(r, x));
    if (from) confirmOf.set(x.id, from);
  }
  // A form posted back from the page that reviewed it (phpLDAPadmin's "update_confirm": the typed
  // values posted, a page listing the changes, its form posting them again): the second submit
  // makes the change, the first only showed it. (Right after it, carrying the same typed values.)
  for (const x of xs) {
    const typed = typedBy(x);
    if (isRead(x) || !isNavigationRequest(x) || f.secretCarriers.has(x.id) || !typed.length || SIGN_OUT.test(x.url)) continue;
    const prev = xs.filter((r) => r.index < x.index && isNavigationRequest(r)).at(-1);
    if (!prev || isRead(prev) || prev.status !== 200 || !isHtml(prev) || !prev.text || f.secretCarriers.has(prev.id)) continue;
    const shown = new Set(typedBy(prev));
    if (typed.every((v) => shown.has(v)) && submittedFrom(prev, x)) confirmOf.set(x.id, prev);
  }
  const confirmed = new Set([...confirmOf.values()].map((r) => r.id));
  return xs
    .map((x, pos) => {
      const reasons: string[] = [];
      let score = 0;
      const add = (s: number, why: string) => {
        score += s;
        reasons.push(`${s > 0 ? '+' : ''}${s} ${why}`);
      };
      if (isJson(x)) add(3, 'JSON response');
      else if (isDownload(x)) add(3, `download (${x.mime || 'attachment'})`);
      else if (isHtml(x)) add(1, 'HTML response');
      else if (isXml(x)) add(1, 'XML response');
      // (A write's answer is often empty or a bare "Ok.": that says nothing against the write.)
      else if (!isRead(x) && (x.text ?? '').trim().length <= 16) add(0, `a write's short answer (${x.mime || 'none'})`);
      else add(-2, `response type ${x.mime || 'none'}`);
      if (x.status >= 400) add(-5, `status ${x.status}`);
      if (nothingToRead(x)) add(-2, 'an answer with nothing to read (empty, or bare numbers: data for a widget)');
      const signIn = signInPage(x);
      if (signIn) add(-3, 'a sign-in form');
      const little = isRead(x) && !signIn && !isNavigationRequest(x) ? littleToRead(x) : null;
      if (little !== null) add(-2, `a page fragment with little to read (${little} characters: a status a script polls)`);
      if (x.id.endsWith('~final')) reasons.push('the page a login landed on (fetched again after the login chain)');
      // (A file the person chose is something they gave the flow, as a typed value is.)
      const sent = [...fileParts(x).map(({ p }) => p.fileName), ...[rawFile(x, f.chosenFiles ?? [])?.name ?? []].flat()];
      if (sent.length) add(4, `sends the file(s) the person chose: ${sent.map((v) => JSON.stringify(v)).join(', ')}`);
      const typed = typedBy(x);
      if (typed.length)
        add(
          Math.round((40 * typed.length) / carried) / 10,
          `request carries typed value(s) ${typed.map((v) => JSON.stringify(v)).join(', ')}${typed.length < carried ? ` (${typed.length} of ${carried})` : ''}`,
        );
      // (A write sending every typed value, some of which no other request sends — the new
      // label in a whole settings document — over a read that merely names the same record.)
      const only = typed.filter((v) => senders.get(v) === 1);
      if (!isRead(x) && !f.secretCarriers.has(x.id) && carried > 1 && typed.length === carried && only.length)
        add(3, `the only request that sends typed value(s) ${only.map((v) => JSON.stringify(v)).join(', ')}`);
      if (!isRead(x) && typed.length && !f.secretCarriers.has(x.id)) {
        if (isNavigationRequest(x)) add(2, 'the form submit (a page navigation)');
        else if (submits.some((set) => typed.every((v) => set.has(v))))
          add(-5, 'a background request carrying the same typed values as a form submit (autosave/preview)');
        else if (typed.every((v) => searched.has(v)))
          add(-4, 'a background write of only what a search request searched with (the app saving its view)');
      }
      // (TiddlyWiki deletes "Draft of 'Apple Scab' by seed" beside "Apple Scab": the write about
      // the record sends the typed value as a value of its own, a path segment or a field.)
      const me = writes.find((w) => w.x === x);
      if (me && me.whole.length < typed.length && writes.some((w) => w !== me && typed.every((v) => w.whole.includes(v))))
        add(-2, "a write that sends typed value(s) only inside a longer value (a draft's name), beside one that sends them whole");
      if (
        typed.length &&
        isRead(x) &&
        isHtml(x) &&
        !isNavigationRequest(x) &&
        !fullPage(x) &&
        opened.some((d) => d.index < x.index && typed.every((v) => d.typed.has(v)))
      )
        add(-2, 'an HTML fragment that the page opened with the same typed values fetched (a part of that page)');
      const ev = evidenceOf.get(x.id)!;
      if (ev.found.length && typed.length)
        add(3, `records in the answer hold typed value(s) ${ev.found.map((v) => JSON.stringify(v)).join(', ')} (search hits)`);
      const mine = jsonReads.find((r) => r.x === x);
      const rivals = mine ? jsonReads.filter((r) => r.typed === mine.typed && new URL(r.x.url).pathname !== new URL(x.url).pathname) : [];
      if (mine && rivals.length && rivals.every((r) => mine.leaves >= 2 * r.leaves))
        add(1.5, 'the fullest answer of the reads that carry the same typed values');
      if (isRead(x) && typed.length && writes.some((w) => w.index > x.index && w.typed.some((v) => !typed.includes(v))))
        add(-4, 'a lookup before a write that sends other typed values (the write is the point)');
      else if (isRead(x) && typed.length && commit && commit.index > x.index)
        add(-4, 'a lookup before the write that carries the same typed values (the caller allowed side effects)');
      if (x === commit) add(2, 'the last write carrying every typed value (the caller allowed side effects)');
      if (confirmOf.has(x.id)) add(5, 'a form submitted from the page the typed values opened (a confirmation)');
      if (confirmed.has(x.id)) add(-2, 'a lookup whose page then submitted a form (the submit is the point)');
      if (!isRead(x) && checksOnly(x)) add(-3, 'a write that only checks (a validation, a dry run), not the change itself');
      if (ev.names.length && typed.some((v) => ev.names.includes(v)))
        add(3, `the answer is the record typed value(s) ${ev.names.map((v) => JSON.stringify(v)).join(', ')} name(s)`);
      const body = (x.text ?? '').toLowerCase();
      const res = f.resultValues.filter((v) => body.includes(v.toLowerCase()));
      if (res.length)
        add(
          6 * (res.length / f.resultValues.length),
          `response contains expected result value(s) ${res.map((v) => JSON.stringify(v)).join(', ')}`,
        );
      // The document the person picked from (when it holds what they picked; a page that renders
      // its data from a JSON call leaves the call the better target).
      if (res.length && isHtml(x) && f.pickedUrls?.some((u) => sameUrl(u, x.url))) add(6, 'the page the person picked the result on');
      if (f.secretCarriers.has(x.id)) add(-8, 'login traffic (carries a secret)');
      // A POST is the point of the flow when it carries what the person typed or follows their last action.
      if (!isRead(x) && !f.secretCarriers.has(x.id) && (typed.length || (f.lastActionTime !== null && x.time >= f.lastActionTime)))
        add(2, `state-changing ${x.method} after a submit`);
      if (f.lastActionTime !== null && x.time >= f.lastActionTime) add(2, 'after the last meaningful action');
      if (x === lastWrite) add(4, 'the last write of a recording with nothing typed and no action log');
      if (x === fullestLast) add(1.5, 'the fullest of the JSON reads the page made together at the end (its content, not a side panel)');
      if (lastWrite && x.index > lastWrite.index && fetchedAgain(xs, lastWrite, x))
        add(-2, 'the page fetching again what it showed, after the write');
      const evidence = Math.round(score * 10) / 10;
      add(Math.round(((3 * (pos + 1)) / n) * 10) / 10, `recency (${pos + 1} of ${n})`);
      return { exchange: x, score: Math.round(score * 10) / 10, evidence, reasons };
    })
    .sort((a, b) => b.score - a.score || b.exchange.index - a.exchange.index);
}

const SIGN_OUT = /log-?out|sign-?out|log-?off/i;

/** Whether POST `x` was sent by a form of `page` (same address, most of its fields named there). */
function submittedFrom(page: Exchange, x: Exchange): boolean {
  const $ = loadHtml(page.text!);
  const to = new URL(x.url);
  const keys = requestSlots(x)
    .filter((s) => s.where === 'form' || s.where === 'multipart')
    .map((s) => s.key);
  if (!keys.length) return false;
  return $('form')
    .toArray()
    .some((el) => {
      const form = $(el);
      if ((form.attr('method') ?? 'get').toLowerCase() !== 'post') return false;
      let action: URL;
      try {
        action = new URL(form.attr('action') ?? '', page.finalUrl || page.url);
      } catch {
        return false;
      }
      if (action.origin !== to.origin || action.pathname !== to.pathname) return false;
      const names = new Set(
        form
          .find('[name]')
          .map((_, e) => $(e).attr('name'))
          .get(),
      );
      return keys.filter((k) => names.has(k)).length * 2 >= keys.length;
    });
}

export type Paging =
  /** `in: 'json'`: `param` is a JSON body leaf (`variables.skip`), not a query parameter. */
  | { mode: 'page'; param: string; start: number; step?: number; in?: 'json' }
  | { mode: 'cursor'; param: string; nextPath: (string | number)[]; in?: 'json' }
  | { mode: 'next_url'; param?: undefined; selector: string }
  | null;

const countsUp = (n: number[]) => n.length > 0 && n.every((v, i) => !Number.isNaN(v) && (i === 0 || v === n[i - 1] + 1));

/** Pagination shown by the recording: the target's endpoint called again with a moving parameter. */
export function detectPaging(target: Exchange, all: Exchange[]): { paging: Paging; samples: Exchange[] } {
  const key = endpointKey(target);
  const samples = all.filter((x) => endpointKey(x) === key && x.status < 400);
  // (One call of the endpoint moves no parameter; its "next" link may still lead to other paths.)
  const qs = samples.map((x) => new URL(x.url).searchParams);
  const names = new Set(qs.flatMap((q) => [...q.keys()]));
  // The pages of one list differ in the page parameter only: the app's other calls to the same
  // path (a count, a lookup: `?aggregate[count]=id`) are no pages of it.
  const rest = (q: URLSearchParams, p: string) =>
    JSON.stringify([...q.entries()].filter(([k]) => k !== p).sort(([a, x], [b, y]) => a.localeCompare(b) || x.localeCompare(y)));
  const targetQ = new URL(target.url).searchParams;
  // (A page loaded again — the app refreshing its list — is the same page: the target, else the
  // load that holds a body, stands for it.)
  const kept = samples.map((_, i) => {
    const same = samples.map((_y, j) => j).filter((j) => sameUrl(samples[j].url, samples[i].url));
    return (same.find((j) => samples[j].id === target.id) ?? same.find((j) => !!samples[j].text) ?? same[0]) === i;
  });
  const pagesBy = (p: string) => {
    const at = samples.map((_x, i) => i).filter((i) => kept[i] && rest(qs[i], p) === rest(targetQ, p));
    return { xs: at.map((i) => samples[i]), qs: at.map((i) => qs[i]) };
  };
  for (const p of names) {
    const pages = pagesBy(p);
    if (pages.xs.length < 2) continue;
    const nums = pages.qs.map((q) => (/^\d+$/.test(q.get(p) ?? '') ? Number(q.get(p)) : NaN));
    if (countsUp(nums)) return { paging: { mode: 'page', param: p, start: nums[0] }, samples: pages.xs };
    // An offset: growing by the page size (0, 25, 50), which another parameter names (limit=25)
    // or the first answer's record count shows.
    const step = nums[1] - nums[0];
    if (step > 1 && nums.every((v, i) => !Number.isNaN(v) && (i === 0 || v === nums[i - 1] + step))) {
      const named = [...names].some((o) => o !== p && pages.qs.every((q) => q.get(o) === String(step)));
      if (named || recordsPath(parseJson(pages.xs[0].text))?.size === step)
        return { paging: { mode: 'page', param: p, start: nums[0], step }, samples: pages.xs };
    }
  }
  // Cursor: the parameter's value in call k+1 is a leaf of response k.
  for (const p of names) {
    // A cursor moves: a parameter equal in every call (limit=3) is not one, whatever it matches.
    if (new Set(qs.map((q) => q.get(p))).size < 2) continue;
    for (let i = 1; i < samples.length; i++) {
      const v = qs[i].get(p);
      if (!v || lowEntropy(v)) continue;
      const leaf = jsonLeaves(parseJson(samples[i - 1].text)).find((l) => String(l.value) === v);
      if (leaf) return { paging: { mode: 'cursor', param: p, nextPath: leaf.path }, samples };
    }
  }
  const inBody = bodyPaging(target, samples);
  if (inBody) return inBody;
  // A next-page link: the pages up to the target, each where the previous page's "next" link
  // pointed, and on from it. Every HTML page of the recording counts: pages by path (/page/2/,
  // /page/3/) are other endpoints.
  const links = new Map<Exchange, ReturnType<typeof nextLinkOf>>();
  const followed = (from: Exchange, to: Exchange) => {
    if (!links.has(from)) links.set(from, isHtml(from) && from.text ? nextLinkOf(from.text) : null);
    const l = links.get(from);
    if (!l) return null;
    try {
      // (The link may name where a redirect of the request landed: /page/2 → /page/2/.)
      const href = new URL(l.href, from.finalUrl || from.url).href;
      return [to.url, to.finalUrl].some((u) => u && new URL(u).href === href) ? l : null;
    } catch {
      return null;
    }
  };
  const html = all.filter((x) => x.method === 'GET' && x.status < 400 && isHtml(x) && !!x.text);
  const chain = [target];
  for (let x: Exchange | undefined = target; x; ) {
    const to: Exchange = x;
    x = html.filter((y) => y.index < to.index && !chain.includes(y) && followed(y, to)).at(-1);
    if (x) chain.unshift(x);
  }
  for (let x: Exchange | undefined = target; x; ) {
    const from: Exchange = x;
    x = html.find((y) => y.index > from.index && !chain.includes(y) && followed(from, y));
    if (x) chain.push(x);
  }
  if (chain.length >= 2) return { paging: { mode: 'next_url', selector: followed(chain[0], chain[1])!.selector }, samples: chain };
  // No "next" link (a pager of numbers only): the first page reached without the parameter (the
  // list's own link), then page links counting up (p=2, p=3). The first page is the number before
  // the first one seen; one page after it is evidence enough only for a parameter named like a page.
  for (const p of names) {
    const pages = pagesBy(p);
    const nums = pages.qs.map((q) => (/^\d+$/.test(q.get(p) ?? '') ? Number(q.get(p)) : NaN));
    if (nums.length > 1 && pages.qs[0].get(p) === null && (nums.length > 2 || pageLike(p)) && countsUp(nums.slice(1)) && nums[1] >= 1) {
      return { paging: { mode: 'page', param: p, start: nums[1] - 1 }, samples: pages.xs };
    }
  }
  // A pager of numbers whose links carry more than the list's own URL (its sort, its columns, a
  // renamed page size): the pages the person reached by a link of the page before, where a
  // page-like parameter the target lacks counts up from 2. The target's URL with that parameter
  // set to 1, 2, … reaches each page (a site clamping past the end is stopped by the runtime).
  const at = samples.findIndex((x) => x.id === target.id);
  for (const p of [...names].filter(pageLike)) {
    if (at < 0 || targetQ.get(p) !== null) continue;
    const chain = [target];
    for (const x of samples.slice(at + 1)) {
      const n = new URL(x.url).searchParams.get(p);
      if (n === String(chain.length + 1) && linksTo(chain.at(-1)!, x.url)) chain.push(x);
    }
    if (chain.length >= 2) return { paging: { mode: 'page', param: p, start: 1 }, samples: chain };
  }
  return { paging: null, samples: [target] };
}

/**
 * Pages asked for in a JSON body (a POST search, GraphQL variables — one endpoint for every call):
 * the calls whose bodies equal the target's but for one leaf, which counts up (a page), grows by the
 * page size that another leaf or the first answer's record count states (an offset), or carries a
 * value of the answer before (a cursor). The first page may lack that leaf (the search, then "More").
 */
function bodyPaging(target: Exchange, samples: Exchange[]): { paging: Paging; samples: Exchange[] } | null {
  const leavesOf = (x: Exchange) => {
    const b = x.method === 'GET' ? undefined : parseJson(x.body?.text);
    return b && typeof b === 'object' ? new Map(jsonLeaves(b).map((l) => [l.path.join('.'), l.value])) : null;
  };
  const mine = leavesOf(target);
  if (!mine) return null;
  const diff = (m: Map<string, unknown>) =>
    [...new Set([...m.keys(), ...mine.keys()])].filter((k) => JSON.stringify(m.get(k)) !== JSON.stringify(mine.get(k)));
  // (The calls that differ from the target's in exactly one leaf, by that leaf.)
  const others = samples
    .filter((x) => x.id !== target.id)
    .map((x) => ({ x, m: leavesOf(x) }))
    .flatMap((o) => {
      const d = o.m ? diff(o.m) : [];
      return d.length === 1 ? [{ ...o, k: d[0] }] : [];
    });
  for (const k of new Set(others.map((o) => o.k))) {
    const group = [{ x: target, m: mine }, ...others.filter((o) => o.k === k)]
      .map((o) => ({ x: o.x, v: o.m!.get(k) }))
      .sort((a, b) => a.x.index - b.x.index);
    if (group.length < 2) continue;
    const withKey = group.filter((g) => g.v !== undefined && g.v !== null);
    const nums = withKey.map((g) => (typeof g.v === 'number' ? g.v : Number.NaN));
    const lead = group.length - withKey.length; // pages before the leaf was sent (at most the first)
    if (lead <= 1 && withKey.length && nums.every((n) => Number.isInteger(n))) {
      const step = withKey.length > 1 ? nums[1] - nums[0] : nums[0];
      const steady = step >= 1 && nums.every((n, i) => i === 0 || n === nums[i - 1] + step);
      const start = nums[0] - lead * step;
      // A page number counts by one from 0 or 1; an offset by the page size, named by another leaf
      // (`first: 20`, `take`, `limit`) or shown by the first answer's record count.
      const pageNo = step === 1 && (start === 0 || start === 1);
      const size = [...mine.entries()].some(([o, v]) => o !== k && v === step) || recordsPath(parseJson(group[0].x.text))?.size === step;
      if (steady && (pageNo || size) && start >= 0)
        return { paging: { mode: 'page', param: k, start, ...(step > 1 ? { step } : {}), in: 'json' }, samples: withKey.map((g) => g.x) };
    }
    // A cursor: each value a leaf of the answer before it (the first page sends none, or null).
    if (lead <= 1 && withKey.length && withKey.every((g) => typeof g.v === 'string' && !lowEntropy(g.v))) {
      const at = group.indexOf(withKey[0]);
      const leaf = at > 0 ? jsonLeaves(parseJson(group[at - 1].x.text)).find((l) => l.value === withKey[0].v) : undefined;
      if (leaf) return { paging: { mode: 'cursor', param: k, nextPath: leaf.path, in: 'json' }, samples: withKey.map((g) => g.x) };
    }
  }
  return null;
}

const pageLike = (p: string) => /^(p|pg|pn|page|paged|page_?(no|num|number))$/i.test(p);

/** Whether an HTML page has a link to `url`. */
function linksTo(from: Exchange, url: string): boolean {
  if (!isHtml(from) || !from.text) return false;
  const $ = loadHtml(from.text);
  return $('a[href]')
    .toArray()
    .some((a) => {
      try {
        return sameUrl(requestUrl(new URL($(a).attr('href')!, from.url).href), url);
      } catch {
        return false;
      }
    });
}

/** How full a JSON answer is: its leaves under named fields (bare numbers are data for a widget). */
const namedLeaves = (x: Exchange) => jsonLeaves(parseJson(x.text)).filter((l) => typeof l.path.at(-1) === 'string').length;

/** Reads a page sends together (one click's, one load's): started within this many ms of each other. */
const BURST_MS = 250;

/**
 * A recording with nothing typed and no result named whose last JSON reads went out together —
 * Rspamd's History tab loads its history and then its error log — the fullest of them (twice the
 * named fields of each other) is what the person opened; the last is merely the last. (Only the
 * final burst: an earlier one, the app's start, is not what the recording ends on. Only where
 * nothing was written but the sign-in: a write is the point of the flow, and the reads after it
 * the page showing it again.)
 */
function fullestOfLastBurst(xs: Exchange[], f: TargetFacts): Exchange | undefined {
  if (xs.some((x) => !isRead(x) && !f.secretCarriers.has(x.id))) return undefined;
  const reads = xs.filter((x) => isRead(x) && isJson(x) && x.status < 400 && !f.secretCarriers.has(x.id));
  const last = reads.at(-1);
  if (!last) return undefined;
  const burst = reads
    .filter((x) => x.time <= last.time && last.time - x.time <= BURST_MS)
    .map((x) => ({
      x,
      path: new URL(x.url).pathname,
      leaves: namedLeaves(x),
    }));
  const best = burst.reduce((a, b) => (b.leaves > a.leaves ? b : a), burst[0]!);
  const rivals = burst.filter((r) => r.path !== best.path);
  return rivals.length && rivals.every((r) => best.leaves >= 2 * r.leaves) ? best.x : undefined;
}

/**
 * A recording with nothing typed, no result named and no action log (a plain HAR of pressing a
 * button: Node-RED's inject, a "run now") that ends with a write: that write is the point. (Not a
 * write the page went on from — a widget's call before the person opened other pages, a token
 * fetched for the call after it — and not a page's background chatter: a poll, a heartbeat,
 * read-time tracking, or any write the page sent again to the same endpoint.)
 */
function plainLastWrite(xs: Exchange[], f: TargetFacts): Exchange | undefined {
  const chatter = chatterOf(xs);
  // (After it, within a few seconds, only the page a submitted form led to, or the page fetching
  // again what it had shown — Unleash's flag list reloaded after a switch —, nothing new.)
  const refreshes = (w: Exchange, y: Exchange) => !isNavigationRequest(y) && fetchedAgain(xs, w, y);
  const ends = (w: Exchange) =>
    xs.every(
      (y) => y.index <= w.index || (y.time - w.time < 5_000 && ((isNavigationRequest(w) && isNavigationRequest(y)) || refreshes(w, y))),
    );
  return xs.filter((x) => !isRead(x) && !f.secretCarriers.has(x.id) && x.status >= 200 && x.status < 400 && !chatter(x) && ends(x)).at(-1);
}

/** `y` reads again an endpoint the page had read before the write `w` (its list reloaded after a switch). */
const fetchedAgain = (xs: Exchange[], w: Exchange, y: Exchange) =>
  isRead(y) && xs.some((z) => z.index < w.index && endpointKey(z) === endpointKey(y));

/** A page's background chatter among the writes of `xs`: a write sent again to the same endpoint,
 * or one whose path or form `action` says poll, heartbeat, presence (WordPress's `admin-ajax.php`
 * with `action=heartbeat`). */
function chatterOf(xs: Exchange[]): (x: Exchange) => boolean {
  const sent = new Map<string, number>();
  for (const x of xs) if (!isRead(x)) sent.set(endpointKey(x), (sent.get(endpointKey(x)) ?? 0) + 1);
  return (x) =>
    sent.get(endpointKey(x))! > 1 ||
    BACKGROUND.test(new URL(x.url).pathname) ||
    BACKGROUND.test(/(?:^|&)action=([^&]*)/.exec(x.body?.text ?? '')?.[1] ?? '');
}
