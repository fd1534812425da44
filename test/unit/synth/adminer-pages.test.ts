// Synthesis stages on pages saved from a ninth real application, Adminer (Debian package;
// scripts/acceptance-setup.sh): a data table whose header cells carry inline scripts (sort and
// hover handlers) beside the column names, and an edit page with four forms that all post to "/"
// (the row's fields, a search, a logout, the language switch).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { formControlProducer } from '../../../src/synth/producers.js';
import type { Exchange } from '../../../src/synth/types.js';

const FIX = path.join(__dirname, '../../fixtures/real/adminer');
const page = (f: string) => fs.readFileSync(path.join(FIX, f), 'utf8');
const select = page('trees-select.html');
const edit = page('tree-edit.html');
const URL_ = 'http://127.0.0.1:8939/?server=127.0.0.1&username=gardener&db=orchard';

describe('Adminer pages', () => {
  it("a table's columns are named by what the header cells show, not by their inline scripts", () => {
    const x = extractHtml(select, [], []);
    expect(x!.why).toMatch(/columns from its header cells \(id, name, variety, planted, row_no, notes\)/);
    const rows = extractValue(x!.extractor, new View({ url: `${URL_}&select=trees`, status: 200, text: select }), 't') as any[];
    expect(rows).toHaveLength(50);
    expect(rows[4]).toMatchObject({ id: 5, name: 'Tree 5', row_no: 1 });
  });

  it("an edit form's untouched fields are read from that form, though three other forms post to the same path", () => {
    const pageX = {
      id: 'e1',
      index: 1,
      method: 'GET',
      url: `${URL_}&edit=trees&where%5Bid%5D=5`,
      status: 200,
      mime: 'text/html',
      text: edit,
    } as unknown as Exchange;
    const sent = [
      'function[id]',
      'fields[id]',
      'fields[name]',
      'fields[variety]',
      'fields[planted]',
      'fields[row_no]',
      'fields[notes]',
      'token',
      'save',
    ];
    const read = (name: string, value: string) => {
      const got = formControlProducer([pageX], pageX.url, name, value, sent);
      return got && extractValue(got.f.extractor, new View({ url: pageX.url, status: 200, text: edit }), 't');
    };
    expect(read('fields[variety]', 'Victoria')).toBe('Victoria');
    expect(read('fields[planted]', '1995')).toBe('1995');
    // Without knowing which fields the request sent, the four forms leave it open: nothing is read.
    expect(formControlProducer([pageX], pageX.url, 'fields[variety]', 'Victoria', ['token'])).toBeNull();
  });
});
