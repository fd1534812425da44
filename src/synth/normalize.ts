// Stage 0: read a HAR (ours or anyone's) into Exchanges. Redirect hops are folded into the request
// that started them: an engine following redirects sees exactly that (request, final response).
import type { Action, Har, HarEntry } from '../formats/recording/types.js';
import { redirectTarget } from '../lib/redirect-header.js';
import { basicToken } from '../lib/secret-forms.js';
import { parseMultipart } from './multipart.js';
import { parseJson } from './slots.js';
import { READ_VERBS, WRITE_VERBS, nameWords } from './verbs.js';
import type { Exchange, Recording } from './types.js';
import { looksRandom } from './values.js';
import { sniffedType, untyped } from '../lib/sniff.js';

const header = (hs: { name: string; value: string }[], n: string) => hs.find((h) => h.name.toLowerCase() === n)?.value;

/** Response text; DevTools stores some text bodies base64-encoded. */
function bodyText(e: HarEntry): string | undefined {
  const c = e.response?.content;
  if (!c?.text) return undefined;
  if (c.encoding !== 'base64') return c.text;
  if (/json|text|html|xml|javascript|csv/i.test(c.mimeType ?? '')) return Buffer.from(c.text, 'base64').toString('utf8');
  // (Served without a type: text only if a browser would have shown it as a page or read it as data.)
  const t = untyped(c.mimeType) ? Buffer.from(c.text, 'base64').toString('utf8') : '';
  return t && !t.includes('\uFFFD') && sniffedType(t) ? t : undefined;
}

/**
 * The request body. Multipart text without params (Playwright) is parsed by its boundary; a
 * multipart request whose body the browser did not record at all (Chromium keeps no bytes for
 * FormData holding a File) is marked `missing`, so synthesis never replays an empty form.
 */
function bodyOf(e: HarEntry): Exchange['body'] {
  const pd = e.request.postData;
  const ct = header(e.request.headers ?? [], 'content-type') ?? '';
  if (!pd) return /multipart\/form-data/i.test(ct) && e.request.method.toUpperCase() !== 'GET' ? { mime: ct, missing: true } : null;
  const mime = pd.mimeType || ct;
  if (/multipart\/form-data/i.test(mime) && !pd.params?.length && pd.text) {
    const params = parseMultipart(pd.text, /boundary=/i.test(mime) ? mime : ct);
    if (params) return { mime, text: pd.text, params };
  }
  if (/multipart\/form-data/i.test(mime) && !pd.params?.length && !pd.text) return { mime, missing: true };
  return { mime, text: pd.text, params: pd.params, ...(pd._sha256 ? { sha256: pd._sha256.replace(/^sha256:/, '') } : {}) };
}

/**
 * A URL as synthesis reads it: CGI-style `;` separators as `&`, and without a Java servlet's
 * session id in the path (`/deploy;jsessionid=68FF…`, written into links while the session cookie
 * is new): the session travels in the JSESSIONID cookie the engine's jar keeps, and an id in the
 * path traces to nothing.
 */
export const requestUrl = (url: string): string => cgiQuery(url.replace(/;jsessionid=[^/?#;]*/gi, ''));

/**
 * A query whose parameters are separated by `;` as well as `&` (CGI.pm's style, which Perl and
 * Plack apps print in their links: `?Action=Comment;id=2`), with `&` there, so each parameter is
 * a slot of its own (the ticket id in it follows an argument). Servers that print `;` read both.
 * Only `;` before a `name=` is a separator: `q=a;b` stays one value.
 */
export function cgiQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || !url.includes(';', q)) return url;
  const h = url.indexOf('#', q);
  const query = url.slice(q + 1, h < 0 ? undefined : h);
  const parts = query.split('&').map((p) => (/^[^=;]+=[^;]*(;[A-Za-z_][\w.%[\]-]*=[^;]*)+$/.test(p) ? p.replace(/;/g, '&') : p));
  return `${url.slice(0, q + 1)}${parts.join('&')}${h < 0 ? '' : url.slice(h)}`;
}

/**
 * A JSON answer served as text (`text/plain`, `text/html`, `application/octet-stream` or no type:
 * a PHP app's `echo json_encode(…)`) is JSON: its records are the data, not the page text. And an
 * answer typed JSON whose body is none (tt-rss sends every answer as `text/json`, "Created label
 * <b>…</b>" and an empty save answer too) is the markup or text it is.
 */
function sniffedMime(mime: string, text: string | undefined): string {
  const t = text?.trim() ?? '';
  // (No type, or HAR's `x-unknown`: what the browser sniffed — CUPS serves its pages untyped. The
  // sniffed type is final: JSON was parsed there.)
  const sniffed = untyped(mime) && t ? sniffedType(t) : null;
  if (sniffed) return sniffed;
  if (/json/.test(mime) && parseJson(t) === undefined) return /<[a-z][\w-]*(\s[^>]*)?>/i.test(t) ? 'text/html' : 'text/plain';
  if (/json|xml|csv|javascript|css/.test(mime) || !/^(text\/(plain|html)|application\/octet-stream)?(;|$)/.test(mime)) return mime;
  if (!/^[[{]/.test(t) || parseJson(t) === undefined) return mime;
  return 'application/json';
}

function toExchange(e: HarEntry, index: number): Exchange {
  const anyE = e as HarEntry & { _resourceType?: string };
  const text = bodyText(e);
  return {
    id: e._id ?? `e${index + 1}`,
    index,
    time: Date.parse(e.startedDateTime),
    method: e.request.method.toUpperCase(),
    url: requestUrl(e.request.url),
    reqHeaders: e.request.headers ?? [],
    reqCookies: e.request.cookies ?? [],
    body: bodyOf(e),
    status: e.response?.status ?? 0,
    resHeaders: e.response?.headers ?? [],
    setCookies: e.response?.cookies ?? [],
    mime: sniffedMime((e.response?.content?.mimeType ?? header(e.response?.headers ?? [], 'content-type') ?? '').toLowerCase(), text),
    text,
    redirectURL: e.response?.redirectURL || header(e.response?.headers ?? [], 'location') || '',
    resourceType: (e._resource_type ?? anyE._resourceType ?? '').toLowerCase(),
    actionId: e._action_id ?? null,
    isNavigation: e._is_navigation ?? false,
    hops: [],
    finalUrl: requestUrl(e.request.url),
    redirectedFrom: e._redirected_from ?? null,
  };
}

/** Folds each redirect chain into its first request; returns the remaining exchanges. */
export function foldRedirects(all: Exchange[]): Exchange[] {
  const consumed = new Set<string>();
  const out: Exchange[] = [];
  for (const x of all) {
    if (consumed.has(x.id)) continue;
    let cur = x;
    const merged: Exchange = { ...x };
    for (;;) {
      let next: Exchange | undefined;
      if (cur.status >= 300 && cur.status < 400 && cur.redirectURL) {
        const target = requestUrl(new URL(cur.redirectURL, cur.url).href);
        next = all.find(
          (y) =>
            y.index > cur.index &&
            !consumed.has(y.id) &&
            y.id !== x.id &&
            (y.redirectedFrom ? y.redirectedFrom === cur.id : y.url === target),
        );
      } else {
        const hop = headerRedirect(cur, all, consumed);
        if (hop) {
          next = hop.next;
          merged.redirectHeader = hop.header;
        }
      }
      if (!next) break;
      consumed.add(next.id);
      merged.hops.push(next.id);
      merged.setCookies = [...merged.setCookies, ...next.setCookies];
      Object.assign(merged, {
        status: next.status,
        resHeaders: next.resHeaders,
        mime: next.mime,
        text: next.text,
        finalUrl: next.url,
        redirectURL: next.redirectURL,
      });
      cur = next;
    }
    if (merged.hops.length) merged.redirectURL = cur.redirectURL;
    out.push(merged);
  }
  return out;
}

/**
 * A 2xx answer with no body whose header (`X-Icinga-Redirect`, htmx's `HX-Redirect`: a name that
 * says redirect) holds the URL of the GET the page made next, on the same origin: the page's script
 * followed it as a browser follows a 303. The value may be percent-encoded once (Icinga's is).
 */
function headerRedirect(cur: Exchange, all: Exchange[], consumed: Set<string>): { next: Exchange; header: string } | null {
  if (cur.status < 200 || cur.status >= 300 || (cur.text ?? '').trim()) return null;
  // (Among the next few GETs: a page's polling may come in between.)
  const gets = all.filter((y) => y.index > cur.index && !consumed.has(y.id) && y.method === 'GET' && !y.redirectedFrom).slice(0, 5);
  for (const h of cur.resHeaders) {
    if (!/redirect/i.test(h.name) || /^location$/i.test(h.name)) continue;
    const to = redirectTarget(h.value, cur.url);
    const next = to && to.origin === new URL(cur.url).origin ? gets.find((y) => y.url === requestUrl(to.href)) : undefined;
    if (next) return { next, header: h.name.toLowerCase() };
  }
  return null;
}

/** A URL without its user and password, and those (decoded); null when it has none. */
function splitUserinfo(url: string): { url: string; username: string; password: string } | null {
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return null;
    const [username, password] = [decode(u.username), decode(u.password)];
    u.username = u.password = '';
    return { url: u.href, username, password };
  } catch {
    return null;
  }
}

/**
 * Credentials in a URL (`http://user:pass@host/`, what a script passes to XHR's `open`) are HTTP
 * Basic credentials on the wire: the URL loses them and the request gets the header the browser
 * sent, so they are templated and checked as any Basic login is, never kept in a URL.
 */
function userinfoAsBasic(x: Exchange): Exchange {
  const c = splitUserinfo(x.url);
  if (!c) return x;
  const auth =
    header(x.reqHeaders, 'authorization') !== undefined
      ? []
      : [{ name: 'Authorization', value: `Basic ${basicToken(c.username, c.password)}` }];
  return { ...x, url: c.url, finalUrl: splitUserinfo(x.finalUrl)?.url ?? x.finalUrl, reqHeaders: [...x.reqHeaders, ...auth] };
}

/**
 * A browser that answered an origin's Basic challenge sends the credentials with every later
 * request to it, but HAR writers (Playwright) list the request that met the challenge without
 * them: each request to an origin that has seen Basic credentials gets them, as on the wire.
 */
function basicAuthEverywhere(xs: Exchange[]): Exchange[] {
  const byOrigin = new Map<string, { name: string; value: string }>();
  for (const x of xs) {
    const h = x.reqHeaders.find((h) => h.name.toLowerCase() === 'authorization' && /^\s*basic\s/i.test(h.value));
    if (h && !byOrigin.has(new URL(x.url).origin)) byOrigin.set(new URL(x.url).origin, h);
  }
  if (!byOrigin.size) return xs;
  return xs.map((x) => {
    const h = byOrigin.get(new URL(x.url).origin);
    return h && header(x.reqHeaders, 'authorization') === undefined ? { ...x, reqHeaders: [...x.reqHeaders, h] } : x;
  });
}

/**
 * A browser's answers to an HTTP Digest challenge (`Authorization: Digest username=…, response=…`)
 * hold a hash for one method, URI and nonce count, never the password: a replay of one is a replay
 * of a nonce. They are taken off the requests (the run computes its own, `basic_auth`), and the
 * users they named are kept.
 */
function withoutDigestAnswers(xs: Exchange[]): { exchanges: Exchange[]; users: string[] } {
  const users = new Set<string>();
  const exchanges = xs.map((x) => {
    const h = x.reqHeaders.find((h) => h.name.toLowerCase() === 'authorization' && /^\s*digest\s/i.test(h.value));
    if (!h) return x;
    const user = /\busername="((?:[^"\\]|\\.)*)"/.exec(h.value)?.[1];
    if (user !== undefined) users.add(user.replace(/\\(.)/g, '$1'));
    return { ...x, reqHeaders: x.reqHeaders.filter((y) => y !== h) };
  });
  return { exchanges, users: [...users] };
}

export function normalize(har: Har): Recording {
  if (!har?.log || !Array.isArray(har.log.entries)) throw new Error('not a HAR 1.2 document: log.entries is missing');
  const entries = [...har.log.entries].sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime));
  const raw = entries.map(toExchange).map(userinfoAsBasic);
  // Capture-format hops name their predecessor; plain HARs are matched by URL in foldRedirects.
  const digest = withoutDigestAnswers(basicAuthEverywhere(foldRedirects(raw)));
  const exchanges = digest.exchanges;
  const cap = har.log._capture;
  const pasted =
    cap?.secrets?.map((s) => ({
      secret_id: s.secret_id,
      field: s.field,
      placeholder: s.placeholder,
      field_name: s.target?.name ?? null,
    })) ?? [];
  return {
    source: cap ? 'capture' : 'har',
    exchanges,
    actions: (cap?.actions ?? []) as Action[],
    pasted,
    sessionId: cap?.session_id ?? null,
    digestUsers: digest.users,
  };
}

export const reqHeader = (x: Exchange, n: string) => header(x.reqHeaders, n.toLowerCase());
export const resHeader = (x: Exchange, n: string) => header(x.resHeaders, n.toLowerCase());
export const isJson = (x: Exchange) => /json/.test(x.mime);
export const isHtml = (x: Exchange) => /html/.test(x.mime);
/** An XML answer (a feed, a WebDAV multistatus, SOAP), not an XHTML page. */
export const isXml = (x: Exchange) => /[/+]xml\b/.test(x.mime) && !/html/.test(x.mime);

/**
 * A GraphQL read: a POST whose JSON body (or each of a batch) holds a `query` document of query
 * operations only (`query …` or the `{ … }` shorthand, never `mutation`/`subscription`). It
 * changes nothing on the site, like a GET.
 */
export function isGraphqlQuery(x: Exchange): boolean {
  if (x.method !== 'POST' || !x.body?.text || !/json/i.test(x.body.mime)) return false;
  let b: unknown;
  try {
    b = JSON.parse(x.body.text);
  } catch {
    return false;
  }
  const ops = Array.isArray(b) ? b : [b];
  return (
    ops.length > 0 &&
    ops.every((o) => {
      const q = (o as { query?: unknown })?.query;
      if (typeof q !== 'string') return false;
      // Operation keywords at the start of a definition (comments and fragments aside).
      const doc = q.replace(/#[^\n]*/g, ' ');
      return /^\s*(query\b|\{)/.test(doc) && !/(^|\})\s*(mutation|subscription)\b/.test(doc);
    })
  );
}

/** Method names that only dispatch to another one, named in the params or the URL. */
const DISPATCHERS = new Set(['call', 'call_kw', 'invoke', 'dispatch', 'rpc']);
const methodName = (m: unknown) => (typeof m === 'string' && /^[\w.\-/]{1,100}$/.test(m) ? m : null);

/** The method a call names: behind a dispatcher (Odoo's `{"method": "call", "params": {"method":
 * "web_search_read"}}` to `/web/dataset/call_kw/…`), the one in its params, or else the URL's last
 * segment (`/web/dataset/search_read`). */
function rpcMethod(c: unknown, url: string): string | null {
  const call = c as { method?: unknown; params?: { method?: unknown } } | null;
  const m = methodName(call?.method);
  if (!m || !DISPATCHERS.has(m.toLowerCase())) return m;
  const inner = methodName(call?.params && typeof call.params === 'object' ? call.params.method : undefined);
  if (inner) return inner;
  return methodName(new URL(url).pathname.split('/').filter(Boolean).at(-1));
}

/**
 * A JSON-RPC (or Transmission/Deluge-style) read: a POST whose JSON body, or each of a batch,
 * names a `method` whose words hold a read verb and no write verb. The method name is the only
 * thing that says what such a call does, as a GraphQL operation's keyword does.
 */
export function isRpcRead(x: Exchange): boolean {
  if (x.method !== 'POST' || !x.body?.text || !/json/i.test(x.body.mime)) return false;
  const calls = [parseJson(x.body.text)].flat();
  return (
    calls.length > 0 &&
    calls.every((c) => {
      const m = rpcMethod(c, x.url);
      if (!m) return false;
      const words = nameWords(m);
      return words.some((w) => READ_VERBS.has(w)) && !words.some((w) => WRITE_VERBS.has(w));
    })
  );
}

/** Methods that change nothing on the site (RFC 9110's safe methods and WebDAV's reads). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'REPORT', 'SEARCH']);
/** Changes nothing on the site: a safe method (unless an action link), a GraphQL query or an RPC
 * call named as a read. */
export const isRead = (x: Exchange) => (SAFE_METHODS.has(x.method) && !isActionLink(x)) || isGraphqlQuery(x) || isRpcRead(x);

/**
 * A GET that acts, as links in admin pages do (`index.html?processname=web&action=stop`,
 * `post.php?post=5&action=trash`, `?do=clearlog`): a query value that names a write verb, answered
 * by a redirect to another page (the list again, often with the outcome in its query). A link to a
 * form (`?action=edit`) answers with the form itself, not a redirect; a read that redirects
 * (`/docs` → `/docs/`) names no verb.
 */
export function isActionLink(x: Exchange): boolean {
  if (x.method !== 'GET') return false;
  const redirected = (x.hops.length > 0 || !!x.redirectHeader) && requestUrl(x.finalUrl) !== requestUrl(x.url);
  // (Or one answered by a page that carries a one-time confirmation token: DAViCal's "Confirm
  // Deletion" link, `?subaction=delete_principal&id=1031&confirm=*a37…`.)
  if (!redirected && !confirmToken(x)) return false;
  for (const [k, v] of new URL(x.url).searchParams) {
    if (!/^[A-Za-z][\w-]{1,39}$/.test(v) || VIEW_PARAMS.test(k)) continue;
    const words = nameWords(v);
    if (
      words.length <= 3 &&
      LINK_VERBS.some((verb) => words[0] === verb || (words[0]!.startsWith(verb) && VERB_OBJECTS.has(words[0]!.slice(verb.length))))
    )
      return true;
  }
  return false;
}

/** A query value named as a confirmation or anti-forgery token, random-looking. */
const confirmToken = (x: Exchange) =>
  [...new URL(x.url).searchParams].some(
    ([k, v]) => /confirm|token|nonce|csrf|xsrf|sesskey|sectok/i.test(k) && v.length >= 16 && looksRandom(v),
  );

// The write verbs a link's query names, less those that are no action of a link (`edit` and `add`
// open a form; a login or logout is the session's own business), and verbs of admin links.
const LINK_VERBS = [
  ...[...WRITE_VERBS].filter(
    (v) =>
      !['login', 'logout', 'edit', 'add', 'post', 'put', 'send', 'submit', 'queue', 'verify', 'sync', 'apply', 'change', 'write'].includes(
        v,
      ),
  ),
  ...'restart kill reload ack acknowledge flush trigger retry suspend unsuspend activate deactivate lock unlock block unblock ban unban trash untrash spam unspam publish unpublish hide unhide dismiss confirm deny accept decline install uninstall deploy schedule unschedule silence mute unmute empty pin unpin subscribe unsubscribe close reopen resolve drain'.split(
    ' ',
  ),
];
/** Parameters that choose what a page shows, never what it does (`?sort=start_date`, `?tab=import`). */
const VIEW_PARAMS =
  /^_?(sort|sort_?by|order|order_?by|dir|direction|tab|view|page|filter|q|query|search|s|lang|locale|format|type|category|section|field|column|col|group_?by)$/i;
/** Objects a verb takes in one word (`clearlog`, `restartall`, `stopall`). */
const VERB_OBJECTS = new Set(['all', 'log', 'logs', 'cache', 'selected']);
