// Synthesis stages on pages saved from a seventh real application, Django's admin (Debian's
// python3-django; scripts/acceptance-setup.sh): a change form whose data sit in <input> values, a
// <select>'s chosen option and a checkbox; an empty "add" form; a change list whose yes/no column is
// icons (<img alt="True">); and an edit form's untouched fields read back from the form. (Its pager
// of numbered links: paging.test.ts.)
import * as cheerio from 'cheerio';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { formRecords } from '../../../src/synth/html-form-record.js';
import { formControlProducer } from '../../../src/synth/producers.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { structuralCandidates } from '../../../src/synth/html-structure.js';
import type { Exchange } from '../../../src/synth/types.js';

const FIX = path.join(__dirname, '../../fixtures/real/django');
const page = (f: string) => fs.readFileSync(path.join(FIX, f), 'utf8');
const change = page('book-change.html');
const add = page('book-add.html');
const search = page('book-search.html');
const run = (x: { extractor: any }, html: string) =>
  extractValue(x.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't');

describe('Django admin pages', () => {
  it('a change form is one record of its labelled fields: input values, the selected option, the checkbox as a boolean', () => {
    const x = extractHtml(change, [], ['7'], undefined, [search]);
    expect(x!.why).toMatch(/^form form#book_form/);
    expect(run(x!, change)).toEqual({
      title: 'Orchard Notes volume 7',
      author: 'Clara Graft',
      year: 1996,
      isbn: '978-0-1006-6',
      in_stock: false,
      summary: 'Notes on pruning row 7.',
    });
    // A checked box reads true (the same form with the box ticked).
    const ticked = change.replace(/(<input type="checkbox" name="in_stock")/, '$1 checked');
    expect(run(x!, ticked)).toMatchObject({ in_stock: true });
    // The control: without form records, the best rule read the labels ("Title:") as a list.
    expect(JSON.stringify(structuralCandidates(change, [search]).map((c) => run(c, change)))).not.toContain('"Orchard Notes volume 7"');
  });

  it('an empty form (the "add" page), a GET form (the list\'s search box) and a sign-in form are no records', () => {
    expect(formRecords(cheerio.load(add), new Set())).toEqual([]);
    expect(formRecords(cheerio.load(search), new Set())).toEqual([]);
    const login =
      '<form method="post" action="/login"><label for="u">User</label><input id="u" name="u" value="ann">' +
      '<label for="n">Note</label><input id="n" name="n" value="x"><input type="password" name="p"></form>';
    expect(formRecords(cheerio.load(login), new Set())).toEqual([]);
    const form = `<form method="post"><label for="a">A</label><input id="a" name="a" value="1"><label for="b">B</label><input id="b" name="b" value="2"></form>`;
    const page = '<h1>Orchard Notes volume 5</h1><p>Notes on pruning row 5, by Clara Graft.</p>';
    const folded = `<main>${page}<div style="display:none">${form}</div></main>`;
    expect(formRecords(cheerio.load(folded), new Set())).toEqual([]);
    expect(formRecords(cheerio.load(folded.replace(' style="display:none"', '')), new Set())).toHaveLength(1);
    // (A page whose whole content is hidden until its script shows it — Cacti's
    // `<main style="display:none">` — is the page, not a part folded away.)
    expect(formRecords(cheerio.load(`<main style="display:none">${page}${form}</main>`), new Set())).toHaveLength(1);
    // A settings form with a password among its fields (a device's SNMP passphrase) is a record;
    // labels may be its rows' text instead of <label>s.
    const device =
      '<form method="post" id="host_form"><table><tr><td>Description</td><td><input name="description" value="Weather Mast"></td></tr>' +
      '<tr><td>Hostname</td><td><input name="hostname" value="127.0.0.16"></td></tr><tr><td>SNMP Username</td><td><input name="snmp_username" value=""></td></tr>' +
      '<tr><td>SNMP Password</td><td><input type="password" name="snmp_password"></td></tr></table></form>';
    const [rec] = formRecords(cheerio.load(device), new Set());
    expect(Object.keys(rec!.extractor.fields!)).toEqual(['description', 'hostname', 'snmp_username']);
    expect(rec!.text).toBe('Weather Mast 127.0.0.16');
  });

  it("a change list's column of yes/no icons is a boolean field from the images' alt text", () => {
    const x = extractHtml(search, [], ['Clara'], undefined, [change]);
    const rows = run(x!, search) as Record<string, unknown>[];
    expect(rows.length).toBe(6);
    expect(rows.map((r) => r.in_stock)).toEqual([true, false, true, true, false, true]);
    expect(rows[0]).toMatchObject({ title: 'Orchard Notes volume 23', author: 'Clara Graft', year: 2012 });
  });
});

describe("an edit form's untouched fields are read from the form at run time", () => {
  const pageX = {
    id: 'e1',
    index: 1,
    method: 'GET',
    url: 'http://x/admin/library/book/7/change/',
    status: 200,
    mime: 'text/html',
    text: change,
  } as unknown as Exchange;
  const read = (name: string, value: string, action = pageX.url) => {
    const got = formControlProducer([pageX], action, name, value);
    return got && { ...got.f, value: extractValue(got.f.extractor, new View({ url: pageX.url, status: 200, text: change }), 't') };
  };

  it("a select's chosen option (a low-entropy id), a textarea's text, an input's value", () => {
    expect(read('author', '3')).toMatchObject({
      extractor: { selector: 'form#book_form select[name="author"] option[selected]', attr: 'value' },
      value: '3',
    });
    expect(read('summary', 'Notes on pruning row 7.')).toMatchObject({
      extractor: { selector: 'form#book_form textarea[name="summary"]' },
      value: 'Notes on pruning row 7.',
    });
    expect(read('title', 'Orchard Notes volume 7')).toMatchObject({ value: 'Orchard Notes volume 7' });
  });

  it('not a value the person changed, nor a form that posts elsewhere, nor a hidden field or a checkbox', () => {
    expect(read('author', '2')).toBeNull();
    expect(read('title', 'Orchard Notes volume 7', 'http://x/admin/library/book/8/change/')).toBeNull();
    const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(change)![1]!;
    expect(read('csrfmiddlewaretoken', token)).toBeNull();
    expect(read('in_stock', 'on')).toBeNull();
  });
});
