// Small HTTP helpers over node:http: cookies, bodies, responses, and the route table type.
// No framework on purpose: the site should look like "some website", and every header it sends
// is visible right here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DemoState, Session } from './state.js';

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  state: DemoState;
  cookies: Record<string, string>;
  /** The logged-in session, or null. */
  session: Session | null;
  /** Named groups of the route's RegExp. */
  params: Record<string, string>;
}

/**
 * public: anyone. page: HTML behind the session (redirects to /login). api: JSON behind the
 * session (401 JSON). control: the /__ test hooks, which ignore the outage/challenge toggles.
 */
export type Access = 'public' | 'page' | 'api' | 'control';

export interface Route {
  method: string;
  path: string | RegExp;
  access: Access;
  handler: (ctx: Ctx) => void | Promise<void>;
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name && !(name in out)) out[name] = decodeURIComponent(part.slice(eq + 1).trim());
  }
  return out;
}

export interface CookieOptions {
  httpOnly?: boolean;
  maxAge?: number;
}

/** Appends a Set-Cookie header; all cookies are Path=/ and SameSite=Lax. */
export function setCookie(res: ServerResponse, name: string, value: string, opts: CookieOptions = {}): void {
  let cookie = `${name}=${encodeURIComponent(value)}; Path=/; SameSite=Lax`;
  if (opts.httpOnly) cookie += '; HttpOnly';
  if (opts.maxAge !== undefined) cookie += `; Max-Age=${opts.maxAge}`;
  const prev = res.getHeader('set-cookie');
  const list = Array.isArray(prev) ? prev : prev ? [String(prev)] : [];
  res.setHeader('set-cookie', [...list, cookie]);
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_BODY = 1 << 20;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(413, 'body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function isJsonRequest(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/** Form or JSON body as a flat string map (JSON values are stringified, booleans kept as text). */
export async function readFields(req: IncomingMessage): Promise<Record<string, string>> {
  const text = await readBody(req);
  if (isJsonRequest(req)) {
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw new HttpError(400, 'invalid JSON body');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new HttpError(400, 'JSON body must be an object');
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) if (v !== null && v !== undefined) out[k] = String(v);
    return out;
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/** JSON body kept as-is (for /__control, whose values are typed). */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through to the 400 below
  }
  throw new HttpError(400, 'body must be a JSON object');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
  });
  res.end(html);
}

export function redirect(res: ServerResponse, location: string, status = 303): void {
  res.writeHead(status, { location, 'content-length': 0 });
  res.end();
}

export function escapeHtml(value: unknown): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Only same-site absolute paths, so ?next= can't become an open redirect. */
export function safeNext(next: string | null | undefined, fallback = '/items'): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : fallback;
}
