// Synthesis stages on answers saved from a twenty-first real application, Roundcube 1.6 webmail
// (Debian's roundcube-core over Dovecot; scripts/acceptance-setup.sh): a search answer that is JSON
// carrying JavaScript for the page to run (each hit a `this.add_message_row(uid, {...}, {...})`
// call), and a message preview whose body sits under a table of headers.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../src/formats/definition/validate.js';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { callArguments, callsByName } from '../../../src/runtime/worker/engines/js-calls.js';
import { callRecords } from '../../../src/synth/call-records.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const FIX = path.join(__dirname, '../../fixtures/real/roundcube');
const search = fs.readFileSync(path.join(FIX, 'search.json'), 'utf8');
const preview = fs.readFileSync(path.join(FIX, 'preview.html'), 'utf8');
const URL_ = 'http://127.0.0.1:8977/?_task=mail&_action=search&_q=invoice';

describe('calls with JSON arguments, read as data', () => {
  it('each call of the whole name, its arguments parsed; strings with brackets and quotes kept', () => {
    const code = `x.add_row(1, {"t": "a (b) [c] {d}", "q": "say \\"hi\\")"}); this.add_row(2, {"t": 'no'}); add_row(3, {"t": "c"}, false);
      xadd_row(4, {}); add_row(5, someVar); add_row ( 6 , [1, 2] );`;
    expect(callArguments(code, 'add_row')).toEqual([
      [3, { t: 'c' }, false],
      [6, [1, 2]],
    ]);
    expect(callArguments(code, 'x.add_row')).toEqual([[1, { t: 'a (b) [c] {d}', q: 'say "hi")' }]]);
    // (A call inside another's arguments is not read again; an unclosed call ends the scan.)
    expect(callArguments('f(1, f(2)); f(3); f(4', 'f')).toEqual([[3]]);
  });

  it('every call grouped by name in one pass: calls in a function body found, calls in strings not', () => {
    const code = `init(function () { add_row(1, {"t": "a"}); add_row(2, {"t": "say add_row(9, {})"}); });
      alert("add_row(7, {\\"t\\": 1})"); x.y.set({"k": [1, 2]}); f(1, f(2)); f(3); broken(1, {`;
    const calls = callsByName(code);
    expect(calls.get('add_row')).toEqual([
      [1, { t: 'a' }],
      [2, { t: 'say add_row(9, {})' }],
    ]);
    expect(calls.get('x.y.set')).toEqual([[{ k: [1, 2] }]]);
    // (A call holding another call is no JSON list: only f(2) and f(3); `init` and `broken` none.)
    expect(calls.get('f')).toEqual([[2], [3]]);
    expect(calls.get('alert')).toEqual([['add_row(7, {"t": 1})']]);
    expect(['init', 'broken'].filter((n) => calls.has(n))).toEqual([]);
    // The runtime's scan by name reads the same records of add_row.
    expect(callArguments(code, 'add_row').slice(0, 2)).toEqual(calls.get('add_row'));
  });

  it('one pass however deep the nesting, and the names and calls kept are capped', () => {
    const deep = `${'f('.repeat(200_000)}1${')'.repeat(200_000)}; ${'g(1);'.repeat(20_000)}`;
    const calls = callsByName(deep);
    expect(calls.get('f')).toEqual([[1]]);
    expect(calls.get('g')).toHaveLength(10_000);
    const many = Array.from({ length: 500 }, (_, i) => `n${i}(${i});`).join('');
    expect(callsByName(many).size).toBe(200);
  });

  it("a search answer's code: the calls holding the typed query are the records, markup read as its text", () => {
    const body = JSON.parse(search);
    const r = callRecords(body, search, ['invoice'])!;
    expect(r.extractor).toMatchObject({ from: 'calls', in: '$.exec', call: 'this.add_message_row', all: true });
    const rows = extractValue(r.extractor, new View({ url: URL_, status: 200, text: search }), 'items') as any[];
    expect(rows.map((x) => x.subject)).toEqual([
      'Invoice 2043 for the cider press',
      'Invoice 2042 for pruning',
      'Invoice 2041 for the apple crates',
    ]);
    expect(rows[1]).toMatchObject({ id: 3, fromto: 'Carol Diaz', size: '292 B', mbox: 'INBOX' });
    // (A flag every call passes — `false` — is no field.)
    expect(Object.keys(r.extractor.fields!)).not.toContain('arg_4');
    expect(r.schema).toMatchObject({ type: 'array', items: { properties: { id: { type: 'integer' }, subject: {} } } });
  });

  it('at run time: another answer with other calls (one hit), and nothing found', () => {
    const r = callRecords(JSON.parse(search), search, ['invoice'])!;
    const one = {
      ...JSON.parse(search),
      exec: 'this.add_message_row(8,{"subject":"Plum tree delivery","fromto":"<span class=\\"adr\\"><span title=\\"ivy@orchard.test\\">Ivy Jones</span></span>","date":"Thu 14:51","size":"289 B"},{"seen":1,"ctype":"text/plain","mbox":"INBOX"},false);\nthis.set_rowcount("Messages 1 to 1 of 1","INBOX");',
    };
    const read = (b: unknown) => extractValue(r.extractor, new View({ url: URL_, status: 200, text: JSON.stringify(b) }), 'items');
    expect(read(one)).toEqual([
      {
        id: 8,
        subject: 'Plum tree delivery',
        fromto: 'Ivy Jones',
        date: 'Thu 14:51',
        size: '289 B',
        seen: 1,
        ctype: 'text/plain',
        mbox: 'INBOX',
      },
    ]);
    expect(read({ ...one, exec: 'this.set_rowcount("Messages 0 of 0","INBOX");' })).toEqual([]);
  });

  it('no records without calls that hold the typed values', () => {
    expect(callRecords(JSON.parse(search), search, ['quince'])).toBeNull();
    expect(callRecords({ exec: 'this.set_pagetitle("x"); this.display_message("y", "z", 0);' }, '', [])).toBeNull();
  });

  it('synthesized from a recording: the connector returns the records, and its definition is valid', () => {
    const r = synthesize({
      recording: har({ url: `${URL_}&_remote=1`, at: 2000, body: JSON.parse(search) }),
      hints: { arguments: { query: 'invoice' } },
    });
    const step = (r.definition as any).steps.at(-1);
    expect(step.extract.items).toMatchObject({ from: 'calls', call: 'this.add_message_row' });
    expect(r.output_schema).toMatchObject({ properties: { items: { type: 'array' } } });
    expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
    const bad = structuredClone(r.definition) as any;
    bad.steps.at(-1).extract.items.in = 'exec';
    bad.steps.at(-1).extract.items.call = 'alert(1)';
    const msgs = validateDefinition(bad, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets }).map((p) => p.loc.join('.'));
    expect(msgs.some((l) => l.endsWith('extract.items.call'))).toBe(true);
    // A field named like the prototype (an own key, as JSON.parse makes it) is refused at its own loc.
    const proto = structuredClone(r.definition) as any;
    proto.steps.at(-1).extract.items.fields = JSON.parse('{"__proto__": {"arg": 0}, "ok": {"arg": 1}}');
    const refused = validateDefinition(proto, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets });
    expect(refused.map((p) => p.loc.slice(-2))).toEqual([['fields', '__proto__']]);
  });
});

describe("a message's preview", () => {
  it("its body is a field of the record beside the headers; a label's own text is not the link after it", () => {
    const x = extractHtml(preview, [], [])!;
    const rec = extractValue(x.extractor, new View({ url: URL_, status: 200, text: preview }), 'r') as Record<string, unknown>;
    expect(rec.content).toBe('We start on the Conference pears on Monday, the Comice a week later.');
    expect(rec).toMatchObject({ from: 'Bob Miller', to: 'Seed Grower' });
    expect(Object.values(rec)).not.toContain('Open in new window');
    // Another message in the same page: its own body.
    const other = preview.replace('We start on the Conference pears on Monday, the Comice a week later.', 'Simmer the quinces whole.');
    expect((extractValue(x.extractor, new View({ url: URL_, status: 200, text: other }), 'r') as any).content).toBe(
      'Simmer the quinces whole.',
    );
  });
});

describe('a short or numeric typed value', () => {
  it('is typed where it stands alone (`_uid=2`), not inside a clock reading', () => {
    const r = synthesize({
      recording: har(
        { url: 'http://mail.test/?_task=mail&_action=getunread&_=1795935280635', at: 1000, body: { action: 'getunread', exec: '' } },
        { url: 'http://mail.test/?_task=mail&_uid=2&_action=preview', at: 2000, html: preview },
      ),
      hints: { arguments: { uid: '2' } },
    });
    expect(r.report.targets[0]!.url).toContain('_uid=2');
    expect((r.definition as any).steps.at(-1).query._uid).toBe('{{args.uid}}');
  });
});
