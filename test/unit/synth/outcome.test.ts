// What a write returns (src/synth/html-outcome.ts): a form answered by a redirect to a list with a
// status message returns the message (and the link it carries), not the list's first page; a
// standing banner is no message; a write that lands on the record it made keeps that record.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'https://books.test';
const rows = (n: number) =>
  `<table id="result_list"><thead><tr><th>Title</th><th>Year</th></tr></thead><tbody>${Array.from(
    { length: n },
    (_, i) => `<tr><td><a href="/book/${i + 1}/">Volume ${i + 1}</a></td><td>${1990 + i}</td></tr>`,
  ).join('')}</tbody></table>`;
const layout = (body: string) =>
  `<html><body><header><a href="/">Books</a><div class="notice">Maintenance on Sunday</div></header><main>${body}</main></body></html>`;

/** Add a book through a form; the site redirects to `landing`. */
const addFlow = (landing: string) =>
  synthesize({
    recording: har(
      { url: `${O}/book/add/`, html: layout('<form method="post" action="/book/add/"><input name="title"><input name="year"></form>') },
      { method: 'POST', url: `${O}/book/add/`, form: { title: 'Plum Notes', year: '2024' }, location: '/book/' },
      { url: `${O}/book/`, html: landing },
    ),
    hints: { arguments: { title: 'Plum Notes', year: 2024 }, allow_side_effects: true },
  });
const run = (d: HttpDefinition, html: string) => {
  const view = new View({ url: `${O}/book/`, status: 200, text: html });
  const save = d.steps.at(-1)!;
  return Object.fromEntries(Object.entries(save.extract ?? {}).map(([k, x]) => [k, extractValue(x, view, k)]));
};

describe('the outcome of a write answered by a list', () => {
  const said = (title: string, id: number) =>
    `<ul class="messagelist"><li class="success">The book “<a href="/book/${id}/change/">${title}</a>” was added successfully.</li></ul>`;

  it("returns the site's message and its link, not the list (whose first page may not even hold the new record)", () => {
    const r = addFlow(layout(`${said('Plum Notes', 31)}${rows(25)}`));
    const d = r.definition as HttpDefinition;
    expect(d.result).toEqual({ message: '{{vars.message}}', message_url: '{{vars.message_url}}' });
    expect((d.meta as any).decisions.result.rule).toMatch(/the site's message after the write/);
    // At run time: another book's message, read at the same place.
    expect(run(d, layout(`${said('Medlar Notes', 32)}${rows(25)}`))).toEqual({
      message: 'The book “Medlar Notes” was added successfully.',
      message_url: '/book/32/change/',
    });
    expect(r.output_schema).toMatchObject({ properties: { message: { type: ['string', 'null'] } } });
  });

  it('finds a message marked for assistive technology (role=status), and never a banner every page shows', () => {
    const r = addFlow(layout(`<div role="status">Saved. 1 item added.</div>${rows(3)}`));
    expect((r.definition as HttpDefinition).result).toEqual({ message: '{{vars.message}}' });
    const banner = addFlow(layout(rows(3)));
    expect((banner.definition as HttpDefinition).result).toMatchObject({ items: '{{vars.items}}' });
  });

  it('a write that lands on the record it made keeps the record as its result', () => {
    const r = addFlow(
      layout(
        `${said('Plum Notes', 31)}<article><h1>Plum Notes</h1><dl><dt>Year</dt><dd>2024</dd><dt>Pages</dt><dd>120</dd></dl></article>`,
      ),
    );
    expect(JSON.stringify((r.definition as HttpDefinition).result)).not.toContain('message');
  });
});

describe('a write redirected back to the page of its form', () => {
  // (Shaarli's import: POST /admin/import, 302 to /admin/import, the form again under a message
  // whose classes are a CSS framework's compounds: `pure-alert pure-alert-success`.)
  const formPage = (message: string) =>
    layout(
      `${message}<article><h1>Import bookmarks</h1><p>Choose a file exported by a browser. Maximum size: 2 MiB.</p><form method="post" action="/import"><input name="tags"><button>Import</button></form><dl><dt>Last import</dt><dd>today</dd></dl></article>`,
    );
  const flash = (text: string) =>
    `<div class="pure-g header-alert-message pure-alert pure-alert-success pure-alert-closable" id="app-success-alert"><p>${text}</p><i class="alert-close"></i></div>`;
  const flow = (landing: string) =>
    synthesize({
      recording: har(
        { url: `${O}/import`, html: formPage('') },
        { method: 'POST', url: `${O}/import`, form: { tags: 'imported' }, location: '/import' },
        { url: `${O}/import`, html: landing },
      ),
      hints: { arguments: { tags: 'imported' }, allow_side_effects: true },
    });

  it("returns the site's message, not the form page's text", () => {
    const r = flow(formPage(flash('File a.html was processed: 2 bookmarks imported.')));
    const d = r.definition as HttpDefinition;
    expect(d.result).toEqual({ message: '{{vars.message}}' });
    const view = new View({ url: `${O}/import`, status: 200, text: formPage(flash('File b.html was processed: 5 bookmarks imported.')) });
    expect(extractValue(d.steps.at(-1)!.extract!.message, view, 'message')).toBe('File b.html was processed: 5 bookmarks imported.');
  });

  it('controls: no message on the page, or only a part of one (a close button), keeps the page', () => {
    for (const landing of [formPage(''), formPage('<i class="alert-close">x</i><span class="notification-bell">3 new</span>')])
      expect(JSON.stringify((flow(landing).definition as HttpDefinition).result)).not.toContain('message');
  });
});
