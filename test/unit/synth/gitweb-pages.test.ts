// Synthesis on recordings saved from a forty-second real application, gitweb (git's CGI repository
// browser; scripts/acceptance-setup.sh), and the general rules it showed: tables without header
// rows name their columns by what the cells say of themselves (a class word every cell shares, a
// date, the rows' own linked names) instead of their position; a column of "commit | commitdiff |
// tree" links is row actions whatever separates them; a linked title keeps its words alone beside
// a badge in a few rows or over a search hit's excerpt; a value cut short with an ellipsis reads
// whole from its title; a page that is mostly one listing is that listing, though its address's
// value shows only in a breadcrumb; a pager's "next" found by its access key.
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { nextPageLink } from '../../../src/synth/html-structure.js';
import { synthesize } from '../../../src/synth/index.js';
import { readRule, savedPage, savedRecording } from '../../helpers/saved-recordings.js';

const saved = (name: string) => savedRecording('gitweb', name);
const pageOf = (name: string, part: RegExp) => savedPage('gitweb', name, part);
const run = (x: ReturnType<typeof extractHtml>, html: string) => readRule(x!.extractor, html) as Record<string, unknown>[];
const lastExtract = (r: ReturnType<typeof synthesize>) => {
  const ex = (r.definition as any).steps.at(-1).extract;
  return ex.items ?? ex.record;
};

describe("gitweb's headerless tables", () => {
  it("a project's log: date, author and subject by what they are, not column_1..4; its row actions no field", () => {
    const html = pageOf('gw-shortlog', /a=shortlog$/);
    const x = extractHtml(html);
    const items = run(x, html);
    expect(items).toHaveLength(100);
    expect(Object.keys(items[0]!)).toEqual(['date', 'author', 'author_url', 'subject', 'subject_url']);
    // (The newest commit carries its branch's badge, "main", after the subject: not part of it.)
    expect(items[0]!.subject).toBe('tiles: speed up slow requests');
    expect(items[1]!.subject).toBe('api: rework labels at the antimeridian');
    expect(items[0]!.date).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(String(items[0]!.subject_url)).toMatch(/a=commit;h=[0-9a-f]{40}$/);
  });

  it("the log's next page is found by its access key, not by its place among the pager's links", () => {
    const $ = cheerio.load(pageOf('gw-shortlog', /a=shortlog$/));
    expect(nextPageLink($)).toBe('a[accesskey="n"][href]');
  });

  it("search hits: the linked subject alone, the hit's excerpt as the subject's text", () => {
    const r = synthesize({ recording: saved('gw-search'), hints: { arguments: { s: 'antimeridian' } } });
    const ex = lastExtract(r);
    expect(Object.keys(ex.fields)).toEqual(['date', 'author', 'author_url', 'subject', 'subject_text', 'subject_url']);
    const items = readRule(ex, pageOf('gw-search', /s=antimeridian/)) as Record<string, unknown>[];
    expect(items[0]!.subject).toBe('api: rework labels at the antimeridian');
    expect(items[0]!.subject_text).toContain('work on labels at the antimeridian.');
    expect((r.definition as any).steps.at(-1).query.s).toBe('{{args.s}}');
  });

  it('a directory: mode, size and name, the listing chosen over the page whose breadcrumb shows the path', () => {
    const r = synthesize({ recording: saved('gw-tree'), hints: { arguments: { f: 'src' } } });
    const ex = lastExtract(r);
    expect(Object.keys(ex.fields)).toEqual(['mode', 'size', 'name', 'name_url']);
    const items = readRule(ex, pageOf('gw-tree', /f=src/)) as Record<string, unknown>[];
    expect(items.map((i) => i.name)).toEqual(['..', 'cache.c', 'cli.c', 'projection.c', 'render', 'tests.c', 'tiles.c']);
  });

  it("a project's description cut short on the page reads whole from its link's title", () => {
    const r = synthesize({ recording: saved('gw-projects'), hints: { arguments: { s: 'tiles' } } });
    const ex = lastExtract(r);
    expect(ex.fields.description).toMatchObject({ column: 'Description', selector: '[title]', attr: 'title' });
    const [atlas] = readRule(ex, pageOf('gw-projects', /s=tiles/)) as Record<string, unknown>[];
    expect(atlas).toMatchObject({
      project: 'atlas.git',
      description: 'Mapping toolkit that renders and caches map tiles',
      owner: 'Dana Reyes',
    });
    // (The column of summary | shortlog | log | tree links is no field.)
    expect(Object.keys(atlas!)).toEqual(['project', 'project_url', 'description', 'description_url', 'owner', 'last_change']);
  });
});

describe("gitweb's commit page", () => {
  it('the header rows by their labels (a blank label continuing the row above, "commit" not found in "committer"), the message as content', () => {
    const h = 'a87bfd45470d3755789c5ac6a176da27ae727014';
    const r = synthesize({ recording: saved('gw-commit'), hints: { arguments: { h } } });
    const ex = lastExtract(r);
    expect(Object.keys(ex.fields)).toEqual([
      'author',
      'author_detail',
      'committer',
      'committer_detail',
      'commit',
      'tree',
      'parent',
      'content',
    ]);
    const rec = readRule(ex, pageOf('gw-commit', /a=commit;h=/));
    expect(rec).toMatchObject({
      author: 'Lee Park <lee@example.test>',
      committer: 'Dana Reyes <dana@example.test>',
      commit: h,
      parent: 'dc77c8103787b223d9213d45a16bc7e7006e96f6',
    });
    expect(rec.author_detail).toMatch(/^Sat, 9 May 2026 \d\d:\d\d:\d\d \+0000/);
    // (Its subject "tests: add empty layers" is no "tests" field; the words are apart by plain spaces.)
    expect(rec.content).toBe('tests: add empty layers\nChange 128 of atlas: tests work on empty layers.');
  });
});

describe('the same rules on their own', () => {
  const table = (rows: string) => `<html><body><main><table>${rows}</table></main></body></html>`;
  const extract = (html: string) => run(extractHtml(html), html);

  it('a shared class word names a column only when every cell has it; stripes and layout classes never do', () => {
    const row = (n: string, who: string, cls = 'dark') =>
      `<tr class="${cls}"><td class="nowrap">${n}</td><td class="owner">${who}</td><td class="odd">${n.length}</td></tr>`;
    const items = extract(table(row('pear', 'ann') + row('plum', 'bo', 'light') + row('fig', 'cy')));
    // (The first column of distinct words is the rows' names, as before.)
    expect(Object.keys(items[0]!)).toEqual(['name', 'owner', 'column_3']);
  });

  it('a linked value followed by different words in most rows keeps them: no badge rule', () => {
    const row = (n: string, c: number) => `<tr><td><a href="/t/${n}">${n}</a> (${c} comments)</td><td>${c}</td><td>${n}s</td></tr>`;
    const items = extract(table(row('pear', 3) + row('plum', 4) + row('fig', 5)));
    expect(Object.values(items[0]!)).toContain('pear (3 comments)');
  });

  it('an ellipsis without a title that begins with the shown words is kept as shown', () => {
    const row = (n: string, d: string, t: string) => `<tr><td>${n}</td><td><a href="/p/${n}" title="${t}">${d}</a></td></tr>`;
    const html = table(
      `<tr><th>Name</th><th>About</th></tr>${row('pear', 'A sweet fruit that...', 'Another text')}${row('plum', 'Stone fruit', 'Stone fruit')}`,
    );
    expect(extract(html).map((i) => i.about)).toEqual(['A sweet fruit that...', 'Stone fruit']);
  });
});
