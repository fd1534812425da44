// A search that found one thing (src/synth/html-single-hit.ts): the recorded page shows no
// repeated records, but the rule chosen on it must read every hit of a later query that finds many.
// Checked on made-up markup of the usual shapes, and on real search pages (DokuWiki, MediaWiki:
// test/fixtures/real/record.ts), where the rule from the one-hit page runs on the many-hit page.
import fs from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { makeAjv } from '../../../src/lib/json-schema.js';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';

const run = (x: ReturnType<typeof extractHtml>, html: string) =>
  extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't') as any;

/** A search page: site header and menu, the search box holding `q`, the hits, a footer. */
const searchPage = (q: string, hits: string, box = `<input name="q" value="${q}">`) =>
  `<html><body><header><a href="/">Shop</a><nav><a href="/a">About</a><a href="/b">Blog</a></nav></header>
  <main><h1>Search</h1><form method="get" action="/search">${box}<button>Go</button></form>${hits}</main>
  <footer>© Shop</footer></body></html>`;

const shapes: Record<string, { wrap: (h: string) => string; hit: (i: number, t: string) => string }> = {
  'list items': {
    wrap: (h) => `<p>Results</p><ul>${h}</ul>`,
    hit: (i, t) => `<li><a href="/p/${i}">${t}</a><p>About the ${t}</p><span>${i}.50</span></li>`,
  },
  'cards whose header and body are divs': {
    wrap: (h) => `<p>Results</p><div>${h}</div><div><span>Page 1</span></div>`,
    hit: (i, t) =>
      `<div><div><a href="/p/${i}">${t}</a> <time datetime="2026-01-0${i}">Jan ${i}</time></div><div>About the ${t}</div></div>`,
  },
  articles: {
    wrap: (h) => h,
    hit: (i, t) => `<article><h2><a href="/p/${i}">${t}</a></h2><p>About the ${t}</p></article>`,
  },
  'a <dl> of linked <dt>s (the query only in the snippet)': {
    wrap: (h) => `<dl>${h}</dl>`,
    hit: (i) => `<dt><a href="/p/${i}">Item ${i}</a></dt><dd><span>a lamp for the desk, number ${i}</span> <span>Ann</span></dd>`,
  },
};

describe('a search page with one hit', () => {
  for (const [name, s] of Object.entries(shapes)) {
    it(`${name}: a list rule that reads every hit of a query that finds more`, () => {
      const x = extractHtml(searchPage('lamp', s.wrap(s.hit(1, 'Desk lamp'))), [], ['lamp']);
      expect(x?.kind, x?.considered.join('\n')).toBe('list');
      expect(x!.why).toMatch(/only hit/);
      // (Its schema is one a validator takes: nothing in it is nullable twice.)
      expect(() => makeAjv().compile(x!.schema)).not.toThrow();
      const one = run(x, searchPage('lamp', s.wrap(s.hit(1, 'Desk lamp'))));
      expect(one).toHaveLength(1);
      expect(one[0].url).toBe('/p/1');
      const many = run(x, searchPage('chair', s.wrap([2, 3, 4].map((i) => s.hit(i, `Chair ${i}`)).join(''))));
      expect(many.map((r: any) => r.url)).toEqual(['/p/2', '/p/3', '/p/4']);
      expect(run(x, searchPage('nothing', s.wrap('')))).toEqual([]);
    });
  }

  it('needs the search box to hold the query: a detail page with a single related item stays a detail page', () => {
    const detail = `<html><body><main><h1>Desk lamp</h1><p>Price: 12.50</p>
      <ul><li><a href="/p/9">Desk lamp shade</a> fits this lamp</li></ul></main>
      <form method="get" action="/search"><input name="q" value=""></form></body></html>`;
    const x = extractHtml(detail, [], ['lamp']);
    expect(x?.kind).toBe('detail');
  });

  it('the query in a hidden field does not make a search page', () => {
    const html = searchPage(
      'lamp',
      shapes['list items'].wrap(shapes['list items'].hit(1, 'Desk lamp')),
      '<input type="hidden" name="q" value="lamp">',
    );
    expect(extractHtml(html, [], ['lamp'])?.why ?? '').not.toMatch(/only hit/);
  });

  it('two hits are repeated records, as before (no single-hit rule)', () => {
    const s = shapes['list items'];
    const x = extractHtml(searchPage('lamp', s.wrap(s.hit(1, 'Desk lamp') + s.hit(2, 'Floor lamp'))), [], ['lamp']);
    expect(x?.why).toMatch(/^2 repeated/);
  });
});

/** The recorded search page (the first HTML answer whose URL matches) of a real app's HAR. */
const realPage = (file: string, url: RegExp) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, '../../fixtures/real', file), 'utf8')).log.entries.find(
    (e: any) => url.test(e.request.url) && /html/.test(e.response.content.mimeType) && e.response.content.text,
  ).response.content.text as string;

describe('real search pages with one hit (the rule then runs on the same search finding several)', () => {
  it('DokuWiki: "malus" finds the apple page; the rule reads every page "orchard" finds', () => {
    const x = extractHtml(realPage('dokuwiki/dw-search-one.har', /do=search/), [], ['malus']);
    expect(x?.kind, x?.considered.join('\n')).toBe('list');
    expect(run(x, realPage('dokuwiki/dw-search-one.har', /do=search/)).map((r: any) => r.title)).toEqual(['apple']);
    const many = realPage('dokuwiki/dw-search.har', /do=search/);
    const truth = cheerio
      .load(many)('dl.search_results dt > a.wikilink1')
      .map((_, a) => cheerio.load(a).text())
      .get();
    expect(truth.length).toBeGreaterThan(2);
    expect(run(x, many).map((r: any) => r.title)).toEqual(truth);
  });

  it('MediaWiki: "malus" finds Apple; the rule reads every hit "orchard" finds', () => {
    const x = extractHtml(realPage('mediawiki/mw-search-one.har', /Special(:|%3A)Search/), [], ['malus']);
    expect(x?.kind, x?.considered.join('\n')).toBe('list');
    const many = realPage('mediawiki/mw-search.har', /Special(:|%3A)Search/);
    const truth = cheerio
      .load(many)('.mw-search-result-heading > a')
      .map((_, a) => cheerio.load(a).text())
      .get();
    expect(truth.length).toBeGreaterThan(2);
    const hits = run(x, many);
    expect(hits.map((r: any) => Object.values(r).find((v) => truth.includes(v as string)))).toEqual(truth);
  });
});
