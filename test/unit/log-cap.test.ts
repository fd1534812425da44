// LogCap properties (fast-check), with the real Scrubber: whatever lines arrive, the stored text
// stays within the cap, every cut line within the line cap, the count of kept + dropped lines is
// exact, and a secret placed anywhere (around a cut, longer than a line, repeated) never leaves a
// single character behind.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LINE_MAX_BYTES, LogCap, scrubMarginFor } from '../../src/runtime/shared/log-cap.js';
import { Scrubber } from '../../src/runtime/shared/scrub.js';

// Secrets are drawn from characters that nothing else in the log contains (filler is 'x', the
// timestamp 'AT', markers are ASCII): any of them in the output is a leaked piece.
const SECRET_CHARS = ['Q', 'W', 'K', 'Ł', 'é', '€', '😀', '!', '+', '/', '~'];
const secretArb = fc.array(fc.constantFrom(...SECRET_CHARS), { minLength: 6, maxLength: 3000, size: 'max' }).map((a) => a.join(''));
/** Where the secret starts: anywhere, or just before the cut (the interesting place). */
const beforeArb = fc.oneof(
  fc.integer({ min: 0, max: 2 * LINE_MAX_BYTES }),
  fc.integer({ min: LINE_MAX_BYTES - 3200, max: LINE_MAX_BYTES }),
);
const leaked = (text: string) => SECRET_CHARS.some((ch) => text.includes(ch));

describe('LogCap', () => {
  it('never keeps more than the cap, and counts every line', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 200_000 }),
        fc.array(fc.integer({ min: 0, max: 40_000 }), { maxLength: 80 }),
        (cap, sizes) => {
          const c = new LogCap(cap);
          for (const n of sizes) c.add('AT', 'x'.repeat(n));
          c.note('AT', 'platform line');
          const text = c.text();
          expect(Buffer.byteLength(text)).toBeLessThanOrEqual(cap);
          const lines = text ? text.split('\n') : [];
          const marker = /^… (\d+) more log lines dropped/.exec(lines.at(-1) ?? '');
          const kept = lines.length - (marker ? 1 : 0);
          expect(kept + Number(marker?.[1] ?? 0)).toBe(sizes.length + 1);
          for (const l of lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(LINE_MAX_BYTES + 3);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a secret anywhere in a line, around the cut or longer than it, is redacted whole', () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.array(fc.tuple(beforeArb, fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 50_000 })), { minLength: 1, maxLength: 6 }),
        (secret, shapes) => {
          const scrubber = new Scrubber();
          scrubber.add(secret);
          const c = new LogCap(1_000_000, (s) => scrubber.scrub(s));
          c.scrubMargin = scrubMarginFor([secret]);
          for (const [before, times, after] of shapes) c.add('AT', 'x'.repeat(before) + secret.repeat(times) + 'x'.repeat(after));
          const text = c.text();
          expect(leaked(text), text.slice(0, 200)).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
    // (150 runs of lines up to ~100 KB through the real scrubber take ~24 s alone on this 2-core
    // machine, over the tier's 30 s beside a loaded suite: the time is the property's, not a hang.)
  }, 90_000);
});
