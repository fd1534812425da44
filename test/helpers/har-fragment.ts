// Small hand-made HAR fragments for synthesizer unit tests: plain HAR 1.2 entries (as DevTools or
// Playwright write them), built from the few fields a test cares about.
import type { Har, HarEntry } from '../../src/formats/recording/types.js';

export interface EntrySpec {
  method?: string;
  url: string;
  /** ms after t0 */
  at?: number;
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
  form?: Record<string, string>;
  json?: unknown;
  status?: number;
  html?: string;
  body?: unknown;
  mime?: string;
  setCookies?: Record<string, string>;
  resHeaders?: Record<string, string>;
  location?: string;
  type?: string;
}

const T0 = Date.parse('2026-01-01T10:00:00Z');
const nv = (o?: Record<string, string>) => Object.entries(o ?? {}).map(([name, value]) => ({ name, value }));

export function entry(s: EntrySpec, i = 0): HarEntry {
  const u = new URL(s.url);
  const cookieHeader: Record<string, string> = s.cookies
    ? {
        Cookie: Object.entries(s.cookies)
          .map(([k, v]) => `${k}=${v}`)
          .join('; '),
      }
    : {};
  const postData = s.form
    ? {
        mimeType: 'application/x-www-form-urlencoded',
        text: new URLSearchParams(s.form).toString(),
        params: nv(s.form),
        _size: 0,
        _sha256: '',
      }
    : s.json !== undefined
      ? { mimeType: 'application/json', text: JSON.stringify(s.json), _size: 0, _sha256: '' }
      : undefined;
  const text = s.html ?? (s.body !== undefined ? (typeof s.body === 'string' ? s.body : JSON.stringify(s.body)) : undefined);
  const mime = s.mime ?? (s.html !== undefined ? 'text/html; charset=utf-8' : s.body !== undefined ? 'application/json' : 'x-unknown');
  return {
    pageref: 'page_1',
    startedDateTime: new Date(T0 + (s.at ?? i * 100)).toISOString(),
    time: 1,
    request: {
      method: s.method ?? 'GET',
      url: s.url,
      httpVersion: 'HTTP/1.1',
      cookies: nv(s.cookies),
      headers: nv({ ...s.headers, ...cookieHeader }),
      queryString: [...u.searchParams].map(([name, value]) => ({ name, value })),
      ...(postData ? { postData } : {}),
      headersSize: -1,
      bodySize: -1,
    },
    response: {
      status: s.status ?? (s.location ? 303 : 200),
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: nv(s.setCookies),
      headers: nv({ ...s.resHeaders, ...(s.location ? { location: s.location } : {}), 'content-type': mime }),
      content: { size: text?.length ?? 0, mimeType: mime, ...(text !== undefined ? { text } : {}) },
      redirectURL: s.location ?? '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 1, receive: 0 },
    _resourceType: s.type ?? (s.html !== undefined ? 'document' : 'fetch'),
  } as unknown as HarEntry;
}

export function har(...specs: EntrySpec[]): Har {
  return {
    log: {
      version: '1.2',
      creator: { name: 'test', version: '1' },
      browser: { name: 'x', version: '1' },
      pages: [],
      entries: specs.map(entry),
    },
  } as unknown as Har;
}
