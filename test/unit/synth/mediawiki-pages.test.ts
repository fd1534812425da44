// Synthesis stages on pages recorded from a third real application, MediaWiki (Debian package;
// test/fixtures/real/record.ts): grouped lists (a category's letter groups), pagination by the
// page's own next-page link, a pager printed twice, the page's own content told apart from the
// site's template by the other recorded pages. Each rule is run with the runtime's extractor.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { detectPaging } from '../../../src/synth/target.js';
import { normalize } from '../../../src/synth/normalize.js';

const FIX = path.join(__dirname, '../../fixtures/real/mediawiki');
const load = (f: string) => JSON.parse(fs.readFileSync(path.join(FIX, f), 'utf8'));
const pages = (f: string, part: string): string[] =>
  load(f)
    .log.entries.filter((x: any) => x.request.url.includes(part) && /html/.test(x.response.content.mimeType) && x.response.content.text)
    .map((x: any) => x.response.content.text);
const run = (x: ReturnType<typeof extractHtml>, html: string) =>
  extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't');

describe('MediaWiki pages', () => {
  it('a category: the items of every letter group are the records (not one record per group)', () => {
    const [html] = pages('mw-category.har', 'Category:Fruit');
    const x = extractHtml(html);
    expect(x!.why).toMatch(/grouped in/);
    const items = run(x, html) as any[];
    expect(items.map((i) => i.title)).toEqual([
      'Apple',
      'Banana',
      'Blackberry',
      'Blueberry',
      'Cherry',
      'Cranberry',
      'Damson',
      'Elderberry',
    ]);
    expect(items[2].url).toMatch(/Blackberry$/);
    // The sidebar's menus (<nav> groups of links) are never the records.
    expect(JSON.stringify(items)).not.toContain('Special:RecentChanges');
  });

  it('a history: two list items are records; a pager printed above and below the list is not a list', () => {
    const [first] = pages('mw-history.har', 'action=history');
    const x = extractHtml(first);
    expect(x!.kind).toBe('list');
    const items = run(x, first) as any[];
    expect(items).toHaveLength(2);
    expect(JSON.stringify(items[0])).toMatch(/oldid=\d+/);
    expect(x!.considered.join('\n')).not.toMatch(/records under #mw-content-text \(mw_firstlink/);
  });

  it('the person followed the next-page link: pagination follows that link (next_url), from the first page', () => {
    const recording = load('mw-history.har');
    const xs = normalize(recording).exchanges;
    const target = xs.filter((x) => x.url.includes('action=history')).at(-1)!;
    const { paging, samples } = detectPaging(target, xs);
    expect(paging).toMatchObject({ mode: 'next_url', selector: 'a[rel~=next][href]' });
    expect(samples[0].url).not.toContain('offset=');
    const def = synthesize({ recording, hints: {} } as any).definition as HttpDefinition;
    const step = def.steps.find((s) => s.paginate)!;
    expect(step.paginate).toMatchObject({ mode: 'next_url', next: { from: 'css', attr: 'href' }, stop_when_empty: 'items' });
    expect(JSON.stringify(step.query ?? {}) + step.url).not.toContain('offset');
  });

  it("a saved page's content is its own text: the site's template (tagline, skip links, print footer) is told apart by the other recorded pages", () => {
    const recording = load('mw-create.har');
    const r = synthesize({ recording, hints: { arguments: { text: 'Buy apples and pears' }, allow_side_effects: true } } as any);
    const html = pages('mw-create.har', '/index.php/Shopping_list').at(-1)!;
    const def = r.definition as HttpDefinition;
    const target = def.steps.at(-1)!;
    const record = extractValue(Object.values(target.extract!)[0], new View({ url: 'http://x/', status: 200, text: html }), 't') as any;
    expect(record).toEqual({ title: 'Shopping list', content: 'Buy apples and pears' });
  });

  it('an infobox-like Property/Value table is a detail record found by label text', () => {
    const [html] = pages('mw-page.har', 'title=Cherry');
    const x = extractHtml(html, ['Dark red']);
    expect(run(x, html)).toMatchObject({ title: 'Cherry', colour: 'Dark red', latin_name: 'Prunus avium', price_per_kg: 4.1 });
  });
});
