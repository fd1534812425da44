// Synthesis on recordings saved from a forty-third real application, cgit (a repository browser in
// C; scripts/acceptance-setup.sh), over the same repositories as gitweb in other markup, and the
// rules it showed: a commit's header of <th> labels with a second value in a third cell, a table
// of labelled form controls that is no record, a message whose lines look like "Label: value"
// (a conventional subject "tests: add empty layers", a four-word "Change 128 of atlas:") read as
// the record's summary and content, and a pager's bracketed "[next]".
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { nextPageLink } from '../../../src/synth/html-structure.js';
import { synthesize } from '../../../src/synth/index.js';
import { readRule as read, savedPage, savedRecording } from '../../helpers/saved-recordings.js';

const saved = (name: string) => savedRecording('cgit', name);
const pageOf = (name: string, part: RegExp) => savedPage('cgit', name, part);

describe("cgit's pages", () => {
  it('a commit: <th> labels with the date in a third cell (author_detail), the subject as summary over the message, no diff options', () => {
    const id = 'a87bfd45470d3755789c5ac6a176da27ae727014';
    const r = synthesize({ recording: saved('cg-commit'), hints: { arguments: { id } } });
    const ex = (r.definition as any).steps.at(-1).extract.record;
    expect(Object.keys(ex.fields)).toEqual([
      'author',
      'author_detail',
      'committer',
      'committer_detail',
      'commit',
      'tree',
      'parent',
      'download',
      'content',
      'summary',
    ]);
    const rec = read(ex, pageOf('cg-commit', /commit\/\?id=/));
    expect(rec).toMatchObject({
      author: 'Lee Park <lee@example.test>',
      author_detail: '2026-05-09 04:44:48 +0000',
      committer: 'Dana Reyes <dana@example.test>',
      summary: 'tests: add empty layers',
      content: 'Change 128 of atlas: tests work on empty layers.',
    });
    expect(rec.commit).toContain(id);
  });

  it('the log: the [next] link by its words, subjects without their HEAD/branch/tag badges', () => {
    const html = pageOf('cg-log', /\/log\/$/);
    expect(nextPageLink(cheerio.load(html))).toBe('a[href]:contains("[next]")');
    const x = extractHtml(html);
    const items = read(x!.extractor, html) as Record<string, unknown>[];
    expect(items).toHaveLength(50);
    const subject = Object.keys(items[0]!).find((k) => items[1]![k] === 'api: rework labels at the antimeridian')!;
    expect(items[0]![subject]).toBe('tiles: speed up slow requests');
    // (The tenth commit carries its tag, v0.3, after the subject.)
    expect(items[10]![subject]).toBe('tiles: add the disk budget');
  });
});

describe('message lines and form tables on their own', () => {
  const detail = (body: string) => {
    const html = `<html><body><main>${body}</main></body></html>`;
    const x = extractHtml(html);
    return x ? read(x.extractor, html) : null;
  };

  it('several "Label: value" lines of one shape stay fields, lower-case labels too', () => {
    const rec = detail(
      '<div>status: running</div><div>owner: ann</div><div>queue: default</div><p>Some words of prose that go on for a while here.</p>',
    );
    expect(rec).toMatchObject({ status: 'running', owner: 'ann', queue: 'default' });
  });

  it('rows headed by <th>, all three cells wide, stay a list of records', () => {
    const row = (n: string, c: number, col: string) => `<tr><th>${n}</th><td>${c}</td><td>${col}</td></tr>`;
    const html = `<html><body><main><table>${row('pear', 3, 'green')}${row('plum', 4, 'purple')}${row('fig', 5, 'brown')}</table></main></body></html>`;
    const items = read(extractHtml(html)!.extractor, html);
    expect(items).toHaveLength(3);
    expect(Object.values(items[1])).toEqual(expect.arrayContaining(['plum', 'purple']));
  });

  it('a table of labelled controls is no record: its labels are no fields', () => {
    const rec = detail(
      '<form><table><tr><td>context:</td><td><select name="c"><option selected>3</option></select></td></tr><tr><td>mode:</td><td><select name="m"><option>unified</option></select></td></tr></table></form><table><tr><th>Owner</th><td>ann</td></tr><tr><th>State</th><td>open</td></tr></table>',
    );
    expect(rec).toMatchObject({ owner: 'ann', state: 'open' });
    expect(Object.keys(rec)).not.toContain('context');
  });
});
