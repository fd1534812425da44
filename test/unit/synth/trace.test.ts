// The tracing traps of issue 5 on hand-made fragments, through synthesize(): backwards-only
// tracing, one value in several places, "+"-encoded arguments, low-entropy literals,
// cookie-carried sessions, double-submit CSRF, bearer tokens, page-JS values, secret redaction.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { SynthError } from '../../../src/synth/types.js';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'https://shop.test';
const SENTINEL = 'S3ntinel-pw-7731';

describe('tracing dynamic values', () => {
  it('traces a CSRF token from a hidden input, lets the jar carry the session cookie, and makes a login chain', () => {
    const r = synthesize({
      recording: har(
        {
          url: `${O}/login`,
          html: '<form id="login"><input type="hidden" name="csrf" value="c5rf-a1b2c3d4e5"><input type="password" name="password"></form>',
          setCookies: { pre: 'pre-99aa88bb77' },
        },
        {
          method: 'POST',
          url: `${O}/login`,
          cookies: { pre: 'pre-99aa88bb77' },
          form: { csrf: 'c5rf-a1b2c3d4e5', username: 'ann', password: SENTINEL },
          location: '/home',
          setCookies: { sid: 'sess-0f9e8d7c6b' },
        },
        { url: `${O}/home`, html: '<h1>Home</h1>' },
        {
          url: `${O}/api/orders?status=open+late&limit=1&lang=en`,
          cookies: { sid: 'sess-0f9e8d7c6b' },
          body: { orders: [{ id: 5, total: 9.5 }] },
        },
      ),
      hints: { arguments: { status: 'open late' } },
    });
    const d = r.definition as HttpDefinition;
    expect(d.login?.slot).toBe('account');
    expect(d.login!.steps.map((s) => s.id)).toEqual(['get_login', 'post_login']);
    expect(d.login!.steps[0].extract!.csrf).toMatchObject({ from: 'css', selector: 'input[name="csrf"]', attr: 'value' });
    expect(d.login!.steps[1].body!.form).toEqual({
      csrf: '{{vars.csrf}}',
      username: '{{secrets.account.username}}',
      password: '{{secrets.account.password}}',
    });
    // "+"-encoded argument; low-entropy literals stay literal (no false edges to earlier responses)
    expect(d.steps[0].query).toEqual({ status: '{{args.status}}', limit: '1', lang: 'en' });
    expect(d.detect?.login_page?.map((m) => m.css)).toEqual(['#login']);
    expect(r.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login', supports_totp: false })]);
    expect(r.output_schema.properties.orders.items.properties.total.type).toEqual(['number', 'null']);
    // The typed password never leaves the synthesizer.
    expect(JSON.stringify(r)).not.toContain(SENTINEL);
  });

  it('traces backwards in time only: a value first seen in a LATER response is not its producer', () => {
    const r = synthesize({
      recording: har(
        { url: `${O}/api/run?job=job-5e4d3c2b1a`, body: { ok: true } },
        { url: `${O}/api/jobs`, body: { jobs: [{ id: 'job-5e4d3c2b1a' }] } },
      ),
      hints: { result: [true] },
    });
    const d = r.definition as HttpDefinition;
    expect(d.steps).toHaveLength(1);
    expect(d.steps[0].query).toEqual({ job: 'job-5e4d3c2b1a' });
    expect(d.steps[0].extract).not.toHaveProperty('id');
  });

  it('the same value in several places is extracted once and reused; the nearest producer with fewest deps wins', () => {
    const r = synthesize({
      recording: har(
        { url: `${O}/app`, html: '<meta name="csrf-token" content="tkn-1a2b3c4d5e6f">' },
        { url: `${O}/app/other?ref=zz9y8x7w6v5`, html: '<meta name="csrf-token" content="tkn-1a2b3c4d5e6f">' },
        {
          method: 'POST',
          url: `${O}/api/save`,
          headers: { 'X-CSRF-Token': 'tkn-1a2b3c4d5e6f' },
          json: { csrf: 'tkn-1a2b3c4d5e6f', title: 'Hello world' },
          body: { id: 'doc-77' },
        },
      ),
      hints: { arguments: { title: 'Hello world' } },
    });
    const d = r.definition as HttpDefinition;
    expect(d.steps.map((s) => s.id)).toEqual(['get_app', 'post_api_save']);
    expect(Object.keys(d.steps[0].extract!)).toEqual(['x_csrf_token']);
    expect(d.steps[0].extract!.x_csrf_token).toMatchObject({ from: 'css', selector: 'meta[name="csrf-token"]', attr: 'content' });
    expect(d.steps[1].headers!['x-csrf-token']).toBe('{{vars.x_csrf_token}}');
    expect(d.steps[1].body!.json).toEqual({ csrf: '{{vars.x_csrf_token}}', title: '{{args.title}}' });
    expect(r.report.side_effects).toBe(true);
  });

  it('double-submit CSRF: a header equal to a cookie reads the cookie; a bearer token comes from a JSON leaf', () => {
    const r = synthesize({
      recording: har(
        {
          method: 'POST',
          url: `${O}/api/token`,
          json: { client: 'web' },
          body: { access_token: 'eyJhbGciOi9x8y7z6', ttl: 3600 },
          setCookies: { 'XSRF-TOKEN': 'xs-4f3e2d1c0b9a' },
        },
        {
          url: `${O}/api/me?fields=name`,
          headers: { Authorization: 'Bearer eyJhbGciOi9x8y7z6', 'X-XSRF-TOKEN': 'xs-4f3e2d1c0b9a' },
          cookies: { 'XSRF-TOKEN': 'xs-4f3e2d1c0b9a' },
          body: { name: 'Ann', email: 'ann@shop.test' },
        },
      ),
    });
    const d = r.definition as HttpDefinition;
    const me = d.steps.at(-1)!;
    expect(me.headers!.authorization).toBe('Bearer {{vars.access_token}}');
    expect(me.headers!['x-xsrf-token']).toBe('{{vars.x_xsrf_token}}');
    const tok = d.steps[0].extract!;
    expect(tok.access_token).toMatchObject({ from: 'json', path: '$.access_token' });
    expect(tok.x_xsrf_token).toMatchObject({ from: 'cookie', name: 'XSRF-TOKEN' });
    expect(r.output_schema.properties.email).toEqual({ type: ['string', 'null'], format: 'email' });
  });

  it("a base64 bearer token keeps its '=' padding: traced from the sign-in's JSON answer, never sent as recorded", () => {
    // (Node-RED: an OAuth password grant answers `{"access_token":"…Pns="}`; every call sends `Bearer …Pns=`.)
    const token = 'Ezx24qfAVHdZm12jmei6Jyk+vSOCu7IBa53ziuhX/W7iNDEJ8BHaH5hK00KFb5yxJ8FS9sX5IMBJ=';
    const r = synthesize({
      recording: har(
        {
          method: 'POST',
          url: `${O}/auth/token`,
          form: { grant_type: 'password', username: 'ann', password: SENTINEL },
          body: { access_token: token, expires_in: 604800 },
        },
        {
          method: 'POST',
          url: `${O}/inject/n1`,
          headers: { Authorization: `Bearer ${token}` },
          json: {},
          body: 'OK',
          mime: 'text/plain; charset=utf-8',
        },
      ),
      hints: { arguments: { node: 'n1' } },
      secretValues: { account: { type: 'login', username: 'ann', password: SENTINEL, totp_secret: null } },
    });
    const d = r.definition as HttpDefinition;
    expect(d.steps.at(-1)!.headers!.authorization).toBe('Bearer {{vars.access_token}}');
    expect(JSON.stringify(d)).not.toContain(token.slice(0, 20));
    expect(d.login!.steps[0].extract!.access_token).toMatchObject({ from: 'json', path: '$.access_token' });
  });

  it('values computed in page JS (random, found in no earlier response) are reported, timestamps recognised', () => {
    const at = Date.parse('2026-01-01T10:00:00Z');
    const r = synthesize({
      recording: har(
        { url: `${O}/page`, html: '<p>x</p>' },
        { url: `${O}/api/s?q=tea&ts=${Math.floor(at / 1000)}&sig=9c1f0e2d3b4a59687a6b5c4d3e2f1a0b`, body: { rows: [] } },
      ),
      hints: { arguments: { q: 'tea' } },
    });
    expect(r.report.computed).toHaveLength(1);
    expect(r.report.computed[0].message).toMatch(/query sig .* computed in page JavaScript/);
  });

  it('a random value the page holds for the visit (sent unchanged with every request, the sign-in too) is sent as recorded; one made per request is not', () => {
    // (n8n's `browser-id`: a UUID the page keeps in its storage; the site binds the session to it.)
    const id = '832a20a7-2d8c-45b1-bfcf-62f5e96e1e38';
    const flow = (sig: (i: number) => string) =>
      har(
        { url: `${O}/rest/settings`, headers: { 'browser-id': id, 'x-sig': sig(1) }, body: { data: { ui: 'on' } } },
        {
          method: 'POST',
          url: `${O}/rest/login`,
          headers: { 'browser-id': id, 'x-sig': sig(2) },
          json: { email: 'ann@shop.test', password: SENTINEL },
          body: { data: { id: 'u1' } },
        },
        { url: `${O}/rest/workflows?q=tea`, headers: { 'browser-id': id, 'x-sig': sig(3) }, body: { data: [{ name: 'tea' }] } },
      );
    const secretValues = { acct: { type: 'login' as const, username: 'ann@shop.test', password: SENTINEL, totp_secret: null } };
    const hints = { arguments: { q: 'tea' }, secrets: { acct: 'id-1' } };
    const held = synthesize({ recording: flow(() => 'sg-0a1b2c3d4e5f60718293'), secretValues, hints });
    expect(held.report.computed).toEqual([]);
    const d = held.definition as HttpDefinition;
    expect(d.login!.steps[0].headers).toMatchObject({ 'browser-id': id });
    expect(d.steps.at(-1)!.headers).toMatchObject({ 'browser-id': id });
    // A signature made for each request is still what page JavaScript computes.
    const signed = synthesize({ recording: flow((i) => `sg-0a1b2c3d4e5f6071829${i}`), secretValues, hints });
    expect(signed.report.computed.map((c) => c.message).join()).toMatch(/header x-sig .* computed in page JavaScript/);
    // A value first sent after the sign-in, or in a recording without one, may be the session's own
    // token the page kept: not a constant (a connector would carry it; it is refused as before).
    const kept = 'kp-7f3a9c2e1b0d4c6a8e5f';
    const later = har(
      { url: `${O}/rest/me`, headers: { 'x-session': kept }, body: { data: { id: 'u1' } } },
      { url: `${O}/rest/tags`, headers: { 'x-session': kept }, body: { data: [] } },
      { url: `${O}/rest/workflows?q=tea`, headers: { 'x-session': kept }, body: { data: [{ name: 'tea' }] } },
    );
    const unsigned = synthesize({ recording: later, hints: { arguments: { q: 'tea' } } });
    expect(unsigned.report.computed.map((c) => c.message).join()).toMatch(/header x-session .* computed in page JavaScript/);
  });

  it('a second recording turns a coincidental match into a constant and an unexplained change into a problem', () => {
    const mk = (k: string) =>
      har({ url: `${O}/conf`, body: { build: 'bld-7a6b5c4d3e' } }, { url: `${O}/api/x?v=bld-7a6b5c4d3e&k=${k}`, body: { ok: 1 } });
    const one = synthesize({ recording: mk('key-1a1a1a2b2b'), hints: { result: [1] } });
    expect((one.definition as HttpDefinition).steps[1].query!.v).toBe('{{vars.v}}');
    const two = synthesize({ recording: mk('key-1a1a1a2b2b'), previous: mk('key-9z9z9z8y8y'), hints: { result: [1] } });
    const q = (two.definition as HttpDefinition).steps.at(-1)!.query!;
    expect(q.v).toBe('bld-7a6b5c4d3e');
    expect(two.report.computed.map((c) => c.message).join()).toMatch(/query k .*differs between the two recordings/);
  });
});

describe('secrets', () => {
  it('turns stored-secret values (hints.secrets) and capture placeholders into slots; values never appear', () => {
    const r = synthesize({
      recording: har(
        {
          method: 'POST',
          url: `${O}/api/login`,
          json: { user: 'ann@shop.test', pass: SENTINEL, apiKey: 'AK-secret-5566' },
          body: { token: 't0k-5a4b3c2d1e' },
        },
        { url: `${O}/api/profile`, headers: { Authorization: 'Token t0k-5a4b3c2d1e' }, body: { plan: 'pro' } },
      ),
      secretValues: {
        acct: { type: 'login', username: 'ann@shop.test', password: SENTINEL, totp_secret: null },
        key: { type: 'string', value: 'AK-secret-5566' },
      },
      hints: { secrets: { acct: 'id-1', key: 'id-2' } },
    });
    const d = r.definition as HttpDefinition;
    expect(d.login!.steps[0].body!.json).toEqual({
      user: '{{secrets.acct.username}}',
      pass: '{{secrets.acct.password}}',
      apiKey: '{{secrets.key.value}}',
    });
    expect(r.required_secrets.map((s) => [s.name, s.type])).toEqual([
      ['acct', 'login'],
      ['key', 'string'],
    ]);
    const text = JSON.stringify(r);
    expect(text).not.toContain(SENTINEL);
    expect(text).not.toContain('AK-secret-5566');
  });

  it('refuses when no request looks like a target', () => {
    expect(() => synthesize({ recording: har({ url: `${O}/x.png`, body: '', mime: 'image/png', type: 'image' }) })).toThrow(SynthError);
  });
});

describe('arguments and results', () => {
  it('projects the result onto the subtree holding the hinted values; a typed value found nowhere is a warning', () => {
    const r = synthesize({
      recording: har({
        method: 'POST',
        url: `${O}/api/graph`,
        json: { op: 'find', vars: { term: 'blue mug', limit: 20 } },
        body: {
          data: {
            found: {
              results: [
                { sku: 'M-1', title: 'Blue Mug' },
                { sku: 'M-2', title: 'Blue Mug XL' },
              ],
            },
            cost: 3,
          },
        },
      }),
      hints: { arguments: { term: 'blue mug', limit: 20, colour: 'teal' }, result: ['Blue Mug XL'] },
    });
    const d = r.definition as HttpDefinition;
    expect(d.steps[0].body!.json).toEqual({ op: 'find', vars: { term: '{{args.term}}', limit: '{{args.limit}}' } });
    expect(d.steps[0].extract!.items).toMatchObject({ from: 'json', path: '$.data.found.results[*]', all: true });
    expect(r.output_schema).toEqual({
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { sku: { type: ['string', 'null'] }, title: { type: ['string', 'null'] } },
            required: ['sku', 'title'],
          },
        },
      },
      required: ['items'],
    });
    expect(r.input_schema.properties.limit).toMatchObject({ type: 'integer', examples: [20] });
    expect(r.report.warnings.join('\n')).toMatch(/argument colour \("teal"\) was typed but appears in no request/);
    expect(r.input_schema.properties).not.toHaveProperty('colour');
  });

  it('finds arguments in multipart parts and JSON-escaped text, and path segments as fragments', () => {
    const r = synthesize({
      recording: har({
        method: 'POST',
        url: `${O}/api/users/ann-smith/notes`,
        headers: {},
        json: undefined,
        body: { ok: true },
        form: undefined,
      }),
      hints: { arguments: { user: 'ann-smith' }, result: [true] },
    });
    expect((r.definition as HttpDefinition).steps[0].url).toBe('/api/users/{{args.user | urlencode}}/notes');
    const m = har({ method: 'POST', url: `${O}/upload`, body: { id: 7 } });
    (m.log.entries[0].request as any).postData = {
      mimeType: 'multipart/form-data; boundary=x',
      params: [
        { name: 'title', value: 'Q3 "report"' },
        { name: 'file', fileName: 'a.pdf', contentType: 'application/pdf' },
      ],
      _size: 1,
      _sha256: '',
    };
    const mr = synthesize({ recording: m, hints: { arguments: { title: 'Q3 "report"' } } });
    // The uploaded file (its bytes not recorded) is the caller's: an argument of format file-id.
    expect((mr.definition as HttpDefinition).steps[0].body).toEqual({
      multipart: [
        { name: 'title', value: '{{args.title}}' },
        { name: 'file', file: '{{args.file}}' },
      ],
    });
    expect(mr.input_schema.properties.file).toMatchObject({ type: 'string', format: 'file-id' });
    expect(mr.input_schema.properties.file.description).toContain('"a.pdf", application/pdf');
    expect(mr.input_schema.required).toEqual(['title', 'file']);
    expect(mr.recorded_files).toEqual({});
  });
});

describe('an editor that made its draft on load (a single-page editor: WordPress block editor)', () => {
  const NONCE = 'b1daf7fcf4';
  /** The editor page (the draft's id in a hidden field and the nonce in its scripts), the app's own REST reads, the save. */
  const recording = (draft: number) =>
    har(
      {
        url: `${O}/admin/post-new`,
        html: `<form id="post"><input type="hidden" id="post_ID" name="post_ID" value="${draft}"></form>
          <script>api.nonceMiddleware = api.createNonceMiddleware( "${NONCE}" );
          var settings = {"root":"https:\\/\\/shop.test\\/","nonce":"${NONCE}"};</script>`,
      },
      // Every REST answer hands back the nonce its request sent (a refreshed one, the same within a day).
      ...['users/me', 'types', 'taxonomies'].map((r) => ({
        url: `${O}/index.php?rest_route=/v2/${r}&context=edit`,
        headers: { 'X-WP-Nonce': NONCE },
        resHeaders: { 'X-WP-Nonce': NONCE },
        body: { route: r },
      })),
      {
        method: 'POST',
        url: `${O}/index.php?rest_route=/v2/users/me`,
        headers: { 'X-WP-Nonce': NONCE },
        json: { meta: { preferences: { welcomeGuide: false, _modified: '2026-11-28T06:22:24.026Z' } } },
        resHeaders: { 'X-WP-Nonce': NONCE },
        body: { id: 1 },
      },
      {
        method: 'POST',
        url: `${O}/index.php?rest_route=/v2/posts/${draft}`,
        headers: { 'X-WP-Nonce': NONCE },
        json: { id: draft, title: 'Pruning in Winter', status: 'publish' },
        resHeaders: { 'X-WP-Nonce': NONCE },
        body: { id: draft, title: { raw: 'Pruning in Winter' }, status: 'publish' },
      },
    );

  it("reads the nonce from the page, not from responses that echo the request's own nonce (which would replay them all)", () => {
    const r = synthesize({ recording: recording(21), hints: { arguments: { title: 'Pruning in Winter' }, allow_side_effects: true } });
    const d = r.definition as HttpDefinition;
    // The page and the save only: no REST read, no background preference write with a page-made timestamp.
    expect(d.steps.map((s) => s.url)).toEqual(['/admin/post-new', '/index.php']);
    expect(d.steps[0].extract!.x_wp_nonce).toMatchObject({ from: 'regex' });
    expect(d.steps[1].headers!['X-WP-Nonce'] ?? d.steps[1].headers!['x-wp-nonce']).toBe('{{vars.x_wp_nonce}}');
  });

  it("the draft's id is read from the page at run time, in the save's route and body (as a number), not sent as recorded", () => {
    const r = synthesize({ recording: recording(21), hints: { arguments: { title: 'Pruning in Winter' }, allow_side_effects: true } });
    const save = (r.definition as HttpDefinition).steps[1];
    expect(save.query!.rest_route).toBe('/v2/posts/{{vars.post_id}}');
    expect((save.body as any).json.id).toBe('{{vars.post_id | int}}');
    expect((r.definition as HttpDefinition).steps[0].extract!.post_id).toMatchObject({ from: 'css', selector: '#post_ID', attr: 'value' });
  });
});

describe("an edit form's checkboxes (a browser sends a ticked box's value, and nothing for an unticked one)", () => {
  const form = (inStock: boolean, featured: boolean) =>
    `<form id="book_form" method="post" action="/admin/book/13/change/"><input type="hidden" name="csrf" value="c5rf-9f8e7d6c5b">
      <input name="title" value="Orchard Notes volume 13"><input name="year" value="1998">
      <input type="checkbox" name="in_stock"${inStock ? ' checked' : ''}><input type="checkbox" name="featured" value="yes"${featured ? ' checked' : ''}>
      <input type="submit" name="_save"></form>`;
  const r = () =>
    synthesize({
      recording: har(
        { url: `${O}/admin/book/13/change/`, html: form(true, false) },
        {
          method: 'POST',
          url: `${O}/admin/book/13/change/`,
          form: { csrf: 'c5rf-9f8e7d6c5b', title: 'Orchard Notes volume 13', year: '1999', in_stock: 'on', _save: 'Save' },
          location: '/admin/book/',
        },
        { url: `${O}/admin/book/`, html: '<main><h1>Books</h1><p>The book was changed successfully.</p></main>' },
      ),
      hints: { arguments: { book: 13, year: 1999 }, allow_side_effects: true },
    });

  // (Book 13's title holds "13": a coincidence, not the argument — the title is the form's.)
  it('both are read from the form at run time: the ticked one sent, the unticked one added and left out while unticked', () => {
    const d = r().definition as HttpDefinition;
    const save = d.steps.find((s) => s.method === 'POST')!;
    expect(save.body!.form).toMatchObject({
      title: '{{vars.title}}',
      year: '{{args.year}}',
      in_stock: '{{vars.in_stock}}',
      featured: '{{vars.featured}}',
    });
    const page = d.steps.find((s) => s.extract?.in_stock)!;
    expect(page.extract!.in_stock).toMatchObject({
      from: 'css',
      selector: 'form#book_form input[name="in_stock"][checked]',
      attr: 'value',
      required: false,
    });
    expect(page.extract!.featured).toMatchObject({ selector: 'form#book_form input[name="featured"][checked]', required: false });
  });

  it('on a record whose boxes are the other way round, the run reads "featured" ticked and "in_stock" unticked (null: not sent)', () => {
    const page = (r().definition as HttpDefinition).steps.find((s) => s.extract?.in_stock)!;
    const view = new View({ url: `${O}/admin/book/10/change/`, status: 200, text: form(false, true) });
    expect(extractValue(page.extract!.in_stock, view, 't')).toBeNull();
    expect(extractValue(page.extract!.featured, view, 't')).toBe('yes');
    // A box without a value attribute sends "on", as the browser does.
    expect(extractValue(page.extract!.in_stock, new View({ url: O, status: 200, text: form(true, false) }), 't')).toBe('on');
  });
});
