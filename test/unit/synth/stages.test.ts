// Unit tests of the synthesizer's stages on hand-made HAR fragments.
import { describe, expect, it } from 'vitest';
import { filterNoise } from '../../../src/synth/noise.js';
import { normalize } from '../../../src/synth/normalize.js';
import { substitute } from '../../../src/synth/substitute.js';
import { detectPaging, scoreTargets } from '../../../src/synth/target.js';
import { encodings, lowEntropy, typeOf, argName, looksRandom, stringFormat } from '../../../src/synth/values.js';
import { inferMerged } from '../../../src/synth/schema-infer.js';
import { extractHtml, loginPageMarkers } from '../../../src/synth/html-extract.js';
import { diffRecordings } from '../../../src/synth/diff.js';
import { findIn } from '../../../src/synth/producers.js';
import { SCRIPT_RUNTIME } from '../../../src/synth/script-runtime.js';
import { har } from '../../helpers/har-fragment.js';
import { assertSchemas, synthesize } from '../../../src/synth/index.js';
import type { SynthError } from '../../../src/synth/types.js';

const O = 'https://shop.test';
const xs = (h: ReturnType<typeof har>) => normalize(h).exchanges;

describe('noise', () => {
  it('drops assets, fonts, media, maps, analytics, preflights, failures and duplicates; keeps documents', () => {
    const r = filterNoise(
      xs(
        har(
          { url: `${O}/`, html: '<p>home</p>' },
          { url: `${O}/app.js`, body: 'x', mime: 'application/javascript', type: 'script' },
          { url: `${O}/logo.png`, body: '', mime: 'image/png', type: 'image' },
          { url: `${O}/f.woff2`, body: '', mime: 'font/woff2', type: 'font' },
          { url: `${O}/app.js.map`, body: '{}', mime: 'application/json' },
          { url: 'https://www.google-analytics.com/g/collect?v=2', body: '' },
          { url: `${O}/api/telemetry`, method: 'POST', json: { e: 1 }, body: {} },
          { method: 'OPTIONS', url: `${O}/api/x`, body: '' },
          { url: `${O}/api/items`, body: { items: [] } },
          { url: `${O}/api/items`, body: { items: [] } },
          { url: `${O}/api/down`, status: 0, body: '' },
        ),
      ),
    );
    expect(r.kept.map((x) => new URL(x.url).pathname)).toEqual(['/', '/api/items']);
    const reasons = Object.fromEntries(r.dropped.map((d) => [new URL(d.url).pathname, d.reason]));
    expect(reasons['/app.js']).toMatch(/static/);
    expect(reasons['/g/collect']).toMatch(/analytics/);
    expect(reasons['/api/telemetry']).toMatch(/telemetry/);
    expect(reasons['/api/x']).toBe('CORS preflight');
    expect(reasons['/api/down']).toBe('failed request');
    expect(r.dropped.filter((d) => d.reason === 'duplicate')).toHaveLength(1);
  });

  it('reads base64 text bodies (DevTools) and drops binary ones', () => {
    const h = har({ url: `${O}/api/a`, body: {} }, { url: `${O}/img`, body: {} });
    Object.assign(h.log.entries[0].response.content, {
      text: Buffer.from('{"ok":1}').toString('base64'),
      encoding: 'base64',
      mimeType: 'application/json',
    });
    Object.assign(h.log.entries[1].response.content, { text: 'iVBORw0KGgo=', encoding: 'base64', mimeType: 'image/png' });
    const x = xs(h);
    expect(x[0].text).toBe('{"ok":1}');
    expect(x[1].text).toBeUndefined();
  });

  it('folds redirect hops into the request that started them (the final response is kept)', () => {
    const x = xs(
      har(
        { method: 'POST', url: `${O}/login`, form: { u: 'a' }, location: '/home', setCookies: { sid: 'S1' } },
        { url: `${O}/home`, html: '<h1>hi</h1>' },
      ),
    );
    expect(x).toHaveLength(1);
    expect(x[0]).toMatchObject({ method: 'POST', url: `${O}/login`, status: 200, finalUrl: `${O}/home`, text: '<h1>hi</h1>' });
    expect(x[0].setCookies.map((c) => c.name)).toEqual(['sid']);
  });
});

describe('values', () => {
  it('lists raw, %20, + and JSON-escaped forms, and the _ / - forms of page names and slugs', () => {
    expect(
      encodings('blue "kettle"')
        .map((e) => e.form)
        .slice(4),
    ).toEqual(['blue_"kettle"', 'blue-"kettle"']);
    expect(
      encodings('blue "kettle"')
        .map((e) => e.form)
        .slice(0, 4),
    ).toEqual(['blue "kettle"', 'blue%20%22kettle%22', 'blue+%22kettle%22', 'blue \\"kettle\\"']);
  });
  it('guards low-entropy literals and spots random tokens', () => {
    for (const v of ['1', 'true', 'en', '2024', 'aaaaaa']) expect(lowEntropy(v)).toBe(true);
    expect(lowEntropy('tkHjIzO1UUWV_ZV3')).toBe(false);
    expect(looksRandom('40400667230416c3bdee90613cbc4088')).toBe(true);
    expect(looksRandom('gamma widgets')).toBe(false);
    // A route of words is a name a program wrote (WordPress's `rest_route`), not a token.
    expect(looksRandom('/wp/v2/block-patterns/categories')).toBe(false);
    expect(looksRandom('/api/v2/k9Qz7xTq2LmW4rPz')).toBe(true);
    // Named settings (Roundcube's `_caps`: what the browser can show) are no token either.
    expect(looksRandom('pdf=1,flash=0,tiff=0,webp=1,pgpmime=0')).toBe(false);
    expect(looksRandom('sid=k9Qz7xTq2LmW4rPzA1,v=2')).toBe(true);
  });
  it('claims a string format only when the output validator accepts the value', () => {
    expect(stringFormat('https://example.test/a?b=1')).toBe('uri');
    // A URI template and an impossible date match the shapes but not ajv-formats.
    expect(stringFormat('https://api.w.org/{rel}')).toBeNull();
    expect(stringFormat('2026-02-30')).toBeNull();
    expect(stringFormat('2026-02-28')).toBe('date');
  });
  it('types example values with formats', () => {
    expect(typeOf('42')).toEqual({ type: 'integer' });
    expect(typeOf('23.75')).toEqual({ type: 'number' });
    expect(typeOf('007')).toEqual({ type: 'string' });
    expect(typeOf('true')).toEqual({ type: 'boolean' });
    expect(typeOf('2024-05-01')).toEqual({ type: 'string', format: 'date' });
    expect(typeOf('2024-05-01T10:00:00Z')).toEqual({ type: 'string', format: 'date-time' });
    expect(typeOf('a@b.io')).toEqual({ type: 'string', format: 'email' });
    expect(typeOf(2)).toEqual({ type: 'integer' });
  });
  it('names arguments from field names and keeps them unique', () => {
    const taken = new Set<string>();
    expect(argName('searchQuery', taken)).toBe('search_query');
    expect(argName('Search query', taken)).toBe('search_query_2');
    expect(argName('2fa', taken)).toBe('arg_2fa');
  });
});

describe('substitute', () => {
  const none = () => null;
  it('exact case-folded match becomes the whole template, substrings become fragments', () => {
    const args = [{ name: 'query', example: 'Gamma' }];
    expect(substitute('gamma', args, [], none)).toMatchObject({ template: '{{args.query}}', whole: true });
    expect(substitute('name:GAMMA*', args, [], none)).toMatchObject({ template: 'name:{{args.query}}*', whole: false });
  });
  it('replaces secrets before arguments, longest first, and pasted placeholders by slot', () => {
    const r = substitute(
      'alice:alice-pw',
      [{ name: 'user', example: 'alice' }],
      [
        { slot: 'acct', field: 'username', needle: 'alice' },
        { slot: 'acct', field: 'password', needle: 'alice-pw' },
      ],
      none,
    );
    expect(r.template).toBe('{{secrets.acct.username}}:{{secrets.acct.password}}');
    expect(r.args).toEqual([]);
    const p = substitute('{{secret:0193ab-cd:password}}', [], [], (id, f) => (id === '0193ab-cd' && f === 'password' ? 'login' : null));
    expect(p.template).toBe('{{secrets.login.password}}');
  });
});

describe('target and pagination', () => {
  it('scores data responses carrying typed values above login traffic, with reasons', () => {
    const x = xs(
      har(
        { url: `${O}/login`, html: '<form><input type=password name=p></form>' },
        { method: 'POST', url: `${O}/login`, form: { u: 'ann', p: 'pw-secret' }, body: { ok: true } },
        { url: `${O}/api/search?q=blue+kettle`, body: { items: [{ id: 1 }] } },
        { url: `${O}/about`, html: '<p>about</p>' },
      ),
    );
    const c = scoreTargets(x, { argValues: ['blue kettle'], resultValues: [], secretCarriers: new Set([x[1].id]), lastActionTime: null });
    expect(c[0].exchange.url).toContain('/api/search');
    expect(c[0].reasons.join(' ')).toMatch(/JSON response.*typed value/);
    expect(c.at(-1)!.exchange.method).toBe('POST');
  });
  it('finds no target in a recording that only opened a sign-in page (recency is no evidence)', () => {
    const only = har({ url: `${O}/login`, html: '<form><input name=u><input type=password name=p></form>' });
    const c = scoreTargets(xs(only), { argValues: [], resultValues: [], secretCarriers: new Set(), lastActionTime: null });
    expect(c[0].score).toBeGreaterThan(0);
    expect(c[0].evidence).toBeLessThanOrEqual(0);
    expect(() => synthesize({ recording: only })).toThrow(/no request looks like the task's target/);
    try {
      synthesize({ recording: only });
    } catch (e) {
      expect((e as SynthError).problems[0].stage).toBe('target');
    }
  });
  it("a script's tiny status fragment after the page it polls for is not the target (Cacti's ping_host after a device's form)", () => {
    const form = `<form method="post" id="host_form"><table>${['Description', 'Hostname', 'Location', 'Notes']
      .map((l, i) => `<tr><td>${l}</td><td><input name="f${i}" value="${l} of the barn access point, seeded for this test"></td></tr>`)
      .join('')}</table></form>`;
    const rec = har(
      { url: `${O}/host.php?action=edit&id=8`, html: form, type: 'xhr' },
      { url: `${O}/host.php?action=ping_host&id=8`, html: '<span>Device Status: Unknown</span>', type: 'xhr' },
    );
    const c = scoreTargets(xs(rec), { argValues: [], resultValues: [], secretCarriers: new Set(), lastActionTime: null });
    expect(c[0]!.exchange.url).toBe(`${O}/host.php?action=edit&id=8`);
    expect(c[1]!.reasons.join(' ')).toMatch(/little to read \(22 characters/);
    // (A page the person opened is never "a fragment", however short.)
    const opened = har({ url: `${O}/status`, html: '<html><body><p>All systems go.</p></body></html>' });
    expect(
      scoreTargets(xs(opened), { argValues: [], resultValues: [], secretCarriers: new Set(), lastActionTime: null })[0]!.reasons.join(' '),
    ).not.toMatch(/little to read/);
  });

  it('detects page-number and cursor pagination', () => {
    const p = xs(
      har({ url: `${O}/api/s?q=a&page=1`, body: { items: [{ id: 1 }] } }, { url: `${O}/api/s?q=a&page=2`, body: { items: [{ id: 2 }] } }),
    );
    expect(detectPaging(p[1], p).paging).toEqual({ mode: 'page', param: 'page', start: 1 });
    const c = xs(
      har(
        { url: `${O}/api/i?limit=2`, body: { items: [{ id: 2 }], next_cursor: 'eyJpZCI6Mn0' } },
        { url: `${O}/api/i?limit=2&cursor=eyJpZCI6Mn0`, body: { items: [], next_cursor: null } },
      ),
    );
    expect(detectPaging(c[1], c).paging).toEqual({ mode: 'cursor', param: 'cursor', nextPath: ['next_cursor'] });
    // limit=2 equals an id of the previous page, but it never moves: not a cursor.
    const k = xs(
      har({ url: `${O}/api/k?limit=2&q=a`, body: { items: [{ id: 2 }] } }, { url: `${O}/api/k?limit=2&q=b`, body: { items: [] } }),
    );
    expect(detectPaging(k[1], k).paging).toBeNull();
    const none = xs(har({ url: `${O}/api/s?q=a`, body: {} }, { url: `${O}/api/s?q=b`, body: {} }));
    expect(detectPaging(none[1], none).paging).toBeNull();
  });
});

describe('producers', () => {
  it('finds JSON leaves, cookies, headers, hidden inputs, meta tags, id attributes and inline-script tokens', () => {
    const [j, k, h, html] = xs(
      har(
        { url: `${O}/a`, body: { data: { token: 'tok_9f8e7d6c5b4a' } } },
        { url: `${O}/b`, body: {}, setCookies: { XSRF: 'x5f4e3d2c1b0a9' } },
        { url: `${O}/c`, body: {}, resHeaders: { 'x-request-token': 'hdr-7d6c5b4a3' } },
        {
          url: `${O}/d`,
          html: '<meta name="csrf" content="m3ta-T0ken-42"><form id=f><input type=hidden name=authenticity_token value="f0rm-T0ken-99"></form><ul><li data-testid=row data-item-id="17">x</li></ul><script>window.cfg = {"apiKey":"k3y0a9b8c7d6e5"}</script>',
        },
      ),
    );
    expect(findIn(j, 'tok_9f8e7d6c5b4a')?.extractor).toEqual({ from: 'json', path: '$.data.token' });
    expect(findIn(k, 'x5f4e3d2c1b0a9')?.extractor).toEqual({ from: 'cookie', name: 'XSRF' });
    expect(findIn(h, 'hdr-7d6c5b4a3')?.extractor).toEqual({ from: 'header', name: 'x-request-token' });
    expect(findIn(html, 'f0rm-T0ken-99')?.extractor).toEqual({ from: 'css', selector: 'input[name="authenticity_token"]', attr: 'value' });
    expect(findIn(html, 'm3ta-T0ken-42')?.extractor).toEqual({ from: 'css', selector: 'meta[name="csrf"]', attr: 'content' });
    expect(findIn(html, '17', { strongOnly: true })?.extractor).toEqual({
      from: 'css',
      selector: '[data-testid="row"]',
      attr: 'data-item-id',
    });
    const re = findIn(html, 'k3y0a9b8c7d6e5')!.extractor as { from: string; pattern: string };
    expect(re.from).toBe('regex');
    expect(new RegExp(re.pattern).exec('window.cfg = {"apiKey":"zzz111yyy222xx"}')?.[1]).toBe('zzz111yyy222xx');
  });
});

describe('output schema and HTML extraction', () => {
  it('merges samples: required in all, nullable, number over integer, formats only when shared', () => {
    const s = inferMerged([
      { id: 1, price: 2, at: '2024-01-01T00:00:00Z', note: null, tags: ['a'] },
      { id: 2, price: 2.5, at: '2024-01-02T00:00:00Z', note: 'x', tags: [] },
      { id: 3, price: 1, at: 'soon' },
    ]);
    expect(s.required).toEqual(['id', 'price', 'at']);
    expect(s.properties.price.type).toBe('number');
    expect(s.properties.note.type).toEqual(['null', 'string']);
    expect(s.properties.at.format).toBeUndefined();
    expect(s.properties.tags).toEqual({ type: 'array', items: { type: 'string' } });
  });
  it('extracts a detail block and a list of records with typed fields', () => {
    const d = extractHtml(
      '<header><span data-testid="me">ann</span></header><dl id="item"><dd data-field="id">7</dd><dd data-field="price">9.50</dd><time data-field="at" datetime="2024-01-01T00:00:00Z">Jan 1</time></dl>',
    )!;
    expect(d.kind).toBe('detail');
    expect(d.extractor.selector).toBe('#item');
    expect(d.extractor.fields).toMatchObject({ id: { type: 'integer' }, price: { type: 'number' }, at: { attr: 'datetime' } });
    expect(d.schema.properties.at).toEqual({ type: 'string', format: 'date-time' });
    const l = extractHtml(
      '<ul><li data-testid="row" data-sku="A1"><a href="/p/1">One</a></li><li data-testid="row" data-sku="B2"><a href="/p/2">Two</a></li></ul>',
    )!;
    expect(l.kind).toBe('list');
    expect(l.extractor).toMatchObject({
      selector: '[data-testid="row"]',
      all: true,
      fields: { sku: { attr: 'data-sku' }, name: { selector: 'a' } },
    });
    expect(loginPageMarkers('<form id="signin"><input type="password"></form><form id="q"><input name="q"></form>')).toEqual(['#signin']);
    // (PostfixAdmin's sign-in form has no id and an empty action: its name, not every password form —
    // a new mailbox's on the admin pages.)
    expect(loginPageMarkers('<form name="frmLogin" method="post" action=""><input type="password" name="fPassword"></form>')).toEqual([
      'form[name="frmLogin"]',
    ]);
    expect(loginPageMarkers('<form method="post"><input type="password" name="fPassword"></form>')).toEqual([
      'form input[type=password][name="fPassword"]',
    ]);
  });
});

describe('two recordings', () => {
  it('values equal in both are constants, differing ones are dynamic', () => {
    const a = xs(har({ url: `${O}/api/x?client=web-7f3a9c2b1d&nonce=aa11bb22cc33dd44`, body: {} }));
    const b = xs(har({ url: `${O}/api/x?client=web-7f3a9c2b1d&nonce=ee55ff66aa77bb88`, body: {} }));
    const d = diffRecordings(a, b);
    expect([...d.constants]).toContain('web-7f3a9c2b1d');
    expect([...d.dynamics]).toEqual(['aa11bb22cc33dd44']);
  });
});

describe('script runtime (carried by synthesized script connectors)', () => {
  const rt = new Function(`${SCRIPT_RUNTIME}; return { render, jsonPath, extract };`)() as {
    render: (t: string, scope: object, ctx: object) => unknown;
    jsonPath: (v: unknown, p: string) => unknown[];
    extract: (ctx: object, x: object, res: object, url: string) => Promise<unknown>;
  };
  const ctx = { totp: (slot: string) => `code-for-${slot}` };
  it('renders templates like the engines: whole holes keep their type, urlencode, TOTP codes', () => {
    const scope = { args: { q: 'a b&c', n: 3 }, vars: { list: [1, 2] } };
    expect(rt.render('{{args.n}}', scope, ctx)).toBe(3);
    expect(rt.render('{{vars.list}}', scope, ctx)).toEqual([1, 2]);
    expect(rt.render('/s?q={{args.q | urlencode}}&n={{args.n}}', scope, ctx)).toBe('/s?q=a%20b%26c&n=3');
    expect(rt.render('{{secrets.acct.totp}}', scope, ctx)).toBe('code-for-acct');
    expect(rt.render('{{args.missing}}', scope, ctx)).toBeNull();
  });
  it('applies the filters synthesis emits (escaped tokens, page names) like the engines do', () => {
    const scope = { args: { t: ' Shopping List ' }, vars: { tok: 'k9+Q\\/7x\\u002B', ent: 'a&amp;b', c: 'x%2By' } };
    expect(rt.render('{{vars.tok | jsunescape}}', scope, ctx)).toBe('k9+Q/7x+');
    expect(rt.render('{{vars.ent | htmlunescape}}|{{vars.c | urldecode}}', scope, ctx)).toBe('a&b|x+y');
    expect(rt.render('notes:{{args.t | trim | lower | replace:[" ","_"]}}', scope, ctx)).toBe('notes:shopping_list');
    expect(rt.render('{{args.t | trim | urlencode}}', scope, ctx)).toBe('Shopping%20List');
    // (A clock reading moved and written as an ISO time, as template.ts does.)
    const at = { run: { now_ms: Date.parse('2026-01-01T10:00:00Z') } };
    expect(rt.render('{{run.now_ms | add:7200000 | iso}}', at, ctx)).toBe('2026-01-01T12:00:00.000Z');
    expect(rt.render('{{run.now_ms | add:-60000 | iso:"s"}}', at, ctx)).toBe('2026-01-01T09:59:00Z');
    expect(rt.render('{{run.now_ms | add:86400000 | iso:"date"}}', at, ctx)).toBe('2026-01-02');
    expect(rt.render('{{run.now_ms | iso:"datetime"}}', at, ctx)).toBe('2026-01-01 10:00:00');
  });
  it('evaluates the JSONPath subset synthesis emits, and regex extractors', async () => {
    const v = { data: { items: [{ id: 1 }, { id: 2 }], 'odd key': 'x' }, next_cursor: 'c3' };
    expect(rt.jsonPath(v, '$.data.items[*]')).toEqual([{ id: 1 }, { id: 2 }]);
    expect(rt.jsonPath(v, '$.data.items[1].id')).toEqual([2]);
    expect(rt.jsonPath(v, '$.data["odd key"]')).toEqual(['x']);
    expect(rt.jsonPath(v, '$.next_cursor')).toEqual(['c3']);
    expect(rt.jsonPath(v, '$')).toEqual([v]);
    const res = { status: 200, url: 'u', headers: { 'x-token': 't1' }, text: '<input name="csrf" value="tok-123456">' };
    expect(await rt.extract(ctx, { from: 'regex', pattern: 'name="csrf" value="([^"]+)' }, res, 'u')).toBe('tok-123456');
    expect(await rt.extract(ctx, { from: 'header', name: 'X-Token' }, res, 'u')).toBe('t1');
    expect(await rt.extract(ctx, { from: 'json', path: '$.a' }, res, 'u')).toBeNull();
  });
  it('reads calls like the engines: JSON arguments only, whole names, markup as its text', async () => {
    const exec = 'x.row(1, {"a": "b"}); row(2, {"a": "<b>Ann</b> &amp; co", "q": "it\'s (so)"}); row(3, v); row(4';
    const res = { status: 200, url: 'u', headers: {}, text: JSON.stringify({ exec }) };
    const x = { from: 'calls', in: '$.exec', call: 'row', all: true, fields: { id: { arg: 0 }, a: { arg: 1, key: 'a', text: true } } };
    expect(await rt.extract(ctx, x, res, 'u')).toEqual([{ id: 2, a: 'Ann & co' }]);
    expect(await rt.extract(ctx, { from: 'calls', call: 'row', all: true }, { ...res, text: 'row(1, [2]); row(3)' }, 'u')).toEqual([
      [1, [2]],
      [3],
    ]);
  });
});

describe('schema check', () => {
  const obj = { type: 'object', properties: {}, additionalProperties: false };
  it('refuses, as an emit-stage problem, an inferred schema ajv cannot compile', () => {
    let caught: SynthError | undefined;
    try {
      assertSchemas({
        input_schema: obj as never,
        output_schema: { type: 'object', properties: { a: { type: ['string', 'null', 'null'] } } } as never,
      });
    } catch (e) {
      caught = e as SynthError;
    }
    expect(caught?.problems).toEqual([
      expect.objectContaining({ stage: 'emit', message: expect.stringMatching(/output_schema is not a valid JSON Schema/) }),
    ]);
  });
  it('passes valid schemas, the same objects any number of times', () => {
    for (let i = 0; i < 3; i++) assertSchemas({ input_schema: obj as never, output_schema: obj as never });
  });
});
