// Stage 7a: resolved exchanges → http steps. Literals stay literal, arguments/secrets/vars become
// template holes, and every step says where it came from (note + provenance).
import type { Extractor, HttpStep, JsonTemplate, MultipartPart } from '../formats/definition/types.js';
import { urlPath } from '../formats/definition/template.js';
import { patchOf, type ReadBack } from './read-modify-write.js';
import { isFormBody, parseJson } from './slots.js';
import type { ResolvedSlot } from './trace.js';
import type { Exchange } from './types.js';

function templateOf(r: ResolvedSlot): string | null {
  switch (r.res.kind) {
    case 'template':
    case 'var':
      return r.res.template;
    case 'paging':
      return r.res.template ?? null;
    default:
      return r.slot.value;
  }
}

/** Each hole of a template piped through a URL filter (`urlencode`; `urlpath` for several path segments). */
const withFilter = (t: string, filter = 'urlencode') =>
  t.replace(/\{\{\s*((?:args|vars|secrets)\.[\w.$-]+)((?:\s*\|\s*(?:crlf|jsonesc|xmlesc))?)\s*\}\}/g, `{{$1$2 | ${filter}}}`);
const withUrlencode = (t: string) => withFilter(t);
/** A path segment folded into the one before it (an argument spanning both). */
const DROPPED = '\u0000';
/** The statuses a browser follows to their Location. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function setPath(root: any, path: (string | number)[], v: unknown) {
  let cur = root;
  path.slice(0, -1).forEach((k) => (cur = cur[k]));
  if (path.length) cur[path.at(-1)!] = v;
}

export interface StepOptions {
  id: string;
  baseOrigin: string;
  extract?: Record<string, Extractor>;
  note: string;
  provenance: Record<string, unknown>;
  pagingParam?: string;
  /** The body is a document read into this var, sent back changed (read-modify-write). */
  readBack?: { var: string; rb: ReadBack };
  /** Multipart file parts sent from an argument of format file-id: part position → argument. */
  files?: ReadonlyMap<number, string>;
  /** The whole body is a file argument's bytes (with this content type, else the file's own). */
  rawBody?: { arg: string; contentType?: string };
}

/** A template as URL-encoded text: literal parts encoded, holes piped through urlencode. */
function encodeTemplate(t: string): string {
  return t
    .split(/(\{\{[^}]*\}\})/)
    .map((p, i) => (i % 2 ? withUrlencode(p) : encodeURIComponent(p)))
    .join('');
}

const pairsText = (pairs: [string, string][]) => pairs.map(([k, v]) => `${encodeTemplate(k)}=${encodeTemplate(v)}`).join('&');

export function buildStep(x: Exchange, resolved: ResolvedSlot[], o: StepOptions): HttpStep {
  const u = new URL(x.url);
  const segs = u.pathname.split('/');
  const query: [string, string][] = [];
  const headers: Record<string, string> = {};
  const cookies: Record<string, string> = {};
  const form: [string, string][] = [];
  const multipartAt = new Map<number, string>();
  let text: string | null = null;
  const json = parseJson(x.body?.text);
  const jsonOut = json !== undefined && json !== null && typeof json === 'object' ? structuredClone(json) : undefined;
  for (const r of resolved) {
    const t = templateOf(r);
    if (t === null) continue;
    const s = r.slot;
    if (s.where === 'path' && s.key.includes('-')) {
      // Several segments, one argument (pathArgsJoined): its slashes stay path separators.
      const [from, to] = s.key.split('-').map(Number);
      for (let k = from + 1; k <= to; k++) segs[k] = DROPPED;
      segs[from] = t === s.value ? urlPath(s.value) : withFilter(t, 'urlpath');
    } else if (s.where === 'path') segs[Number(s.key)] = t === s.value ? encodeURIComponent(s.value) : withUrlencode(t);
    else if (s.where === 'query') query.push([r.name ?? s.key, t]);
    else if (s.where === 'header') headers[s.key] = t;
    else if (s.where === 'cookie') cookies[s.key] = t;
    else if (s.where === 'form') form.push([r.name ?? s.key, t]);
    else if (s.where === 'multipart') multipartAt.set(s.pos ?? multipartAt.size, t);
    else if (s.where === 'text') text = t;
    else if (s.where === 'json' && jsonOut) {
      const literal =
        s.jsonType === 'number' ? Number(s.value) : s.jsonType === 'boolean' ? s.value === 'true' : s.jsonType === 'null' ? null : s.value;
      // A number read from a page (a form field's text, a regex) is sent as the number it was.
      const asNumber =
        s.jsonType === 'number' && /^\{\{\s*vars\.[^}]*\}\}$/.test(t)
          ? t.replace(/\s*\}\}$/, ` | ${Number.isInteger(literal) ? 'int' : 'number'}}}`)
          : t;
      setPath(jsonOut, s.jsonPath!, t === s.value ? literal : asNumber);
    }
  }
  const accept = x.reqHeaders.find((h) => h.name.toLowerCase() === 'accept')?.value;
  if (accept) headers.accept = accept;
  const sameOrigin = u.origin === o.baseOrigin;
  // Repeated keys (f[]=a&f[]=b) can't live in a name → value map: the query stays in the URL, in order.
  const repeated = (pairs: [string, string][]) => new Set(pairs.map(([k]) => k)).size < pairs.length;
  const queryInUrl = repeated(query);
  const step: HttpStep = {
    id: o.id,
    ...(x.method !== 'GET' ? { method: x.method as HttpStep['method'] } : {}),
    url: (sameOrigin ? '' : u.origin) + segs.filter((g) => g !== DROPPED).join('/') + (queryInUrl ? `?${pairsText(query)}` : ''),
  };
  if (query.length && !queryInUrl) step.query = Object.fromEntries(query);
  if (Object.keys(headers).length) step.headers = headers;
  if (Object.keys(cookies).length) step.cookies = cookies;
  if (x.body) {
    if (o.rawBody)
      step.body = { file: `{{args.${o.rawBody.arg}}}`, ...(o.rawBody.contentType ? { content_type: o.rawBody.contentType } : {}) };
    else if (/multipart\/form-data/i.test(x.body.mime)) {
      // Every part in recorded order; an uploaded file is the caller's (an argument: its bytes, name
      // and type), an empty file input is sent as recorded.
      step.body = {
        multipart: (x.body.params ?? []).flatMap((p, pos): MultipartPart[] =>
          o.files?.has(pos)
            ? [{ name: p.name, file: `{{args.${o.files.get(pos)}}}` }]
            : p.fileName !== undefined
              ? p.value === undefined
                ? [] // binary content not in the recording (reported in meta.warnings)
                : [{ name: p.name, value: p.value, filename: p.fileName, ...(p.contentType ? { content_type: p.contentType } : {}) }]
              : multipartAt.has(pos)
                ? [{ name: p.name, value: multipartAt.get(pos)! }]
                : [],
        ),
      };
    } else if (isFormBody(x.body))
      step.body = repeated(form)
        ? { text: pairsText(form), content_type: 'application/x-www-form-urlencoded' }
        : { form: Object.fromEntries(form) };
    else if (jsonOut !== undefined) {
      step.body = { json: o.readBack ? patchOf(json, jsonOut, o.readBack.rb, o.readBack.var) : (jsonOut as JsonTemplate) };
      // (JSON a page posted under another type — jQuery's default form type — goes as it went.)
      if (!/json/i.test(x.body.mime) && x.body.mime) step.body.content_type = x.body.mime;
    } else if (text !== null) step.body = { text, content_type: x.body.mime || 'text/plain' };
  }
  if (o.extract && Object.keys(o.extract).length) {
    step.extract = o.extract;
    // Refused, but its answer handed out what later requests carry (a challenge: Transmission's
    // 409 with the X-Transmission-Session-Id every other call must send): refused again at run time.
    if (x.status >= 400 && x.status < 500 && x.status !== 401 && x.status !== 403) step.expect_status = [x.status];
  }
  // A redirect status with nowhere to go (gitit's sign-in answers 303 with an empty Location): the
  // browser showed that answer as the page, and so does the run — expected as it came.
  if (REDIRECTS.has(x.status) && !x.redirectURL) step.expect_status = [x.status];
  step.note = o.note;
  step.provenance = o.provenance;
  return step;
}
