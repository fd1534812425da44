// How errors leave the service over HTTP: domain errors (src/lib/errors.ts) mapped to statuses in
// one table; 422 bodies in FastAPI/pydantic v2 form, capped and with credentials never echoed;
// every other error as {"detail": "..."}.
import { DomainError, InvalidInput, type ErrorCode, type Loc, type Problem } from '../lib/errors.js';

export type { Loc };
export type ValidationEntry = Problem;
export { ajvToEntries } from '../lib/json-schema-problems.js';

/** The one place a domain error code becomes an HTTP status. */
export const STATUS_OF: Record<ErrorCode, number> = {
  not_found: 404,
  conflict: 409,
  invalid_input: 422,
  too_many_requests: 429,
  unavailable: 503,
  internal: 500,
};

/** An error of the HTTP layer itself (auth, transport, signed URLs): a status and a detail. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** Status, headers and body of a domain error (validation problems are sent by the 422 path). */
export function domainErrorResponse(e: DomainError): { status: number; headers: Record<string, string>; detail: string } {
  return {
    status: STATUS_OF[e.code],
    headers: e.retryAfterS !== undefined ? { 'Retry-After': String(e.retryAfterS) } : {},
    detail: e.message,
  };
}

export { DomainError, InvalidInput };

/**
 * Drops `input` where it could hold a credential: entries located at/under a sensitive
 * field lose `input`; object inputs lose their sensitive keys.
 */
export function redactEntries(entries: ValidationEntry[], sensitive: readonly string[]): ValidationEntry[] {
  if (!sensitive.length) return entries;
  const isSensitive = (k: unknown) => typeof k === 'string' && sensitive.includes(k);
  const scrub = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(scrub);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => !isSensitive(k))
          .map(([k, x]) => [k, scrub(x)]),
      );
    }
    return v;
  };
  return entries.map((e) => {
    if (!('input' in e)) return e;
    if (e.loc.some(isSensitive)) {
      const { input: _drop, ...rest } = e;
      return rest;
    }
    return { ...e, input: scrub(e.input) };
  });
}

/** Limits of a 422 body: a hostile request must not get a huge or unserializable answer. */
export const ECHO_LIMITS = { stringChars: 200, depth: 3, items: 10, keys: 20, entries: 50, bodyBytes: 64 * 1024 } as const;

/**
 * `input` as echoed in a 422: strings cut to 200 characters, containers summarised below depth
 * 3 and after 10 items / 20 keys. A 10,000-deep or 9 MB input thus echoes as a few hundred bytes.
 */
export function truncateInput(v: unknown, depth = 0): unknown {
  const L = ECHO_LIMITS;
  if (typeof v === 'string') return v.length > L.stringChars ? `${v.slice(0, L.stringChars)}…` : v;
  if (Array.isArray(v)) {
    if (depth >= L.depth) return `[…] (${v.length} items)`;
    const head = v.slice(0, L.items).map((x) => truncateInput(x, depth + 1));
    return v.length > L.items ? [...head, `… (${v.length - L.items} more items)`] : head;
  }
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (depth >= L.depth) return `{…} (${keys.length} keys)`;
    const out: Record<string, unknown> = {};
    for (const k of keys.slice(0, L.keys))
      out[truncateInput(k, L.depth) as string] = truncateInput((v as Record<string, unknown>)[k], depth + 1);
    if (keys.length > L.keys) out['…'] = `${keys.length - L.keys} more keys`;
    return out;
  }
  return v;
}

/**
 * The entries a 422 carries: at most 50, inputs truncated, locs of absurd keys and messages shortened, and
 * the whole detail under 64 KB (inputs are dropped first, then entries).
 */
export function capEntries(entries: ValidationEntry[]): ValidationEntry[] {
  const L = ECHO_LIMITS;
  let out = entries.slice(0, L.entries).map((e) => {
    const loc = e.loc.map((k) => (typeof k === 'string' ? (truncateInput(k) as string) : k));
    const msg = e.msg.length > 1000 ? `${e.msg.slice(0, 1000)}…` : e.msg;
    return 'input' in e ? { ...e, loc, msg, input: truncateInput(e.input) } : { ...e, loc, msg };
  });
  const size = (x: unknown) => Buffer.byteLength(JSON.stringify(x));
  if (size(out) > L.bodyBytes) out = out.map(({ input: _drop, ...rest }) => rest);
  while (out.length > 1 && size(out) > L.bodyBytes) out = out.slice(0, Math.ceil(out.length / 2));
  return out;
}
