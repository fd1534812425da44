// A record picked from a JSON list, through the real server: a single-page app lists books as JSON,
// the person clicks "Orchard Notes" and changes its year (GET /api/books, then PATCH
// /api/books/<its id>). The id was read from the list; the connector, asked with hints.arguments
// {title, year}, must change the book the run's title names, not the one at Orchard Notes' place
// in the list. Recorded in Chromium, uploaded, synthesized, replay-validated, published, run.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { recordLive } from './helpers/acceptance.js';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

type Book = { id: number; title: string; year: number };
const SEED: Book[] = [
  { id: 31, title: 'The Broken Fence', year: 1988 },
  { id: 7, title: 'Orchard Notes', year: 2011 },
  { id: 52, title: 'Quince and Medlar', year: 1975 },
  { id: 18, title: 'Pruning in Winter', year: 2003 },
];
const PAGE = `<!doctype html><title>Books</title><ul id=list></ul>
<form id=edit hidden><label>Year <input name=year type=number></label><button>Save</button></form>
<script>
let current = null;
fetch('/api/books').then((r) => r.json()).then(({ data }) => {
  for (const b of data) {
    const li = document.createElement('li');
    const a = document.createElement('button');
    a.textContent = b.title;
    a.onclick = async () => {
      current = (await (await fetch('/api/books/' + b.id)).json()).data;
      document.querySelector('#edit').hidden = false;
      document.querySelector('[name=year]').value = current.year;
    };
    li.append(a);
    document.querySelector('#list').append(li);
  }
});
document.querySelector('#edit').onsubmit = async (e) => {
  e.preventDefault();
  const year = Number(document.querySelector('[name=year]').value);
  const r = await fetch('/api/books/' + current.id, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ year }) });
  document.title = r.ok ? 'Saved' : 'Failed';
};
</script>`;

describe.each(await backends())('a record picked from a JSON list by its title (%s)', (backend) => {
  let h: Harness;
  let site: http.Server;
  let base = '';
  let browser: Browser;
  let books: Book[] = [];
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      const json = (status: number, v: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (u.pathname === '/api/books') return json(200, { data: books.map(({ id, title }) => ({ id, title })) });
      const m = u.pathname.match(/^\/api\/books\/(\d+)$/);
      const book = m ? books.find((b) => b.id === Number(m[1])) : undefined;
      if (m && !book) return json(404, { error: 'no such book' });
      if (book && req.method === 'GET') return json(200, { data: book });
      if (book && req.method === 'PATCH') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          book.year = Number(JSON.parse(body).year);
          json(200, { data: book });
        });
        return;
      }
      // The same books as server-rendered pages: a table whose titles link to each book's form,
      // and whose boxes select books for a bulk action (archive: the year becomes 0).
      if (u.pathname === '/admin/books' && req.method === 'POST') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const f = new URLSearchParams(body);
          for (const b of books) if (f.get('action') === 'archive' && f.getAll('selected').includes(String(b.id))) b.year = 0;
          res.writeHead(303, { location: '/admin/books' }).end();
        });
        return;
      }
      if (u.pathname === '/admin/books')
        return void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<!doctype html><title>Books</title><form method=post><select name=action><option value=archive>Archive</option></select><table id=books><tr><th></th><th>Title</th><th>Year</th></tr>${books
              .map(
                (b) =>
                  `<tr><td><input type=checkbox name=selected value=${b.id} aria-label="select ${b.id}"></td><td><a href="/admin/books/${b.id}/edit">${b.title}</a></td><td>${b.year}</td></tr>`,
              )
              .join('')}</table><button>Go</button></form>`,
          );
      const edit = u.pathname.match(/^\/admin\/books\/(\d+)\/edit$/);
      const one = edit ? books.find((b) => b.id === Number(edit[1])) : undefined;
      if (edit && !one) return void res.writeHead(404).end('no such book');
      if (one && req.method === 'GET')
        return void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<!doctype html><title>${one.title}</title><form method=post><input name=title value="${one.title}"><input name=year type=number value=${one.year}><button>Save</button></form>`,
          );
      if (one && req.method === 'POST') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const f = new URLSearchParams(body);
          one.title = f.get('title') ?? one.title;
          one.year = Number(f.get('year'));
          res.writeHead(303, { location: '/admin/books' }).end();
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    h = await startHarness(backend);
    browser = await openChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    site?.close();
  });

  it('changes the book the run names; a title the list lacks is invalid_input and changes nothing', async () => {
    books = structuredClone(SEED);
    const har = await recordLive(browser, h.dataDir, 'books', base, async (page, b) => {
      await page.goto(b);
      await Promise.all([page.waitForResponse(/\/api\/books\/7$/), page.click('text=Orchard Notes')]);
      await page.fill('[name=year]', '2012');
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'PATCH'), page.click('text=Save')]);
    });
    books = structuredClone(SEED);
    const r = await synthesizeFrom(h, har, { hints: { arguments: { title: 'Orchard Notes', year: 2012 }, allow_side_effects: true } });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json.input_schema.properties).sort()).toEqual(['title', 'year']);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(JSON.stringify(def)).toContain('"where":{"title":"{{args.title}}"}');
    books = structuredClone(SEED);

    const out = await run(h, { connector_id: r.json.id, arguments: { title: 'Quince and Medlar', year: 1999 } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(books.find((b) => b.title === 'Quince and Medlar')!.year).toBe(1999);
    expect(books.filter((b) => b.title !== 'Quince and Medlar')).toEqual(SEED.filter((b) => b.title !== 'Quince and Medlar'));

    // As a person would type it: another case and spacing.
    const loose = await run(h, { connector_id: r.json.id, arguments: { title: 'pruning  in winter', year: 2004 } });
    expect(loose.status, JSON.stringify(loose.error)).toBe('success');
    expect(books.find((b) => b.id === 18)!.year).toBe(2004);

    const before = structuredClone(books);
    const miss = await run(h, { connector_id: r.json.id, arguments: { title: 'Medlars of Kent', year: 1900 } });
    expect(miss.status).toBe('connector_error');
    expect(miss.error).toMatchObject({ type: 'invalid_input', retryable: false });
    expect(miss.error.message).toContain('no record with title = "Medlars of Kent"');
    expect(books).toEqual(before);
  });

  it('the same on server-rendered pages: the form of the book whose row the title names (the link the person clicked)', async () => {
    books = structuredClone(SEED);
    const har = await recordLive(browser, h.dataDir, 'html-books', base, async (page, b) => {
      await page.goto(`${b}/admin/books`);
      await Promise.all([page.waitForURL(/\/7\/edit$/), page.click('text=Orchard Notes')]);
      await page.fill('[name=year]', '2012');
      await Promise.all([page.waitForURL(/\/admin\/books$/), page.click('text=Save')]);
    });
    books = structuredClone(SEED);
    const r = await synthesizeFrom(h, har, { hints: { arguments: { title: 'Orchard Notes', year: 2012 }, allow_side_effects: true } });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json.input_schema.properties).sort()).toEqual(['title', 'year']);
    books = structuredClone(SEED);
    const out = await run(h, { connector_id: r.json.id, arguments: { title: 'Quince and Medlar', year: 1999 } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    // That book, with its own title; no other book changed.
    expect(books).toEqual(SEED.map((b) => (b.id === 52 ? { ...b, year: 1999 } : b)));
    const miss = await run(h, { connector_id: r.json.id, arguments: { title: 'Medlars of Kent', year: 1900 } });
    expect(miss.error).toMatchObject({ type: 'invalid_input', retryable: false });
    expect(books).toEqual(SEED.map((b) => (b.id === 52 ? { ...b, year: 1999 } : b)));
  });

  it('a bulk action on the box ticked in the row of the title: run on another title, only that book', async () => {
    books = structuredClone(SEED);
    const har = await recordLive(browser, h.dataDir, 'html-bulk', base, async (page, b) => {
      await page.goto(`${b}/admin/books`);
      await page.check('[aria-label="select 7"]');
      await Promise.all([
        page.waitForURL(/\/admin\/books$/),
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.click('text=Go'),
      ]);
    });
    books = structuredClone(SEED);
    const r = await synthesizeFrom(h, har, { hints: { arguments: { title: 'Orchard Notes' }, allow_side_effects: true } });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json.input_schema.properties)).toEqual(['title']);
    books = structuredClone(SEED);
    const out = await run(h, { connector_id: r.json.id, arguments: { title: 'Pruning in Winter' } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(books).toEqual(SEED.map((b) => (b.id === 18 ? { ...b, year: 0 } : b)));
  });
});
