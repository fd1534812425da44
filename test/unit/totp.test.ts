// TOTP against the RFC 6238 appendix B vectors (SHA-1) and the base32 seed rules.
import { describe, expect, it } from 'vitest';
import { isValidTotpSecret, normalizeBase32, parseTotpSecret, totpCode } from '../../src/lib/totp.js';

// base32 of the ASCII seed "12345678901234567890" used by RFC 6238 for SHA-1.
const RFC_SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

const VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('totpCode', () => {
  it.each(VECTORS)('matches RFC 6238 at T=%d (8 digits)', (t, code) => {
    expect(totpCode(RFC_SEED, t * 1000, 8)).toBe(code);
  });

  it.each(VECTORS)('gives the last 6 digits at T=%d by default', (t, code) => {
    expect(totpCode(RFC_SEED, t * 1000)).toBe(code.slice(2));
  });

  it('is constant within a 30 s step and changes at its boundary', () => {
    expect(totpCode(RFC_SEED, 60_000)).toBe(totpCode(RFC_SEED, 89_999));
    expect(totpCode(RFC_SEED, 89_999)).not.toBe(totpCode(RFC_SEED, 90_000));
  });

  it('accepts a seed the way authenticator apps show it', () => {
    const grouped = 'gezd gnbv-gy3t qojq gezd gnbv gy3t qojq====';
    expect(totpCode(grouped, 59_000)).toBe('287082');
  });

  it('defaults to now', () => {
    expect(totpCode(RFC_SEED)).toMatch(/^\d{6}$/);
  });

  it('throws on an invalid seed', () => {
    expect(() => totpCode('not base32!', 0)).toThrow(/invalid base32/);
  });
});

describe('base32 seed rules', () => {
  it('normalizes spaces, dashes, case and padding', () => {
    expect(normalizeBase32(' ab-cd ef\tgh== ')).toBe('ABCDEFGH');
    expect(normalizeBase32('JBSWY3DPEHPK3PXP')).toBe('JBSWY3DPEHPK3PXP');
  });

  it('accepts at least 16 base32 characters', () => {
    expect(parseTotpSecret('jbsw y3dp ehpk 3pxp')).toBe('JBSWY3DPEHPK3PXP');
    expect(isValidTotpSecret(RFC_SEED)).toBe(true);
  });

  it.each([
    ['too short', 'JBSWY3DPEHPK3PX'],
    ['empty', ''],
    ['only padding', '===='],
    ['digit 1 (not in the alphabet)', 'JBSWY3DPEHPK3PX1'],
    ['digit 0', '0BSWY3DPEHPK3PXP'],
    ['digit 8', 'JBSWY3DPEHPK3PX8'],
    ['punctuation', 'JBSWY3DPEHPK3PX!'],
    ['padding in the middle', 'JBSWY3DP=EHPK3PXP'],
  ])('rejects %s', (_label, s) => {
    expect(isValidTotpSecret(s)).toBe(false);
    expect(parseTotpSecret(s)).toBeNull();
  });
});
