// A record read from a page once, then read on another record that leaves a value blank: the
// blank is no value (null), so the output schema the one sample gave (an e-mail's format, a
// date's) still holds for it, as the run's output check applies it.
import { describe, expect, it } from 'vitest';
import { makeAjv } from '../../../src/lib/json-schema.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { readRule as read } from '../../helpers/saved-recordings.js';

const person = (mail: string, joined: string, city: string) => `<html><body><nav><a href="/">Home</a></nav>
<main><h1>Ada Moreno</h1>
<dl><dt>Email</dt><dd>${mail}</dd><dt>Joined</dt><dd>${joined}</dd><dt>City</dt><dd>${city}</dd><dt>Orders</dt><dd>12</dd></dl>
</main></body></html>`;

describe('a blank value on another record', () => {
  it('reads as null, which the schema of the recorded value admits', () => {
    const h = extractHtml(person('ada@example.test', '2026-01-02', 'Leeds'))!;
    expect(h.kind).toBe('detail');
    // (The recorded values gave their formats: the schema says what they are.)
    expect(h.schema.properties.email.format).toBe('email');
    expect(h.schema.properties.joined.format).toBe('date');
    const check = makeAjv({ useDefaults: false }).compile(h.schema);
    const other = read(h.extractor, person('  ', '', 'York'));
    expect(other).toMatchObject({ email: null, joined: null, city: 'York', orders: 12 });
    expect(check(other), JSON.stringify(check.errors)).toBe(true);
    // (A value that is there and not of its format still fails: the site changed.)
    expect(check(read(h.extractor, person('not a mail', '2026-01-03', 'York')))).toBe(false);
  });
});
