// Our own signed URLs for the local blob store (served by local-routes.ts).
//
//   PUT {base}/storage/{key}?expires={unix s}&size={n}&content_type={ct}&signature={sig}
//   GET {base}/storage/{key}?expires={unix s}&filename={name}&content_type={ct}&signature={sig}
//
// sig = base64url(HMAC-SHA256(k, JSON.stringify(["v1", method, key, expires, ...bound])))
// where bound = [content_type, size] for PUT and [filename, content_type] for GET. JSON makes
// the canonical form unambiguous whatever characters a name holds. The bound values travel
// in the query so a mismatching request can be told exactly what was signed.
import crypto from 'node:crypto';

export const STORAGE_PREFIX = '/storage/';

export interface PutGrant {
  key: string;
  expires: number;
  contentType: string;
  size: number;
}

export interface GetGrant {
  key: string;
  expires: number;
  filename: string;
  contentType: string;
}

/** Why a signed URL was refused; the route maps `kind` onto a status code. */
export class SignedUrlError extends Error {
  constructor(
    readonly kind: 'malformed' | 'signature' | 'expired',
    message: string,
  ) {
    super(message);
  }
}

const canonicalPut = (g: PutGrant) => JSON.stringify(['v1', 'PUT', g.key, g.expires, g.contentType, g.size]);
const canonicalGet = (g: GetGrant) => JSON.stringify(['v1', 'GET', g.key, g.expires, g.filename, g.contentType]);

export const toUnixSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

export class UrlSigner {
  private readonly secrets: Buffer[];

  /** Signs with the first key; a URL signed with any of them verifies (a fleet mid-rotation of the master key). */
  constructor(
    secrets: Buffer | readonly Buffer[],
    private readonly now: () => number = Date.now,
  ) {
    this.secrets = Buffer.isBuffer(secrets) ? [secrets] : [...secrets];
    if (!this.secrets.length || this.secrets.some((k) => k.length < 32)) throw new Error('signing keys must be at least 32 bytes');
  }

  private mac(canonical: string, secret = this.secrets[0]): Buffer {
    return crypto.createHmac('sha256', secret).update(canonical).digest();
  }

  putUrl(base: string, g: PutGrant): string {
    const q = new URLSearchParams({
      expires: String(g.expires),
      size: String(g.size),
      content_type: g.contentType,
      signature: this.mac(canonicalPut(g)).toString('base64url'),
    });
    return `${base}${STORAGE_PREFIX}${encodeKey(g.key)}?${q}`;
  }

  getUrl(base: string, g: GetGrant): string {
    const q = new URLSearchParams({
      expires: String(g.expires),
      filename: g.filename,
      content_type: g.contentType,
      signature: this.mac(canonicalGet(g)).toString('base64url'),
    });
    return `${base}${STORAGE_PREFIX}${encodeKey(g.key)}?${q}`;
  }

  /** The grant a PUT URL carries, once its signature and expiry check out. */
  verifyPut(key: string, query: Record<string, unknown>): PutGrant {
    const q = params(query, ['expires', 'size', 'content_type', 'signature']);
    const g: PutGrant = { key, expires: int(q.expires, 'expires'), size: int(q.size, 'size'), contentType: q.content_type };
    this.check(canonicalPut(g), q.signature, g.expires);
    return g;
  }

  verifyGet(key: string, query: Record<string, unknown>): GetGrant {
    const q = params(query, ['expires', 'filename', 'content_type', 'signature']);
    const g: GetGrant = { key, expires: int(q.expires, 'expires'), filename: q.filename, contentType: q.content_type };
    this.check(canonicalGet(g), q.signature, g.expires);
    return g;
  }

  private check(canonical: string, signature: string, expires: number): void {
    const given = Buffer.from(signature, 'base64url');
    // Length first: timingSafeEqual needs equal lengths, and the length of a MAC is public.
    const signedBy = (secret: Buffer) => {
      const want = this.mac(canonical, secret);
      return given.length === want.length && crypto.timingSafeEqual(given, want);
    };
    if (!this.secrets.some(signedBy)) {
      throw new SignedUrlError('signature', 'Signature does not match this URL');
    }
    // Checked after the signature so an attacker learns nothing from a forged expiry.
    if (this.now() > expires * 1000) throw new SignedUrlError('expired', 'This signed URL has expired');
  }
}

function params<K extends string>(query: Record<string, unknown>, names: K[]): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const n of names) {
    const v = query[n];
    if (typeof v !== 'string' || v === '') throw new SignedUrlError('malformed', `Missing or repeated query parameter "${n}"`);
    out[n] = v;
  }
  return out;
}

function int(v: string, name: string): number {
  if (!/^\d{1,15}$/.test(v)) throw new SignedUrlError('malformed', `Query parameter "${name}" must be a non-negative integer`);
  return Number(v);
}
