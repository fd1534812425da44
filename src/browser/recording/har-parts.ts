// Small pure helpers that turn CDP shapes into HAR 1.2 parts: headers, cookies, query strings,
// request bodies (urlencoded and multipart), timings, and body classification.
import crypto from 'node:crypto';
import type { HarContent, HarCookie, HarNameValue, HarPostParam, HarRequest } from '../../formats/recording/types.js';
import { sniffedType, untyped } from '../../lib/sniff.js';

export const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** CDP joins repeated headers with "\n"; HAR wants one entry per value. */
export function headersToHar(h: Record<string, string> | undefined): HarNameValue[] {
  const out: HarNameValue[] = [];
  for (const [name, value] of Object.entries(h ?? {})) {
    for (const v of String(value).split('\n')) out.push({ name, value: v });
  }
  return out;
}

export function headerValue(h: HarNameValue[], name: string): string | null {
  const n = name.toLowerCase();
  return h.find((x) => x.name.toLowerCase() === n)?.value ?? null;
}

export function queryToHar(url: string): HarNameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

export function parseCookieHeader(v: string | null): HarCookie[] {
  if (!v) return [];
  return v
    .split(/;\s*/)
    .filter(Boolean)
    .map((p) => {
      const i = p.indexOf('=');
      return i < 0 ? { name: p.trim(), value: '' } : { name: p.slice(0, i).trim(), value: p.slice(i + 1).trim() };
    });
}

export function parseSetCookie(line: string): HarCookie {
  const [first, ...attrs] = line.split(';');
  const i = first.indexOf('=');
  const c: HarCookie = { name: first.slice(0, i).trim(), value: first.slice(i + 1).trim() };
  for (const a of attrs) {
    const [k, ...rest] = a.split('=');
    const key = k.trim().toLowerCase();
    const val = rest.join('=').trim();
    if (key === 'path') c.path = val;
    else if (key === 'domain') c.domain = val;
    else if (key === 'expires') {
      const d = new Date(val);
      if (!Number.isNaN(d.getTime())) c.expires = d.toISOString();
    } else if (key === 'max-age' && c.expires === undefined) {
      const n = Number(val);
      if (Number.isFinite(n)) c.expires = new Date(Date.now() + n * 1000).toISOString();
    } else if (key === 'httponly') c.httpOnly = true;
    else if (key === 'secure') c.secure = true;
    else if (key === 'samesite') c.sameSite = val;
  }
  return c;
}

export function setCookies(headers: HarNameValue[]): HarCookie[] {
  return headers.filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => parseSetCookie(h.value));
}

const TEXT_MIME = /^text\/|[/+](json|xml)\b|javascript|ecmascript|x-www-form-urlencoded|csv|graphql|x-ndjson|svg/i;
export const isTextMime = (mime: string) => TEXT_MIME.test(mime);

/** Request body → HAR postData, with parsed params for forms and multipart. */
export function postDataToHar(body: Buffer, contentType: string, maxBytes: number): NonNullable<HarRequest['postData']> {
  const mimeType = contentType || 'application/octet-stream';
  const out: NonNullable<HarRequest['postData']> = { mimeType, _size: body.length, _sha256: sha256(body) };
  const multipart = /multipart\/form-data/i.test(mimeType);
  if (isTextMime(mimeType) || /^text|^application\/(json|x-www-form-urlencoded)/i.test(mimeType) || (!multipart && looksText(body))) {
    out.text = body.subarray(0, maxBytes).toString('utf8');
    if (body.length > maxBytes) out._truncated = true;
  }
  if (/x-www-form-urlencoded/i.test(mimeType)) {
    out.params = [...new URLSearchParams(body.toString('utf8'))].map(([name, value]) => ({ name, value }));
  } else if (multipart) {
    const b = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(mimeType);
    if (b) out.params = parseMultipart(body, (b[1] ?? b[2]).trim(), maxBytes);
    // Text of a multipart body is kept only when every part is text (no file bytes inline).
    if (out.params?.every((p) => p.value !== undefined)) {
      out.text = body.subarray(0, maxBytes).toString('utf8');
      if (body.length > maxBytes) out._truncated = true;
    }
  }
  return out;
}

function looksText(b: Buffer): boolean {
  const s = b.subarray(0, 512);
  for (const c of s) if (c === 0) return false;
  return !s.toString('utf8').includes('\uFFFD');
}

export function parseMultipart(body: Buffer, boundary: string, maxBytes: number): HarPostParam[] {
  const params: HarPostParam[] = [];
  const delim = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delim);
  while (pos >= 0) {
    const start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delim, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2); // strip CRLF after delimiter and before next
    const sep = part.indexOf('\r\n\r\n');
    if (sep >= 0) {
      const head = part.subarray(0, sep).toString('utf8');
      const data = part.subarray(sep + 4);
      const name = /name="([^"]*)"/i.exec(head)?.[1] ?? '';
      const fileName = /filename="([^"]*)"/i.exec(head)?.[1];
      const contentType = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1];
      const p: HarPostParam = { name };
      if (fileName !== undefined) p.fileName = fileName;
      if (contentType) p.contentType = contentType;
      const text = fileName === undefined || (contentType ? isTextMime(contentType) : looksText(data));
      if (text && data.length <= maxBytes) p.value = data.toString('utf8');
      if (fileName !== undefined) {
        p._size = data.length;
        p._sha256 = sha256(data);
      }
      params.push(p);
    }
    pos = next;
  }
  return params;
}

export interface CdpTiming {
  requestTime: number;
  dnsStart: number;
  dnsEnd: number;
  connectStart: number;
  connectEnd: number;
  sslStart: number;
  sslEnd: number;
  sendStart: number;
  sendEnd: number;
  receiveHeadersEnd: number;
}

/** CDP ResourceTiming (ms offsets from requestTime, seconds) → HAR timings. */
export function harTimings(t: CdpTiming | undefined, finishedAt: number | undefined) {
  if (!t) return { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 0, receive: 0 };
  const d = (a: number, b: number) => (a >= 0 && b >= 0 ? Math.max(0, b - a) : -1);
  const firstNet = [t.dnsStart, t.connectStart, t.sendStart].find((x) => x >= 0) ?? 0;
  const receive = finishedAt ? Math.max(0, (finishedAt - t.requestTime) * 1000 - t.receiveHeadersEnd) : 0;
  return {
    blocked: Math.max(0, firstNet),
    dns: d(t.dnsStart, t.dnsEnd),
    connect: d(t.connectStart, t.connectEnd),
    ssl: d(t.sslStart, t.sslEnd),
    send: Math.max(0, t.sendEnd - t.sendStart),
    wait: Math.max(0, t.receiveHeadersEnd - t.sendEnd),
    receive,
  };
}

export function timingsTotal(t: ReturnType<typeof harTimings>): number {
  return [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive].filter((x) => x > 0).reduce((a, b) => a + b, 0);
}

/** Response body → HAR content: text up to the cap, binary as size + sha256, null = unavailable. */
export function contentOf(mimeType: string, status: number, body: Buffer | null, maxBytes: number): HarContent {
  if (body === null) return { size: 0, mimeType, _omitted: status >= 300 && status < 400 ? 'none' : 'unavailable' };
  if (body.length === 0) return { size: 0, mimeType, _omitted: 'none' };
  const c: HarContent = { size: body.length, mimeType, _sha256: sha256(body) };
  // (Served without a type, a page is still a page: the type a browser sniffs, as DevTools writes it.)
  const sniffed = untyped(mimeType) && looksText(body) ? sniffedType(body.subarray(0, maxBytes).toString('utf8')) : null;
  if (sniffed) c.mimeType = sniffed;
  if (!isTextMime(c.mimeType)) return { ...c, _omitted: 'binary' };
  c.text = body.subarray(0, maxBytes).toString('utf8');
  if (body.length > maxBytes) c._omitted = 'truncated';
  return c;
}
