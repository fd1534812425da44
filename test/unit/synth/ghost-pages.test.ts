// Synthesis stages on recordings of an eleventh real application, Ghost 5 with its default theme
// "Source" (npm; scripts/acceptance-setup.sh): a post page whose <main> article is followed by a
// "read more" grid of other posts' cards outside <main>, and whose body is prose with a colon
// ("Day 1 in the orchard: grafting along row 1."); the list of posts over pages by path (/page/2/,
// /page/3/), reached by a "See all" link and then by the theme's script as the reader scrolls, named
// only by the head's <link rel="next">, whose icons carry small numbers (stroke-width="2").
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { normalize } from '../../../src/synth/normalize.js';
import { detectPaging } from '../../../src/synth/target.js';

const FIX = path.join(__dirname, '../../fixtures/real/ghost');
const har = (f: string) => JSON.parse(fs.readFileSync(path.join(FIX, f), 'utf8'));
const exchanges = (f: string) => normalize(har(f)).exchanges;
const run = (x: ReturnType<typeof extractHtml>, text: string) =>
  extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text }), 't') as any;

describe('Ghost pages', () => {
  it("a post page: the <main> article's heading and text (its slug typed in the URL names it), not the grid of other posts after <main>, no field from prose", () => {
    const page = exchanges('gh-post.har').find((x) => /\/the-broken-fence\/$/.test(x.url))!.text!;
    const x = extractHtml(page, [], ['the-broken-fence']);
    expect(x!.kind).toBe('detail');
    const rec = run(x, page);
    expect(rec.title).toBe('The Broken Fence');
    expect(rec.content).toContain('Day 1 in the orchard: grafting along row 1.');
    // ("Day 1 in the orchard" is no label: its paragraph is prose.)
    expect(Object.keys(rec).sort()).toEqual(['content', 'title']);
  });

  it('pages by path, named by <link rel="next"> only: the chain from the first page (through a redirect) to the last', () => {
    const xs = exchanges('gh-pages.har');
    const target = xs.find((x) => /\/page\/2\/?$/.test(x.url))!;
    const { paging, samples } = detectPaging(target, xs);
    expect(paging).toEqual({ mode: 'next_url', selector: 'head link[rel~=next][href]' });
    expect(samples.map((s) => new URL(s.url).pathname)).toEqual(['/', '/page/2', '/page/3/']);
  });

  it('the list connector starts at the first page and traces nothing from an icon\'s stroke-width="2"', () => {
    const def = synthesize({ recording: har('gh-pages.har'), hints: { result: ['Orchard diary 30'] } }).definition as any;
    const step = def.steps.at(-1);
    expect(step.url).toBe('/');
    expect(step.paginate).toMatchObject({ mode: 'next_url', next: { selector: 'head link[rel~=next][href]' } });
    expect(def.meta.decisions.traced).toEqual([]);
  });
});
