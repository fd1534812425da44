// Typed errors of the SDK. Every HTTP error answer of the service is a ConnectorServiceError with
// its status and the FastAPI-style `detail` (a string, or for 422 an array of validation entries);
// the common statuses have their own subclass so callers can `instanceof` them.
import type { components } from './schema.js';

/** One entry of a 422 answer: where (`loc`), what (`msg`, `type`), and the offending `input`. */
export type ValidationErrorEntry = components['schemas']['ValidationError'];

/** Base class of everything this SDK throws on purpose. */
export class ConnectorServiceSdkError extends Error {
  override name = 'ConnectorServiceSdkError';
}

/** The service answered with an HTTP error status (4xx/5xx). */
export class ConnectorServiceError extends ConnectorServiceSdkError {
  override name = 'ConnectorServiceError';
  /** HTTP status code. */
  readonly status: number;
  /** The `detail` of the error body: a message string, the 422 entries, or the raw body text when it was not JSON. */
  readonly detail: unknown;
  readonly method: string;
  readonly url: string;
  /** Value of `Retry-After` in seconds, when the service sent one (429, 503). */
  readonly retryAfterS: number | null;

  constructor(init: { status: number; detail: unknown; method: string; url: string; retryAfterS?: number | null; message?: string }) {
    super(init.message ?? `${init.status} ${init.method} ${pathOf(init.url)}: ${describeDetail(init.detail)}`);
    this.status = init.status;
    this.detail = init.detail;
    this.method = init.method;
    this.url = init.url;
    this.retryAfterS = init.retryAfterS ?? null;
  }
}

/** 401: the API key is missing, invalid or revoked. */
export class AuthenticationError extends ConnectorServiceError {
  override name = 'AuthenticationError';
}

/** 404: no such resource among the caller's own (another user's resource is a 404 too). */
export class NotFoundError extends ConnectorServiceError {
  override name = 'NotFoundError';
}

/** 409: the resource is not in a state that allows the operation. */
export class ConflictError extends ConnectorServiceError {
  override name = 'ConflictError';
}

/** 429: too many requests (capture sessions, uploads); see `retryAfterS`. */
export class RateLimitError extends ConnectorServiceError {
  override name = 'RateLimitError';
}

/** 422: the request was invalid; `errors` holds every entry the service reported. */
export class ValidationError extends ConnectorServiceError {
  override name = 'ValidationError';
  readonly errors: ValidationErrorEntry[];
  constructor(init: ConstructorParameters<typeof ConnectorServiceError>[0]) {
    super(init);
    this.errors = Array.isArray(init.detail) ? (init.detail as ValidationErrorEntry[]) : [];
  }
}

/** The service could not be reached (DNS, refused connection, TLS, reset). */
export class ConnectionError extends ConnectorServiceSdkError {
  override name = 'ConnectionError';
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach ${url}: ${(cause as any)?.cause?.message ?? (cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** The CRC32C the service computed over the bytes it stored differs from the one computed locally. */
export class ChecksumMismatchError extends ConnectorServiceSdkError {
  override name = 'ChecksumMismatchError';
  constructor(
    readonly fileId: string,
    readonly expected: string,
    readonly actual: string,
    where: 'upload' | 'download',
  ) {
    super(
      where === 'upload'
        ? `upload of file ${fileId} was corrupted in transit: local CRC32C ${expected}, stored CRC32C ${actual} (the file was deleted)`
        : `download of file ${fileId} was corrupted in transit: expected CRC32C ${expected}, received bytes have ${actual}`,
    );
  }
}

/** A wait (run, capture session) reached its overall timeout. `last` is the resource as last seen, if any. */
export class WaitTimeoutError<T = unknown> extends ConnectorServiceSdkError {
  override name = 'WaitTimeoutError';
  constructor(
    message: string,
    readonly last: T | null,
  ) {
    super(message);
  }
}

const byStatus: Record<number, typeof ConnectorServiceError> = {
  401: AuthenticationError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
  429: RateLimitError,
};

/** Builds the typed error for an error response whose body was already read (`body`: parsed JSON or text). */
export function errorFromResponse(response: Response, body: unknown, method: string): ConnectorServiceError {
  let detail: unknown = body;
  if (typeof body === 'string') {
    try {
      detail = JSON.parse(body);
    } catch {
      /* not JSON: keep the text */
    }
  }
  if (detail && typeof detail === 'object' && !Array.isArray(detail) && 'detail' in detail) detail = (detail as { detail: unknown }).detail;
  const ra = Number(response.headers.get('retry-after'));
  const Cls = byStatus[response.status] ?? ConnectorServiceError;
  return new Cls({
    status: response.status,
    detail,
    method,
    url: response.url,
    retryAfterS: Number.isFinite(ra) && ra >= 0 && response.headers.has('retry-after') ? ra : null,
  });
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** A one-line description of a `detail`: the string, or the 422 entries as `loc: msg`. */
export function describeDetail(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const parts = detail.slice(0, 5).map((e: any) => `${Array.isArray(e?.loc) ? e.loc.join('.') : '?'}: ${e?.msg ?? e?.type ?? 'invalid'}`);
    return parts.join('; ') + (detail.length > 5 ? ` (+${detail.length - 5} more)` : '');
  }
  if (detail === undefined || detail === null || detail === '') return '(no detail)';
  return JSON.stringify(detail).slice(0, 500);
}
