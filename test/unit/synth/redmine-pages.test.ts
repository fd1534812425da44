// Synthesis stages on pages recorded from a sixth real application, Redmine (Debian package, Rails;
// no <nav>: its menus are <div id="main-menu">, <div id="account">). An issue page is an attribute
// grid (<div class="label">Status:</div><div class="value">New</div>, two columns, empty values),
// its subject an <h3>, and a "Also available in: Atom PDF" line of two links. A search page with a
// single hit holds more menu and form text than results.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { structuralCandidates } from '../../../src/synth/html-structure.js';
import { normalize } from '../../../src/synth/normalize.js';
import { detectPaging } from '../../../src/synth/target.js';

const FIX = path.join(__dirname, '../../fixtures/real/redmine');
const pages = (f: string): string[] =>
  JSON.parse(fs.readFileSync(path.join(FIX, f), 'utf8'))
    .log.entries.filter((x: any) => /html/.test(x.response.content.mimeType) && x.response.content.text)
    .map((x: any) => x.response.content.text);
const [issuesList, issue] = pages('rm-issue.har');
const [overview, search] = pages('rm-search.har');
const run = (x: ReturnType<typeof extractHtml>, html: string) =>
  extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't') as Record<string, unknown>;

describe('Redmine pages', () => {
  it('an issue page is its attribute grid and subject, not the two "Atom | PDF" links (its id echoes in their URLs)', () => {
    const x = extractHtml(issue!, [], ['31'], undefined, [issuesList!]);
    expect(x!.kind).toBe('detail');
    // Every label once (the first of each column too); an empty value's label never takes the next label.
    expect(run(x, issue!)).toEqual({ title: 'Fix the fence by the gate', status: 'New', priority: 'Low', assignee: '-' });
  });

  it('the same page reached through a filter of one hit (no previous/next links): still no "Also available in: Atom PDF" field', () => {
    const [list, alone] = pages('rm-issue-alone.har');
    const x = extractHtml(alone!, [], ['31'], undefined, [list!]);
    expect(x!.kind).toBe('detail');
    const got = run(x, alone!) as Record<string, unknown>;
    expect(got).toMatchObject({ status: 'New', assignee: '-' });
    expect(JSON.stringify(got)).not.toMatch(/Atom|PDF/);
  });

  it("the site's menus (printed on the other recorded page at the same place) and a form's labels are not records", () => {
    const whys = structuralCandidates(search!, [overview!]).map((c) => c.why);
    expect(whys.filter((w) => /#(main-menu|top-menu|account)\b/.test(w))).toEqual([]);
    expect(whys.filter((w) => /\blabel\(/.test(w))).toEqual([]);
    // Without the other page, the menus are known by the names the page gives them (`main-menu`).
    expect(structuralCandidates(search!).filter((c) => /#(main-menu|top-menu)\b/.test(c.why))).toEqual([]);
  });

  it('the first page as the target (it holds the hinted value), then the page its "Next »" link led to: pagination by that link', () => {
    const xs = normalize(JSON.parse(fs.readFileSync(path.join(FIX, 'rm-issues.har'), 'utf8'))).exchanges;
    const [first, second] = xs.filter((x) => x.url.includes('/projects/orchard/issues'));
    expect(second!.url).toMatch(/page=2$/);
    const { paging, samples } = detectPaging(first!, xs);
    expect(paging).toMatchObject({ mode: 'next_url' });
    expect(samples.map((x) => x.id)).toEqual([first!.id, second!.id]);
  });

  it('search hits in a <dl> (a linked <dt> and its <dd> each) are records, with the <dd> read from each <dt>', () => {
    const [home, hits] = pages('rm-search-many.har');
    const x = extractHtml(hits!, [], ['pruning'], undefined, [home!]);
    expect(x!.kind).toBe('list');
    const items = run(x, hits!) as unknown as { title: string; url: string; description: string }[];
    expect(items).toHaveLength(10);
    for (const i of items) {
      expect(i.title).toMatch(/^Bug #\d+ \(New\): Prune row \d+ of the orchard$/);
      expect(i.url).toMatch(/^\/issues\/\d+$/);
      expect(i.description).toMatch(/^The trees in row \d+ need pruning\.$/);
    }
  });
});
