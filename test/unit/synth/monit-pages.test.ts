// Synthesis stages on a page saved from a twenty-second real application, Monit 5.33 (Debian's
// monit; scripts/acceptance-setup.sh): its home page holds one table per kind of service, and a
// service no longer monitored shows "-" where its numbers were.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeAjv } from '../../../src/lib/json-schema.js';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';

const home = fs.readFileSync(path.join(__dirname, '../../fixtures/real/monit/home.html'), 'utf8');
const URL_ = 'http://127.0.0.1:8979/';

describe("Monit's home page", () => {
  it('a typed column may read null next time ("-" for a service not monitored): the schema allows it', () => {
    const x = extractHtml(home, ['cellar', 'pantry'], [])!;
    const read = (text: string) => extractValue(x.extractor, new View({ url: URL_, status: 200, text }), 'items') as any[];
    expect(read(home).map((r) => r.directory)).toEqual(['pantry', 'cellar']);
    // The cellar, no longer monitored: its status says so, its numbers are gone.
    const later = home.replace(
      /(<a href='cellar'>cellar<\/a><\/td>)<td class='left'><span class='green-text'>OK<\/span><\/td>((<td class='right'>)[^<]*<\/td>)+/,
      "$1<td class='left'><span class='gray-text'>Not monitored</span></td><td class='right'>-</td><td class='right'>-</td><td class='right'>-</td>",
    );
    const rows = read(later);
    expect(rows[1]).toMatchObject({ directory: 'cellar', status: 'Not monitored', uid: null, gid: null });
    const ajv = makeAjv(); // (the validator a run's result is checked with)
    expect(ajv.validate(x.schema, rows), JSON.stringify(ajv.errors)).toBe(true);
  });
});
