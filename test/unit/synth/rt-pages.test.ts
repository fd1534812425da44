// Synthesis stages on recordings of a tenth real application, Request Tracker 5 (Debian's
// request-tracker5; scripts/acceptance-setup.sh): search results where each ticket is a <tbody> of
// two rows under two header rows, every cell beside a hidden inline-edit form (a <select> of every
// status); a pager of numbered links that carry more parameters than the search's own URL; and a
// ticket page whose subject is the page header's <h1>, outside the block of fields, under menus of
// plain <ul>s named app-nav, and whose history a script fetches as an HTML fragment; a history
// page of transactions, some holding attachment links (no groups of items, each a record).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { cgiQuery, normalize } from '../../../src/synth/normalize.js';
import { detectPaging, scoreTargets } from '../../../src/synth/target.js';

const FIX = path.join(__dirname, '../../fixtures/real/rt');
const exchanges = (f: string) => normalize(JSON.parse(fs.readFileSync(path.join(FIX, f), 'utf8'))).exchanges;
const html = (f: string, url: RegExp) => exchanges(f).find((x) => url.test(x.url) && x.text)!;
const run = (x: ReturnType<typeof extractHtml>, text: string) =>
  extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text }), 't') as any;

describe('Request Tracker pages', () => {
  it('search results: one record per <tbody> of two rows, fields named by both header rows, no option lists in the text', () => {
    const page = html('rt-list.har', /Results\.html\?Query/).text!;
    const x = extractHtml(page, ['Fix the fence by the gate']);
    expect(x!.kind).toBe('list');
    const items = run(x, page);
    expect(items).toHaveLength(10);
    expect(items[0]).toMatchObject({
      id: 1,
      subject: 'Fix the fence by the gate',
      status: 'open',
      queue: 'Orchard',
      priority: 'Low',
      requestor: '<gardener@example.com>',
    });
    // (The hidden inline-edit <select>s of every status and queue are not the cells' text.)
    for (const i of items) expect(i.status).toMatch(/^(new|open|resolved)$/);
  });

  it('a search of one hit (one <tbody>) is one record: the two header rows say a record has two rows', () => {
    const page = html('rt-search.har', /Simple\.html\?q=/).text!;
    const items = run(extractHtml(page, [], ['pear']), page);
    expect(items).toEqual([
      expect.objectContaining({ subject: 'Order pear saplings', status: 'new', requestor: '<gardener@example.com>' }),
    ]);
  });

  it("a pager of numbers whose link to page 2 carries more than the search's URL: Page counts up on the target's URL", () => {
    const xs = exchanges('rt-list.har');
    const target = xs.find((x) => /Results\.html\?Query/.test(x.url))!;
    const { paging, samples } = detectPaging(target, xs);
    expect(paging).toEqual({ mode: 'page', param: 'Page', start: 1 });
    expect(samples.map((s) => new URL(s.url).searchParams.get('Page'))).toEqual([null, '2']);
  });

  it('a ticket page: the page the person opened, not the history fragment its script fetched with the same id', () => {
    const xs = exchanges('rt-ticket.har');
    const login = new Set(xs.filter((x) => x.method === 'POST').map((x) => x.id));
    const [best, next] = scoreTargets(xs, { argValues: ['3'], resultValues: [], secretCarriers: login, lastActionTime: null });
    expect(best!.exchange.url).toMatch(/Ticket\/Display\.html\?id=3$/);
    expect(next!.exchange.url).toMatch(/Helpers\/TicketHistory/);
    expect(next!.reasons.join(' ')).toMatch(/HTML fragment/);
  });

  it("a ticket page: its fields and the page header's <h1>, not the menus (<ul id=app-nav>, no <nav>)", () => {
    const page = html('rt-ticket.har', /Display\.html\?id=3$/).text!;
    const x = extractHtml(page, [], ['3']);
    expect(x!.kind).toBe('detail');
    const r = run(x, page);
    expect(r).toMatchObject({ id: 3, status: 'new', queue: 'Orchard' });
    // (`title`, or `heading` when the block has a section heading of its own.)
    expect(r.title === '#3: Order pear saplings' || r.heading === '#3: Order pear saplings').toBe(true);
    expect(x!.considered.join('\n')).not.toMatch(/app-nav|li-admin/);
    // Not the captions of the editors inside the block (watchers, reminders, merge), nor the
    // footer named so ("Time to display: 0.17").
    expect(Object.keys(r)).not.toEqual(expect.arrayContaining([expect.stringMatching(/watchers|reminder|warning|time_to_display/)]));
  });

  it("a ticket's history: each transaction is a record (its few attachment links are not the records), not the recently-viewed submenu", () => {
    const page = html('rt-history.har', /History\.html\?id=2$/).text!;
    const x = extractHtml(page, [], ['2']);
    const items = run(x, page);
    expect(items.length).toBeGreaterThan(1);
    for (const i of items) expect(i.url).toMatch(/^\/Transaction\/Display\.html\?id=\d+$/);
    expect(items[0]).toMatchObject({ description: expect.stringMatching(/Ticket created/), user: 'The RT System itself' });
    expect(x!.considered.join('\n')).not.toMatch(/menu_item/);
  });

  it('a query with `;` between parameters (CGI.pm style) reads as `&`; a `;` inside a value stays', () => {
    expect(cgiQuery('http://rt.test/Ticket/Update.html?Action=Comment;id=2')).toBe('http://rt.test/Ticket/Update.html?Action=Comment&id=2');
    expect(cgiQuery('http://x.test/s?q=a;b&page=2#top')).toBe('http://x.test/s?q=a;b&page=2#top');
    expect(cgiQuery('http://x.test/s?a=1;b[]=2&c=3;d=4')).toBe('http://x.test/s?a=1&b[]=2&c=3&d=4');
    expect(cgiQuery('http://x.test/p;jsessionid=1?a=1')).toBe('http://x.test/p;jsessionid=1?a=1');
  });
});
