// Synthesis on recordings saved from a forty-fourth real application, Gitit (a wiki in Haskell over a
// git repository; scripts/acceptance-setup.sh), and the rules it showed: a sign-in answered by a
// 303 with an empty Location (no redirect: the answer itself), a sidebar every page shares that
// must not be the page's content, a page title beside the content block, links named by what wraps
// them, and a category page whose own navigation lists the category it shows.
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../src/formats/definition/validate.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { readRule as read, savedPage, savedRecording } from '../../helpers/saved-recordings.js';

const saved = (name: string) => savedRecording('gitit', name);
const pageOf = (name: string, part: RegExp) => savedPage('gitit', name, part);
/** The recording's other pages (what the site prints on every page is its template). */
const othersOf = (name: string, page: string) =>
  saved(name)
    .log.entries.filter((e: any) => /html/.test(e.response.content.mimeType) && e.response.content.text && e.response.content.text !== page)
    .map((e: any) => e.response.content.text as string);

describe("Gitit's pages", () => {
  it('a new page saved after signing in: the sign-in answer is expected as it came (303, nowhere to go), the result is the page it landed on', () => {
    const r = synthesize({
      recording: saved('gt-create'),
      hints: {
        arguments: {
          page: 'Deploy Checklist',
          editedText: 'Tag the release, then deploy the canary first.',
          logMsg: 'Start the deploy checklist',
        },
        secrets: { account: 's1' },
      },
      secretValues: { account: { type: 'login', username: 'seed', password: 'gt-seed-pass-1', totp_secret: null } },
    });
    const def = r.definition as any;
    expect(def.login.steps.map((s: any) => [s.method, s.url, s.expect_status])).toEqual([['POST', '/_login', [303]]]);
    const last = def.steps.at(-1);
    expect([last.method, last.url]).toEqual(['POST', '/{{args.page | urlencode}}']);
    // (Not the sidebar's menu, which holds more text than the page's one line but is on every page.)
    const landing = pageOf('gt-create', /\/Deploy%20Checklist$/);
    expect(read(last.extract.record, landing)).toEqual({
      title: 'Deploy Checklist',
      content: 'Tag the release, then deploy the canary first.',
    });
  });

  it("a page: its title is the <h1> beside the text, not the text's first section heading", () => {
    const page = pageOf('gt-page', /\/Billing$/);
    const x = extractHtml(page, [], ['Billing'], undefined, othersOf('gt-page', page), 'Billing');
    const rec = read(x!.extractor, page);
    expect(rec.title).toBe('Billing');
    expect(rec.content).toContain('Billing charges cards and sends invoices.');
    expect(rec.content).not.toMatch(/Front page|All pages/);
    // (Its table of contents — links to its own sections — is left out: the sections follow.)
    expect((x!.extractor as any).fields.content.except).toBe('#TOC');
    expect(rec.content.split('\n').slice(0, 2)).toEqual([
      'Billing charges cards and sends invoices. It belongs to the payments team.',
      'Owners',
    ]);
  });

  it("a field's `except` leaves those descendants' text out, and must be a selector that compiles", () => {
    const html =
      '<div id="a"><ul class="toc"><li><a href="#x">X</a></li></ul><p>Body <b>bold</b></p><ul class="toc"><li>two</li></ul></div>';
    const rule = (except?: string) => ({ from: 'css', selector: '#a', fields: { text: { ...(except ? { except } : {}) } } });
    expect(read(rule(), html)).toEqual({ text: 'X\nBody bold\ntwo' });
    expect(read(rule('ul.toc'), html)).toEqual({ text: 'Body bold' });
    const def = (except: string) => ({
      format: 'connector-definition/v1',
      engine: 'http',
      steps: [{ id: 'page', url: 'http://a.test/', extract: { rec: rule(except) } }],
      result: '{{vars.rec}}',
    });
    const opts = { inputSchema: { type: 'object', properties: {} }, requiredSecrets: [] } as any;
    expect(validateDefinition(def('ul.toc'), opts)).toEqual([]);
    expect(validateDefinition(def('ul[[bad'), opts).map((p) => p.loc.join('.'))).toEqual([
      'body.definition.steps.0.extract.rec.fields.text.except',
    ]);
  });

  it("a category: its pages, not the navigation that lists the category itself ('-Payments')", () => {
    const page = pageOf('gt-category', /_category\/Payments$/);
    const x = extractHtml(page, [], ['Payments'], undefined, othersOf('gt-category', page), 'Payments');
    expect(x!.kind).toBe('list');
    expect(read(x!.extractor, page).map((i: any) => i.title)).toEqual(['Billing', 'Ledger']);
    // (The menu holding the typed value alone ranks below the block and the list.)
    expect(x!.considered.at(-1)).toMatch(/#categoryList/);
  });

  it("a page's history: the author and subject links named by the elements that wrap them", () => {
    const page = pageOf('gt-history', /_history\/Billing$/);
    const x = extractHtml(page, [], ['Billing'], undefined, othersOf('gt-history', page), 'Billing');
    const items = read(x!.extractor, page);
    expect(items).toHaveLength(2);
    expect(Object.keys(items[0])).toEqual(['date', 'author_url', 'author', 'subject_url', 'subject']);
    expect(items.map((i: any) => i.author)).toEqual(['Bo Lindqvist', 'Ada Moreno']);
    expect(items[1].subject).toBe('Create Billing');
  });

  it("an author's activity: the author every change shows is kept, the value asked for (not the template's words)", () => {
    const page = pageOf('gt-activity', /_activity\?forUser=/);
    const x = extractHtml(page, [], ['Ada Moreno'], undefined, othersOf('gt-activity', page), undefined);
    const items = read(x!.extractor, page);
    expect(items.length).toBeGreaterThanOrEqual(3);
    expect(new Set(items.map((i: any) => i.author))).toEqual(new Set(['Ada Moreno']));
    expect(items.every((i: any) => i.subject && i.files)).toBe(true);
    // (Asked for nothing, the same name on every change is the page's own words: left out.)
    const plain = read(extractHtml(page, [], [], undefined, othersOf('gt-activity', page))!.extractor, page);
    expect(plain[0]).not.toHaveProperty('author');
  });

  it('search hits: each page with its matching lines', () => {
    const page = pageOf('gt-search', /_search\?patterns=payments/);
    const x = extractHtml(page, [], ['payments'], undefined, othersOf('gt-search', page));
    const items = read(x!.extractor, page);
    expect(items.map((i: any) => i.title)).toEqual(['Ledger', 'Billing']);
    expect(items[1].matches).toContain('Billing charges cards and sends invoices.');
  });
});
