// A single-page app's dialog (tt-rss's feed editor, test/acceptance/ttrss.test.ts): its form arrives
// as an HTML fragment inside an answer typed JSON, its controls in no <form> (the page's script
// wraps them) beside a small <form> of its own (an icon upload), and its save posts every field.
// The fragment is the form: the run reads the untouched fields — a select's chosen category, a
// ticked box, the URLs — from the record it edits, not from the recording. And an answer typed JSON
// whose body is markup or nothing is no JSON.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://reader.test';
const dialog = (id: number, title: string, url: string, cat: number) =>
  `<div class="tabs"><input style="display:none" name="id" value="${id}"><input name="title" value="${title}">
  <input name="feed_url" value="${url}">
  <select name="cat_id"><option value="2" ${cat === 2 ? 'selected' : ''}>Cellars</option><option value="1" ${cat === 1 ? 'selected' : ''}>Orchards</option></select>
  <select name="update_interval"><option value="0" selected>Default</option><option value="15">15 minutes</option></select>
  <input type="checkbox" name="include_in_digest" checked><input type="checkbox" name="hide_images">
  <form id="icon_upload" method="POST" enctype="multipart/form-data"><input type="hidden" name="op" value="pref-feeds"><input type="file" name="icon_file"></form></div>`;
const TYPED_JSON = 'text/json; charset=utf-8';

const recording = (saveAnswer: string) =>
  har(
    {
      url: `${O}/backend.php?op=pref-feeds&method=editfeed&id=2`,
      at: 100,
      body: dialog(2, 'Apple Journal', 'http://feeds.test/apples.xml', 1),
      mime: TYPED_JSON,
    },
    {
      method: 'POST',
      url: `${O}/backend.php`,
      at: 200,
      form: {
        op: 'pref-feeds',
        method: 'editSave',
        id: '2',
        title: 'Apple Growers Journal',
        feed_url: 'http://feeds.test/apples.xml',
        cat_id: '1',
        update_interval: '0',
        include_in_digest: 'on',
      },
      body: saveAnswer,
      mime: TYPED_JSON,
    },
  );

describe("a dialog's form that arrives as a fragment", () => {
  it("is the form its save submits: the untouched fields are read from the edited record's dialog", () => {
    const r = synthesize({ recording: recording(''), hints: { arguments: { feed: 2, title: 'Apple Growers Journal' } } });
    const steps = (r.definition as any).steps;
    const form = steps.at(-1).body.form;
    expect(form).toMatchObject({ id: '{{args.feed}}', title: '{{args.title}}' });
    for (const f of ['feed_url', 'cat_id', 'update_interval', 'include_in_digest', 'hide_images']) expect(form[f]).toMatch(/^\{\{vars\./);
    const reads = steps[0].extract;
    expect(steps[0].query).toMatchObject({ id: '{{args.feed}}' });
    expect(Object.values(reads).map((x: any) => x.selector)).toEqual(
      expect.arrayContaining(['select[name="cat_id"] option[selected]', 'input[name="feed_url"]', 'input[name="hide_images"][checked]']),
    );
    // (An empty answer typed JSON is no JSON: the result is the status, not a JSON read that fails.)
    expect(r.output_schema).toMatchObject({ properties: { status: { type: 'integer' } } });
  });

  it('an answer typed JSON whose body is markup reads as a page; a control: a <form> holding the fields is still the form', () => {
    const r = synthesize({
      recording: recording('Saved feed <b>Apple Growers Journal</b>'),
      hints: { arguments: { feed: 2, title: 'Apple Growers Journal' } },
    });
    const target = (r.definition as any).steps.at(-1);
    expect(Object.values(target.extract ?? {}).map((x: any) => x.from)).not.toContain('json');
    expect(r.report.targets[0]!.reasons.join(' ')).not.toContain('JSON response');
    const inForm = har(
      {
        url: `${O}/feeds/2/edit`,
        at: 100,
        html: `<html><body><form method="post" action="/feeds/2"><input name="title" value="Apple Journal"><input name="feed_url" value="http://feeds.test/apples.xml"><select name="cat_id"><option value="1" selected>Orchards</option></select></form>${dialog(9, 'Other', 'http://feeds.test/other.xml', 2).replace('<div class="tabs">', '<div hidden>')}</body></html>`,
      },
      {
        method: 'POST',
        url: `${O}/feeds/2`,
        at: 200,
        form: { title: 'Apple Growers Journal', feed_url: 'http://feeds.test/apples.xml', cat_id: '1' },
        html: '<p>ok</p>',
      },
    );
    const f = synthesize({ recording: inForm, hints: { arguments: { title: 'Apple Growers Journal' } } });
    const read = (f.definition as any).steps[0].extract;
    expect(read.cat_id.selector).toBe('select[name="cat_id"] option[selected]');
    // (The first match of each selector is the form's control, not the loose one after it.)
    expect(Object.keys(read)).toEqual(expect.arrayContaining(['feed_url', 'cat_id']));
  });
});
