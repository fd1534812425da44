// Synthesis stages on pages and HARs recorded from REAL applications (DokuWiki, phpMyAdmin;
// test/fixtures/real/record.ts) — no markup conventions, no demo-site ids — plus HAR fragments
// for request fidelity (repeated keys, escaped tokens, page-name encodings, autosave XHRs).
// Every extraction rule is checked by running the runtime's own extractor on the page.
import fs from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import type { HttpDefinition, HttpStep } from '../../../src/formats/definition/types.js';
import { renderText, type Lookup } from '../../../src/formats/definition/template.js';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { parseMultipart } from '../../../src/synth/multipart.js';
import { normalize } from '../../../src/synth/normalize.js';
import { SynthError } from '../../../src/synth/types.js';
import { har } from '../../helpers/har-fragment.js';

/** Resolves a template path against a plain object. */
const plainLookup =
  (scope: Record<string, unknown>): Lookup =>
  (path) =>
    path.reduce<any>((cur, k) => cur?.[k], scope);

const FIX = path.join(__dirname, '../../fixtures/real');
const load = (f: string) => JSON.parse(fs.readFileSync(path.join(FIX, f), 'utf8'));
/** The recorded HTML of the first response whose URL contains `part`. */
function page(f: string, part: string): string {
  const e = load(f).log.entries.find(
    (x: any) => x.request.url.includes(part) && /html/.test(x.response.content.mimeType) && x.response.content.text,
  );
  return e.response.content.text;
}
const run = (x: ReturnType<typeof extractHtml>, html: string) =>
  extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't');
const selectors = (x: ReturnType<typeof extractHtml>) =>
  JSON.stringify(x!.extractor)
    .match(/"selector":"[^"]*"/g)!
    .join(' ');

describe('HTML extraction by structure (real pages)', () => {
  it('a plain table: header cells become keys, cells are typed, links become *_url fields', () => {
    const html = page('dokuwiki/dw-catalogue.har', 'catalogue');
    const x = extractHtml(html, ['Banana', '900']);
    expect(x!.kind).toBe('list');
    expect(x!.missing).toEqual([]);
    const rows = run(x, html) as any[];
    expect(rows).toHaveLength(5);
    expect(rows[1]).toEqual({ fruit: 'Banana', fruit_url: '/doku.php?id=fruit:banana', colour: 'Yellow', price_per_kg: 0.35, stock: 900 });
    expect(selectors(x)).not.toMatch(/\.[a-z]/i); // no class names
  });

  it('an admin table: the header row is picked over a row of filter inputs, a colspan footer row is no record, checkbox columns are dropped', () => {
    const html = page('dokuwiki/dw-users.har', 'usermanager');
    const x = extractHtml(html, ['editor@example.test']);
    const rows = run(x, html) as any[];
    expect(rows.map((r) => [r.user, r.real_name, r.email, r.groups])).toEqual([
      ['admin', 'Wiki Admin', 'admin@example.test', 'admin, user'],
      ['editor', 'Ed Itor', 'editor@example.test', 'user'],
    ]);
  });

  it('phpMyAdmin browse: headerless action columns (Edit/Copy/Delete) are not data', () => {
    const html = page('phpmyadmin/pma-browse.har', 'route=/sql');
    const x = extractHtml(html, ['Elderberry']);
    const rows = run(x, html) as any[];
    expect(Object.keys(rows[0])).toEqual(['id', 'name', 'colour', 'price', 'stock']);
    expect(x!.extractor.selector).toMatch(/^#page_content table:has\(th:contains\("id"\)\)/); // found by its headers, not by position
    expect(rows.at(-1)).toEqual({ id: 5, name: 'Elderberry', colour: 'Black', price: 6.5, stock: 7 });
  });

  it('search hits: the repeating record is found by its tag/child shape; template text shared by every hit is dropped', () => {
    const html = page('dokuwiki/dw-search.har', 'do=search');
    const x = extractHtml(html, [], ['orchard']);
    expect(x!.why).toMatch(/5 repeated div\(dt,dd,dd\) records/);
    const hits = run(x, html) as any[];
    expect(hits.map((h) => h.title)).toEqual(['apple', 'banana', 'cherry', 'damson', 'elderberry']);
    expect(hits[0].url).toMatch(/id=fruit:apple/);
    expect(hits.every((h) => !/Last modified/.test(JSON.stringify(h)))).toBe(true);
    expect(selectors(x)).not.toMatch(/search_results|search_fullpage/);
    // Without any signal the hits still win over the page's labels ("Last modified:" in every hit is template).
    expect(extractHtml(html)!.why).toMatch(/^5 repeated/);
  });

  it('a detail page: heading, label/value table rows (found by label text) and a "Label: value" line', () => {
    const html = page('dokuwiki/dw-page.har', 'cherry');
    const x = extractHtml(html, ['Dark red']);
    expect(x!.kind).toBe('detail');
    expect(run(x, html)).toEqual({
      title: 'Cherry',
      colour: 'Dark red',
      latin_name: 'Prunus avium',
      price_per_kg: 4.1,
      tags: 'orchard fruit',
    });
    // The rule generalizes to another page of the site (rows found by label, not by position).
    const other = html
      .replace('<h1 class="sectionedit1" id="cherry">Cherry</h1>', '<h1>Plum</h1>')
      .replace('Dark red', 'Blue')
      .replace(/(<tr class="row1">)/, '<tr><td>Origin</td><td>Asia</td></tr>$1');
    expect(run(x, other)).toMatchObject({ title: 'Plum', colour: 'Blue', latin_name: 'Prunus avium' });
  });

  it('a next-page link is returned with the records', () => {
    const html = `<html><body><main><ul>${['Ant', 'Bee', 'Cat'].map((n, i) => `<li><a href="/p/${i}">${n}</a> <span>${i * 10}</span></li>`).join('')}</ul><a href="/list?page=2" rel="next">Next</a></main></body></html>`;
    const x = extractHtml(html, ['Bee']);
    expect(run(x, html)).toEqual([
      { url: '/p/0', title: 'Ant', text: 0 },
      { url: '/p/1', title: 'Bee', text: 10 },
      { url: '/p/2', title: 'Cat', text: 20 },
    ]);
    expect(x!.next).toBe('a[rel~=next][href]');
  });
});

describe('never an empty promise', () => {
  it('a read flow whose result misses the hinted values is a 422 at stage output naming them; allow_empty_result publishes with a warning', () => {
    const rec = load('dokuwiki/dw-catalogue.har');
    let err: unknown;
    try {
      synthesize({ recording: rec, hints: { result: ['Quince'] } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SynthError);
    expect((err as SynthError).problems[0]).toMatchObject({ stage: 'output', message: expect.stringContaining('"Quince"') });
    const r = synthesize({ recording: rec, hints: { result: ['Quince'], allow_empty_result: true } });
    expect(r.report.warnings.join('\n')).toMatch(/allow_empty_result.*"Quince"/);
  });

  it('a read flow whose response holds no data (status and URL only) is a 422', () => {
    const h = har({ url: 'http://127.0.0.1:9/ping?q=abc', body: '', mime: 'text/plain' });
    expect(() => synthesize({ recording: h, hints: { arguments: { q: 'abc' } } })).toThrow(/only status and URL/);
  });
});

describe('request fidelity (real HARs)', () => {
  it('DokuWiki login: the sign-in form is found by its password input ("p"), the username only in its field, empty hidden fields kept', () => {
    const r = synthesize({ recording: load('dokuwiki/dw-users.har'), hints: { result: ['editor@example.test'] } });
    const d = r.definition as HttpDefinition;
    expect(r.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login' })]);
    const post = d.login!.steps.find((s) => s.method === 'POST')!;
    expect(post.body!.form).toEqual({
      sectok: '',
      id: 'start',
      do: 'login',
      u: '{{secrets.account.username}}',
      p: '{{secrets.account.password}}',
    });
    expect(d.steps.at(-1)!.query).toEqual({ id: 'start', do: 'admin', page: 'usermanager' }); // "admin" here is a word, not the username
    expect(JSON.stringify(r)).not.toContain('dw-admin-pass-1');
  });

  it('a multipart body that Playwright stored as raw text (params empty) is parsed by its boundary and replayed part by part', () => {
    const rec = load('dokuwiki/dw-users-multipart.har');
    const post = rec.log.entries.find((e: any) => e.request.method === 'POST').request;
    expect(post.postData.params).toEqual([]);
    expect(parseMultipart(post.postData.text, post.postData.mimeType)!.map((p) => p.name)).toEqual(['sectok', 'id', 'do', 'u', 'p']);
    const r = synthesize({ recording: rec, hints: { result: ['editor@example.test'] } });
    const login = (r.definition as HttpDefinition).login!.steps.find((s) => s.method === 'POST')!;
    expect(login.body!.multipart).toEqual([
      { name: 'sectok', value: '' },
      { name: 'id', value: 'start' },
      { name: 'do', value: 'login' },
      { name: 'u', value: '{{secrets.account.username}}' },
      { name: 'p', value: '{{secrets.account.password}}' },
    ]);
  });

  it("file parts from raw multipart text: the caller's file (the recorded one kept for the replay); a multipart body the recording lacks is a 422", () => {
    const B = '----WebKitFormBoundaryQ';
    const text = `--${B}\r\nContent-Disposition: form-data; name="title"\r\n\r\nQ3 report\r\n--${B}\r\nContent-Disposition: form-data; name="tags[]"\r\n\r\na\r\n--${B}\r\nContent-Disposition: form-data; name="tags[]"\r\n\r\nb\r\n--${B}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nline 1\r\nline 2\r\n--${B}--\r\n`;
    const h = har({ method: 'POST', url: 'http://127.0.0.1:9/upload', body: { id: 7, title: 'Q3 report' } });
    (h.log.entries[0].request as any).postData = { mimeType: `multipart/form-data; boundary=${B}`, text, params: [] };
    const r = synthesize({ recording: h, hints: { arguments: { title: 'Q3 report' } } });
    expect((r.definition as HttpDefinition).steps[0].body!.multipart).toEqual([
      { name: 'title', value: '{{args.title}}' },
      { name: 'tags[]', value: 'a' },
      { name: 'tags[]', value: 'b' },
      { name: 'file', file: '{{args.file}}' },
    ]);
    expect(r.input_schema.properties.file).toMatchObject({ format: 'file-id' });
    expect(r.recorded_files.file).toEqual({ name: 'notes.txt', contentType: 'text/plain', data: Buffer.from('line 1\r\nline 2') });
    delete (h.log.entries[0].request as any).postData;
    (h.log.entries[0].request as any).headers.push({ name: 'Content-Type', value: `multipart/form-data; boundary=${B}` });
    expect(() => synthesize({ recording: h, hints: { arguments: { title: 'Q3 report' } } })).toThrow(/does not hold/);
    expect(normalize(h).exchanges[0].body).toMatchObject({ missing: true });
  });
});

describe('request fidelity (fragments)', () => {
  const O = 'http://127.0.0.1:9';
  it('repeated query and form keys keep every value in order (f[]=a&f[]=b, v[status_id][])', () => {
    const h = har({
      url: `${O}/issues?f[]=status_id&f[]=tracker_id&v[status_id][]=1&v[status_id][]=3&q=disk`,
      body: { items: [{ id: 1, subject: 'disk full' }] },
    });
    const r = synthesize({ recording: h, hints: { arguments: { q: 'disk' } } });
    const [get] = (r.definition as HttpDefinition).steps;
    expect(get.url).toBe(
      '/issues?f%5B%5D=status_id&f%5B%5D=tracker_id&v%5Bstatus_id%5D%5B%5D=1&v%5Bstatus_id%5D%5B%5D=3&q={{args.q | urlencode}}',
    );
    expect(renderText(get.url, plainLookup({ args: { q: 'a b' } }))).toBe(
      '/issues?f%5B%5D=status_id&f%5B%5D=tracker_id&v%5Bstatus_id%5D%5B%5D=1&v%5Bstatus_id%5D%5B%5D=3&q=a%20b',
    );
    const p = har({ method: 'POST', url: `${O}/bulk`, body: { ok: true, note: 'disk' } });
    (p.log.entries[0].request as any).postData = {
      mimeType: 'application/x-www-form-urlencoded',
      text: 'ids%5B%5D=4&ids%5B%5D=9&note=disk',
      params: [],
    };
    const post = (synthesize({ recording: p, hints: { arguments: { note: 'disk' } } }).definition as HttpDefinition).steps[0];
    expect(post.body).toEqual({
      text: 'ids%5B%5D=4&ids%5B%5D=9&note={{args.note | urlencode}}',
      content_type: 'application/x-www-form-urlencoded',
    });
  });

  it('a CSRF token in an inline script as an escaped JS string ("abc+\\/def") is traced and decoded on use', () => {
    const token = 'k9+Q/7xZ=a8Lm2+Vt/0pW';
    const inline = JSON.stringify({ csrf: token }).replace(/\//g, '\\/');
    const h = har(
      {
        url: `${O}/new`,
        html: `<html><head><script>window.App = ${inline};</script></head><body><form><input name="title"></form></body></html>`,
      },
      {
        method: 'POST',
        url: `${O}/notes`,
        headers: { 'x-csrf-token': token },
        json: { title: 'Groceries' },
        body: { id: 3, title: 'Groceries' },
      },
    );
    const r = synthesize({ recording: h, hints: { arguments: { title: 'Groceries' }, result: ['Groceries'] } });
    const d = r.definition as HttpDefinition;
    const [get, post] = d.steps;
    expect(r.report.computed).toEqual([]);
    const [name, ex] = Object.entries(get.extract!)[0];
    expect(ex.from).toBe('regex');
    expect(post.headers!['x-csrf-token']).toBe(`{{vars.${name} | jsunescape}}`);
    // What the runtime does: extract from the page, render the template → the original token.
    const got = extractValue(ex, new View({ url: `${O}/new`, text: (h.log.entries[0].response.content as any).text }), 'x');
    expect(renderText(post.headers!['x-csrf-token'], plainLookup({ vars: { [name]: got } }))).toBe(token);
  });

  it('a token in an HTML-entity-encoded text and a URL-encoded cookie are traced too', () => {
    const token = 'Zx8&Pq/4Rt=Lm9wQ2e';
    const h = har(
      {
        url: `${O}/a`,
        html: `<html><body><p data-x="1">token: ${token.replace(/&/g, '&amp;')}</p></body></html>`,
        setCookies: { xsrf: encodeURIComponent(`${token}C`) },
      },
      { method: 'POST', url: `${O}/b`, headers: { 'x-a': token, 'x-b': `${token}C` }, json: { q: 'abc' }, body: { ok: 'abc' } },
    );
    const d = synthesize({ recording: h, hints: { arguments: { q: 'abc' }, result: ['abc'] } }).definition as HttpDefinition;
    expect(d.steps.at(-1)!.headers).toMatchObject({
      'x-a': expect.stringMatching(/\| htmlunescape\}\}$/),
      'x-b': expect.stringMatching(/\| urldecode\}\}$/),
    });
  });

  it('a typed page title sent as a page id (spaces → "_", lower case) becomes a templated argument', () => {
    const h = har({
      url: `${O}/doku.php?id=notes:shopping_list&do=edit`,
      html: '<html><body><main><h1>notes:shopping_list</h1><p>Edit: the page</p></main></body></html>',
    });
    const r = synthesize({ recording: h, hints: { arguments: { title: 'Shopping List' }, allow_empty_result: true } });
    const q = (r.definition as HttpDefinition).steps[0].query!;
    expect(q.id).toBe('notes:{{args.title | trim | lower | replace:[" ","_"]}}');
    expect(renderText(q.id, plainLookup({ args: { title: 'Weekly Menu Plan' } }))).toBe('notes:weekly_menu_plan');
  });

  it('the real form submit outranks a background autosave XHR carrying the same typed values', () => {
    const h = har(
      { url: `${O}/edit`, html: '<html><body><form method="post" action="/save"><textarea name="text"></textarea></form></body></html>' },
      {
        method: 'POST',
        url: `${O}/draft`,
        at: 500,
        type: 'xhr',
        json: { text: 'Buy milk now' },
        body: { saved: true, text: 'Buy milk now' },
      },
      {
        method: 'POST',
        url: `${O}/save`,
        at: 900,
        type: 'document',
        form: { text: 'Buy milk now' },
        html: '<html><body><main><h1>Saved</h1><p>Text: Buy milk now</p></main></body></html>',
      },
    );
    const r = synthesize({ recording: h, hints: { arguments: { text: 'Buy milk now' } } });
    expect(r.report.targets[0].url).toBe(`${O}/save`);
    expect(r.report.candidates.find((c) => c.url.endsWith('/draft'))!.score).toBeLessThan(r.report.targets[0].score);
    const steps = (r.definition as HttpDefinition).steps as HttpStep[];
    expect(steps.some((s) => s.url === '/draft')).toBe(false);
  });
});

describe('download fallback (script connector)', () => {
  it('keeps only extractors the script runtime can run: every CSS extractor becomes a regex or a constant, in every step', () => {
    const O = 'http://127.0.0.1:9';
    const h = har(
      {
        url: `${O}/export`,
        html: '<html><body><form id="f"><input name="sig" value="x7 k9 q2 z8 m4"><input name="tok" value="Tk9fQ2x7Lm4pZ8wR1"></form></body></html>',
      },
      {
        url: `${O}/export.csv?sig=x7+k9+q2+z8+m4&tok=Tk9fQ2x7Lm4pZ8wR1&q=gamma`,
        body: 'id,name\n1,Gamma\n',
        mime: 'text/csv',
        resHeaders: { 'content-disposition': 'attachment; filename="items.csv"' },
      },
    );
    const r = synthesize({ recording: h, hints: { arguments: { q: 'gamma' } } });
    expect(r.report.fallback).toBe('download-script');
    const src = (r.definition as any).source as string;
    const plan = JSON.parse(/const PLAN = ([\s\S]*?);\n/.exec(src)![1]);
    const extractors = plan.steps.flatMap((s: any) => Object.values(s.extract ?? {})) as { from: string }[];
    expect(extractors.map((x) => x.from)).toEqual(['regex', 'body']); // tok: a regex; sig (spaces): the recorded constant; the file: the body
    expect(JSON.stringify(plan)).toContain('x7 k9 q2 z8 m4');
    expect(r.report.warnings.join('\n')).toMatch(/sig could not be re-derived/);
    // A recorded CSV body types the rows (parsed with csv-parse, like the script does at run time).
    expect(r.output_schema.properties.rows).toEqual({
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] },
    });
    expect(src).toContain('csv_parse_sync.parse(body, CSV_OPTIONS)');
  });
});

describe('HTML extraction by structure (common admin-app markup)', () => {
  const run2 = (html: string, hints: string[]) => {
    const x = extractHtml(html, hints);
    return { x, out: extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't') as any };
  };
  it('an attribute grid of label and value elements (issue trackers), and <dl> pairs wrapped in <div>', () => {
    const html = `<html><body><header><nav><a href="/">Home</a></nav></header><div id="content"><h2>Bug #12</h2><h3>Disk full on backup</h3>
      <div class="attributes"><div class="status attribute"><div class="label"><span>Status</span>:</div><div class="value">New</div></div>
      <div class="priority attribute"><div class="label"><span>Priority</span>:</div><div class="value">High</div></div>
      <div class="assigned-to attribute"><div class="label"><span>Assignee</span>:</div><div class="value"><a href="/users/3">Ann Smith</a></div></div></div>
      <dl><div><dt>Start date</dt><dd>2026-11-02</dd></div><div><dt>Estimated time</dt><dd>4.5</dd></div></dl><p><strong>Category:</strong> backups</p></div></body></html>`;
    const { x, out } = run2(html, ['High']);
    expect(x!.kind).toBe('detail');
    expect(out).toEqual({
      title: 'Bug #12',
      // (The heading between the title and the fields: the issue's subject.)
      subtitle: 'Disk full on backup',
      status: 'New',
      priority: 'High',
      assignee: 'Ann Smith',
      start_date: '2026-11-02',
      estimated_time: 4.5,
      category: 'backups',
    });
  });
  it('a "#" column is the id; a grouped list\'s colspan group rows are not records', () => {
    const rows = [
      [3, 'Bug', 'New', 'Disk full'],
      [7, 'Feature', 'Closed', 'Dark mode'],
      [9, 'Bug', 'New', 'Crash on save'],
    ];
    const html = `<html><body><main><table id="issues"><thead><tr><th><a href="#">✓</a></th><th>#</th><th>Tracker</th><th>Status</th><th>Subject</th></tr></thead><tbody>
      <tr><td colspan="5">Group: New (2)</td></tr>${rows.map((r) => `<tr><td><input type="checkbox"></td><td><a href="/issues/${r[0]}">${r[0]}</a></td><td>${r[1]}</td><td>${r[2]}</td><td><a href="/issues/${r[0]}">${r[3]}</a></td></tr>`).join('')}</tbody></table></main></body></html>`;
    const { out } = run2(html, ['Dark mode']);
    expect(out).toEqual(
      rows.map(([id, tracker, status, subject]) => ({
        id,
        id_url: `/issues/${id}`,
        tracker,
        status,
        subject,
        subject_url: `/issues/${id}`,
      })),
    );
  });
});

describe('repeated records whose shape varies', () => {
  it('blog posts with and without a thumbnail are one list (same tag, most children alike)', () => {
    const posts = [
      ['Hello world', true],
      ['Second post', false],
      ['Garden notes', true],
      ['Winter plans', false],
    ] as const;
    const html = `<html><body><main>${posts.map(([t, img], i) => `<article id="post-${i + 10}"><header><h2><a href="/?p=${i + 10}">${t}</a></h2><time datetime="2026-11-0${i + 1}T10:00:00Z">Nov ${i + 1}</time></header>${img ? `<figure><img src="/img/${i}.jpg"></figure>` : ''}<div><p>Excerpt ${i} about ${t.toLowerCase()}.</p></div><footer><a href="/c/news">News</a></footer></article>`).join('')}</main><aside><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul></aside></body></html>`;
    const x = extractHtml(html, ['Second post', 'Winter plans']);
    expect(x!.missing).toEqual([]);
    const out = extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't') as any[];
    expect(out.map((p) => p.title)).toEqual(posts.map((p) => p[0]));
    expect(out[1]).toMatchObject({ url: '/?p=11', date: '2026-11-02T10:00:00Z', image: null });
    expect(out[0].image).toBe('/img/0.jpg');
    expect(x!.why).toMatch(/^4 repeated/);
    expect(JSON.stringify(out)).not.toContain('News'); // the footer link shared by every post is template
  });
});

describe('plain words', () => {
  it('an action word is a constant, but a token-named field is traced even when it is all letters', () => {
    const O = 'http://127.0.0.1:9';
    const h = har(
      {
        url: `${O}/form`,
        html: '<html><body><form id="f"><input type="hidden" name="do" value="search"><input type="hidden" name="state" value="qzkvbnwmtrpx"></form></body></html>',
      },
      { method: 'POST', url: `${O}/find`, form: { do: 'search', state: 'qzkvbnwmtrpx', q: 'lamp' }, body: { items: [{ name: 'lamp' }] } },
    );
    const post = (synthesize({ recording: h, hints: { arguments: { q: 'lamp' } } }).definition as HttpDefinition).steps.at(-1)!;
    expect(post.body!.form).toEqual({ do: 'search', state: '{{vars.state}}', q: '{{args.q}}' });
  });
});

describe('article pages', () => {
  it("an article's own header holds its title (page header and footer are chrome)", () => {
    const html =
      '<html><body><header><h1>My Blog</h1><nav><a href="/">Home</a></nav></header><main><article><header><h1>Winter plans</h1><p>Author: Ann Smith</p></header><p>We will plant garlic.</p><p>Published: 2026-11-02</p></article></main><footer><p>Contact: admin</p></footer></body></html>';
    const x = extractHtml(html, ['Ann Smith']);
    expect(extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't')).toEqual({
      title: 'Winter plans',
      author: 'Ann Smith',
      published: '2026-11-02',
    });
  });
});

describe('table columns found by header text at run time', () => {
  it('a site that adds and reorders columns still gives each value under its own key', () => {
    const html = page('dokuwiki/dw-catalogue.har', 'catalogue');
    const x = extractHtml(html, ['Banana', '900']);
    expect(JSON.stringify(x!.extractor)).toContain('"column":"Stock"');
    // The same table, now with a "Origin" column first and Colour/Price swapped.
    const $ = cheerio.load(html);
    $('#dokuwiki__content table tr').each((_, tr) => {
      const cells = $(tr).children();
      const [fruit, colour, price, stock] = cells.toArray();
      $(tr)
        .empty()
        .append($(tr).find('th').length || $(fruit).is('th') ? '<th>Origin</th>' : '<td>EU</td>', fruit, price, colour, stock);
    });
    const rows = extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: $.html() }), 't') as any[];
    expect(rows[1]).toEqual({ fruit: 'Banana', fruit_url: '/doku.php?id=fruit:banana', colour: 'Yellow', price_per_kg: 0.35, stock: 900 });
  });
});
