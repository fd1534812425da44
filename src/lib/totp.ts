// TOTP codes (RFC 6238: HMAC-SHA-1, 30 s period, 6 digits) via the `otpauth` library,
// and the base32 seed rules applied when a login secret is stored.
import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** 16 base32 characters = 80 bits, the minimum RFC 4226 recommends (128 bits preferred). */
export const MIN_BASE32_CHARS = 16;

/** Authenticator apps show seeds grouped, lower-case or padded: strip spaces/dashes and '='. */
export function normalizeBase32(s: string): string {
  return s
    .replace(/[\s-]+/g, '')
    .replace(/=+$/, '')
    .toUpperCase();
}

/** The normalized seed, or null when it is not a usable base32 TOTP seed. */
export function parseTotpSecret(s: string): string | null {
  const n = normalizeBase32(s);
  return n.length >= MIN_BASE32_CHARS && /^[A-Z2-7]+$/.test(n) ? n : null;
}

export function isValidTotpSecret(s: string): boolean {
  return parseTotpSecret(s) !== null;
}

/** The code for `atMs` (default now). `digits` exists for the RFC's 8-digit test vectors. */
export function totpCode(base32Secret: string, atMs: number = Date.now(), digits: number = TOTP_DIGITS): string {
  const seed = parseTotpSecret(base32Secret);
  if (!seed) throw new Error('invalid base32 TOTP seed');
  return TOTP.generate({ secret: Secret.fromBase32(seed), algorithm: 'SHA1', digits, period: TOTP_PERIOD_S, timestamp: atMs });
}
