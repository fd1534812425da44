// One run's HTTP session: a tough-cookie jar, redirects followed hop by hop (cookies stored on
// each), bodies built from json/form/text/multipart, network failures as site_unavailable.
import crypto from 'node:crypto';
import { CookieJar } from 'tough-cookie';
import { RunFailure } from '../../shared/failure.js';
import { send, type RawResponse } from './http-client.js';
import type { EgressPolicy } from '../../../egress/policy.js';
import { redirectTarget } from '../../../lib/redirect-header.js';

/** Node's refusals of a request it can't write: a header name or value, or a path, with forbidden characters. */
const UNSENDABLE = new Set(['ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN', 'ERR_UNESCAPED_CHARACTERS', 'ERR_HTTP_INVALID_HEADER_VALUE']);

export interface SessionRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  query?: Record<string, unknown>;
  json?: unknown;
  form?: Record<string, unknown>;
  text?: string;
  contentType?: string;
  /** A part's content is `data` (an uploaded file's bytes) or `value` (text). */
  multipart?: { name: string; value?: string; data?: Uint8Array; filename?: string; contentType?: string }[];
  /** The whole body is these bytes (an uploaded file), sent with `contentType`. */
  bytes?: Uint8Array;
  followRedirects?: boolean;
  timeoutMs?: number;
  /** Headers that carry credentials (rendered from a secret): like `authorization`, never sent on
   * to another origin by a redirect. */
  credentialHeaders?: string[];
  /** The Authorization header an HTTP challenge's answer gives a request (each hop of a redirect:
   * a Digest answer covers its method, URI and body), or none for another origin. */
  authorize?: (method: string, url: URL, body?: Buffer) => string | undefined;
  /** A header that names the next page when a 2xx answer has no body (the step's `follow_header`). */
  followHeader?: string;
}

/**
 * A field or file name in a part's header, escaped as browsers do (the HTML standard's
 * multipart/form-data encoding): `"` and line breaks can't end the header or add one.
 */
const partName = (s: string) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

export interface SessionResponse {
  status: number;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes: Buffer;
  json(): unknown;
  /** Whether a redirect (or a `followHeader` page) was followed on the way to this answer. */
  redirected: boolean;
}

export class HttpSession {
  readonly jar = new CookieJar();
  /** Whether a Set-Cookie was ever stored: until then a request has no cookie to look up. */
  private cookiesStored = false;
  /**
   * The page the session is on, as a browser would be: the last HTML document it received. Requests
   * carry it as Referer, and POSTs its origin as Origin, as a form on that page would: sites check
   * them against cross-site request forgery (a same-origin Referer or Origin is required by Fossil,
   * Django over HTTPS, Rails' origin check), and a replay without them is refused.
   */
  private page: URL | null = null;
  requests = 0;
  constructor(
    private readonly opts: {
      proxy: string | null;
      maxBytes: number;
      log: (line: string) => void;
      egress: EgressPolicy | null;
      /** Aborted when the run is stopped: the request in flight ends, no other one starts. */
      signal?: AbortSignal;
    },
  ) {}

  cookie(url: string, name: string): string | undefined {
    return this.jar.getCookiesSync(url).find((c) => c.key === name)?.value;
  }

  /** Stores a cookie as a page's script would (`document.cookie`: host-only, path /); false when
   * the value holds what a cookie can't carry (a `;`, a comma, a space, a control character). */
  setCookie(url: string, name: string, value: string): boolean {
    if (!/^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/.test(value)) return false;
    this.jar.setCookieSync(`${name}=${value}; Path=/`, url, { ignoreError: true });
    this.cookiesStored = true;
    return true;
  }

  async request(r: SessionRequest): Promise<SessionResponse> {
    let url = new URL(r.url);
    for (const [k, v] of Object.entries(r.query ?? {})) {
      if (v === undefined || v === null || v === '') continue;
      url.searchParams.set(k, typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    // A space as %20, as a page's encodeURIComponent writes it: every server reads that as a space,
    // while '+' (URLSearchParams' form encoding) is one only to form decoders — Icinga Web reads
    // `group=Orchard+operators` as a group named with a '+'. ('+' itself is %2B either way.)
    if (r.query && Object.keys(r.query).length) url.search = url.search.replace(/\+/g, '%20');
    let method = (r.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers ?? {})) headers[k.toLowerCase()] = v;
    let body: Buffer | undefined;
    if (r.json !== undefined) {
      body = Buffer.from(JSON.stringify(r.json));
      headers['content-type'] ??= r.contentType ?? 'application/json';
    } else if (r.form) {
      const p = new URLSearchParams();
      for (const [k, v] of Object.entries(r.form)) if (v !== undefined && v !== null) p.append(k, String(v));
      body = Buffer.from(p.toString());
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    } else if (r.multipart) {
      const boundary = `----cs${crypto.randomBytes(12).toString('hex')}`;
      const parts = r.multipart.map((m) => {
        const disp = `form-data; name="${partName(m.name)}"${m.filename !== undefined ? `; filename="${partName(m.filename)}"` : ''}`;
        const type = m.contentType ? `content-type: ${m.contentType.replace(/[\r\n]/g, '')}\r\n` : '';
        const head = Buffer.from(`--${boundary}\r\ncontent-disposition: ${disp}\r\n${type}\r\n`);
        return Buffer.concat([head, m.data ?? Buffer.from(m.value ?? ''), Buffer.from('\r\n')]);
      });
      body = Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]);
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
    } else if (r.bytes !== undefined) {
      body = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
      headers['content-type'] ??= r.contentType ?? 'application/octet-stream';
    } else if (r.text !== undefined) {
      body = Buffer.from(r.text);
      headers['content-type'] ??= r.contentType ?? 'text/plain; charset=utf-8';
    }
    const follow = r.followRedirects !== false;
    for (let hop = 0; ; hop++) {
      const cookie = this.cookiesStored ? this.jar.getCookieStringSync(url.href) : '';
      const answer = headers.authorization === undefined ? r.authorize?.(method, url, body) : undefined;
      const h = {
        accept: '*/*',
        'user-agent': 'ConnectorService/1.0',
        ...browserContext(this.page, url, method),
        ...headers,
        ...(cookie ? { cookie } : {}),
        ...(answer ? { authorization: answer } : {}),
      };
      const started = Date.now();
      let res: RawResponse;
      this.requests++;
      try {
        res = await send({
          method,
          url: url.href,
          headers: h,
          body,
          proxy: this.opts.proxy,
          timeoutMs: r.timeoutMs ?? 60_000,
          maxBytes: this.opts.maxBytes,
          egress: this.opts.egress,
          signal: this.opts.signal,
        });
      } catch (e) {
        if (e instanceof RunFailure && e.opts.details?.egress_rule) this.opts.log(`${method} ${url.href} refused: ${e.message}`);
        if (e instanceof RunFailure) throw e;
        const code = (e as { code?: string }).code ?? null;
        // (A value rendered into a header or the path — an argument, a file's name — holding what
        // HTTP forbids there, a line break: never sent, and no fault of the site.)
        if (code && UNSENDABLE.has(code))
          throw new RunFailure('invalid_input', `${method} ${url.origin}${url.pathname} was not sent: ${(e as Error).message}`, {
            retryable: false,
            details: { url: url.href, code },
          });
        this.opts.log(`${method} ${url.href} failed: ${code ?? (e as Error).message}`);
        throw new RunFailure('site_unavailable', `${method} ${url.origin}${url.pathname} failed: ${code ?? (e as Error).message}`, {
          retryable: true,
          details: { url: url.href, code },
        });
      }
      this.opts.log(`${method} ${url.href} → ${res.status} (${Date.now() - started} ms)`);
      const setCookie = res.headers['set-cookie'];
      for (const c of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
        this.jar.setCookieSync(c, url.href, { ignoreError: true });
        this.cookiesStored = true;
      }
      const location = res.headers.location as string | undefined;
      if (follow && location && [301, 302, 303, 307, 308].includes(res.status) && hop < 10) {
        const next = new URL(location, url);
        // As browsers do (Fetch: "CORS non-wildcard request-header name"): credentials are for the
        // origin they were given to; a redirect elsewhere (a hostile or compromised site) gets none.
        if (next.origin !== url.origin)
          for (const name of ['authorization', 'proxy-authorization', ...(r.credentialHeaders ?? []).map((n) => n.toLowerCase())])
            delete headers[name];
        url = next;
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          delete headers['content-type'];
        }
        continue;
      }
      // A page's script going where a bodiless answer's header says (Icinga Web's X-Icinga-Redirect):
      // a GET there, on this origin only, as for a 303.
      const named = r.followHeader && res.status < 300 && !res.body.length ? res.headers[r.followHeader.toLowerCase()] : undefined;
      const next = typeof named === 'string' && follow && hop < 10 ? redirectTarget(named, url) : null;
      if (next && next.origin === url.origin) {
        url = next;
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
        continue;
      }
      const ct = res.headers['content-type'];
      if (/^\s*(text\/html|application\/xhtml\+xml)/i.test(Array.isArray(ct) ? (ct[0] ?? '') : (ct ?? ''))) this.page = url;
      const text = res.body.toString('utf8');
      return {
        status: res.status,
        url: url.href,
        headers: res.headers,
        text,
        bytes: res.body,
        json: () => JSON.parse(text),
        redirected: hop > 0,
      };
    }
  }
}

/**
 * Referer and Origin as a browser sends them from `page` (referrer policy
 * strict-origin-when-cross-origin): the full URL to the same origin, the origin alone to another,
 * nothing from https to http. Origin on every request but GET and HEAD (the target's own origin
 * before any page: a form of the same site).
 */
export function browserContext(page: URL | null, url: URL, method: string): Record<string, string> {
  const out: Record<string, string> = {};
  const downgrade = page?.protocol === 'https:' && url.protocol === 'http:';
  if (page && !downgrade) out.referer = page.origin === url.origin ? page.href.replace(/#.*$/, '') : `${page.origin}/`;
  if (method !== 'GET' && method !== 'HEAD' && !downgrade) out.origin = (page ?? url).origin;
  return out;
}
