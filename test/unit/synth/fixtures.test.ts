// Synthesis from the demo-site HARs recorded by test/fixtures/har/record.ts (plain Playwright
// recordHar, real Chromium): every emitted definition passes the publish-time validator, and the
// arguments, slots, extractors and output schemas are the expected ones.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Har } from '../../../src/formats/recording/types.js';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { validateDefinition } from '../../../src/formats/definition/validate.js';
import { synthesize, type SynthResult } from '../../../src/synth/index.js';
import type { Hints, SecretValues } from '../../../src/synth/types.js';

const load = (n: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '../../fixtures/har', `${n}.har`), 'utf8')) as Har;
const ALICE: SecretValues = { account: { type: 'login', username: 'alice', password: 'wonderland', totp_secret: null } };
const BOB: SecretValues = { account: { type: 'login', username: 'bob', password: 'builder', totp_secret: 'JBSWY3DPEHPK3PXP' } };

function synth(name: string, hints: Hints, secretValues: SecretValues = ALICE, previous?: string): SynthResult {
  const r = synthesize({
    recording: load(name),
    hints: { secrets: { account: 'sec-1' }, ...hints },
    secretValues,
    previous: previous ? load(previous) : null,
  });
  expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
  const text = JSON.stringify(r);
  for (const v of ['wonderland', 'builder', 'JBSWY3DPEHPK3PXP']) expect(text).not.toContain(v);
  return r;
}
const def = (r: SynthResult) => r.definition as HttpDefinition;
const loginShape = (d: HttpDefinition) => d.login!.steps.map((s) => `${s.method ?? 'GET'} ${s.url}`);

describe('synthesis from recorded demo-site HARs', () => {
  it('(a) logged-in JSON search with page pagination', () => {
    const r = synth('a-search', { arguments: { query: 'gamma' } });
    const d = def(r);
    expect(loginShape(d)).toEqual(['GET /login', 'POST /login']);
    expect(d.login!.steps[0].extract!.csrf_token).toMatchObject({ from: 'css', attr: 'value' });
    expect(d.login!.steps[1].body!.form).toMatchObject({
      csrf_token: '{{vars.csrf_token}}',
      username: '{{secrets.account.username}}',
      password: '{{secrets.account.password}}',
    });
    expect(d.steps).toHaveLength(1);
    expect(d.steps[0]).toMatchObject({
      url: '/api/search',
      query: { q: '{{args.query}}', limit: '5' },
      paginate: { mode: 'page', param: 'page', start: 1, stop_when_false: 'has_more' },
    });
    expect(r.input_schema).toMatchObject({ properties: { query: { type: 'string', examples: ['gamma'] } }, required: ['query'] });
    expect(r.output_schema.properties.items.items).toMatchObject({
      // (A field may be null in the records to come; the record's id may not.)
      properties: {
        id: { type: 'integer' },
        price: { type: ['number', 'null'] },
        in_stock: { type: ['boolean', 'null'] },
        created_at: { type: ['string', 'null'], format: 'date-time' },
      },
      required: ['id', 'name', 'category', 'price', 'in_stock', 'created_at'],
    });
    expect(r.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login', supports_totp: false })]);
  });

  it('(a) with the page named as an argument: one page per run, no pagination loop', () => {
    const r = synth('a-search', { arguments: { query: 'gamma', page: 2 } });
    const d = def(r);
    expect(d.steps[0].paginate).toBeUndefined();
    expect(d.steps[0].query).toEqual({ q: '{{args.query}}', page: '{{args.page}}', limit: '5' });
    expect(r.input_schema.properties.page).toMatchObject({ type: 'integer', examples: [2] });
  });

  it('(a) with DevTools-style noise around it (assets, analytics, preflight, redirect to a tracker) gives the same plan', () => {
    const clean = synth('a-search', { arguments: { query: 'gamma' } });
    const noisy = load('a-search');
    const t = (i: number) => noisy.log.entries[i].startedDateTime;
    const extra = (url: string, mime: string, type: string, at: string, method = 'GET') => ({
      ...structuredClone(noisy.log.entries[3]),
      startedDateTime: at,
      request: { ...structuredClone(noisy.log.entries[3].request), method, url },
      response: { ...structuredClone(noisy.log.entries[3].response), content: { size: 10, mimeType: mime, text: 'x' } },
      _resourceType: type,
    });
    noisy.log.entries.push(
      extra('http://127.0.0.1:47811/static/app.js', 'application/javascript', 'script', t(2)),
      extra('http://127.0.0.1:47811/static/logo.png', 'image/png', 'image', t(2)),
      extra('https://www.google-analytics.com/g/collect?v=2&tid=G-1&gamma', 'text/plain', 'ping', t(3)),
      extra('http://127.0.0.1:47811/api/search?q=gamma&page=1&limit=5', 'text/plain', 'preflight', t(3), 'OPTIONS'),
      extra('http://127.0.0.1:47811/fonts/inter.woff2', 'font/woff2', 'font', t(4)),
    );
    const r = synth('a-search', { arguments: { query: 'gamma' } }, ALICE);
    const n = synthesize({
      recording: noisy,
      hints: { secrets: { account: 'sec-1' }, arguments: { query: 'gamma' } },
      secretValues: ALICE,
    });
    expect(n.report.dropped).toBe(5);
    const strip = (d: unknown) =>
      JSON.parse(JSON.stringify(d, (k, v) => (k === 'generated_at' || k === 'provenance' || k === 'notes' ? undefined : v)));
    expect(strip(n.definition)).toEqual(strip(r.definition));
    expect(strip(clean.definition)).toEqual(strip(r.definition));
  });

  it('(g) cursor pagination of a JSON API called by page script', () => {
    const r = synth('g-cursor', { arguments: { query: 'gamma' } });
    expect(def(r).steps.at(-1)).toMatchObject({
      url: '/api/items',
      query: { q: '{{args.query}}', limit: '3' },
      paginate: { mode: 'cursor', param: 'cursor', next: { from: 'json', path: '$.next_cursor' }, stop_when_empty: 'items' },
    });
  });

  it('(b) login with TOTP, then the account page extracted by CSS', () => {
    const r = synth('b-totp-account', {}, BOB);
    const d = def(r);
    expect(loginShape(d)).toEqual(['GET /login', 'POST /login', 'POST /login/totp']);
    expect(d.login!.steps[2].body!.form).toMatchObject({ code: '{{secrets.account.totp}}' });
    expect(r.required_secrets[0]).toMatchObject({ name: 'account', type: 'login', supports_totp: true });
    expect(d.steps).toHaveLength(1);
    expect(d.steps[0].extract!.record).toMatchObject({
      from: 'css',
      selector: '#account',
      fields: { plan: { selector: '[data-field="plan"]' }, balance: { type: 'number' } },
    });
    expect(r.output_schema.properties.email).toEqual({ type: 'string', format: 'email' });
    expect(d.detect!.login_page!.map((m) => m.css)).toEqual(['#login-form', '#totp-form']);
  });

  it('(c) CSRF-protected create form; the result is the created item', () => {
    const r = synth('c-create', {
      arguments: { name: 'Copper Teapot', category: 'kitchen', price: 23.75, description: 'A shiny copper teapot' },
      allow_side_effects: true,
    });
    const d = def(r);
    const post = d.steps.find((s) => s.method === 'POST')!;
    expect(post.url).toBe('/items');
    expect(post.body!.form).toEqual({
      csrf_token: expect.stringMatching(/^\{\{vars\.csrf_token(_\d)?\}\}$/),
      name: '{{args.name}}',
      category: '{{args.category}}',
      price: '{{args.price}}',
      in_stock: 'on',
      description: '{{args.description}}',
    });
    expect(r.input_schema.properties.price).toMatchObject({ type: 'number', examples: [23.75] });
    expect(r.output_schema.properties.id).toEqual({ type: 'integer' });
    expect(r.report.side_effects).toBe(true);
  });

  it('(d) list then detail by an id taken from the list', () => {
    const r = synth('d-list-detail', { arguments: { query: 'delta' } });
    const d = def(r);
    expect(d.steps.map((s) => s.url)).toEqual(['/items', '/items/{{vars.item_id | urlencode}}']);
    expect(d.steps[0].extract!.item_id).toMatchObject({ from: 'css', selector: '[data-testid="item-row"]', attr: 'data-item-id' });
    expect(d.result).toEqual({ items: '{{vars.items}}', detail: '{{vars.detail_record}}' });
    expect(r.output_schema.properties.detail.properties).toMatchObject({ id: { type: 'integer' }, price: { type: 'number' } });
  });

  it('(e) CSV download with a login typed by hand (no hints.secrets) becomes a script saving the file', () => {
    const r = synthesize({ recording: load('e-csv'), hints: { arguments: { query: 'gamma' } } });
    expect(JSON.stringify(r)).not.toContain('wonderland');
    expect(r.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login' })]);
    expect(r.report.fallback).toBe('download-script');
    const d = r.definition as { engine: string; source: string };
    expect(d.engine).toBe('script');
    const plan = JSON.parse(/const PLAN = (\{[\s\S]*?\n\});/.exec(d.source)![1]);
    expect(plan.steps.map((s: any) => `${s.method ?? 'GET'} ${s.url}`)).toEqual(['GET /login', 'POST /login', 'GET /export.csv']);
    expect(plan.steps[0].extract.csrf_token.from).toBe('regex');
    expect(plan.steps[2].query).toEqual({ q: '{{args.query}}' });
    expect(plan.file).toEqual({ filename: 'items.csv', contentType: 'text/csv', extract: 'content', csv: true });
    expect(r.output_schema.required).toEqual(['file_id', 'filename', 'content_type', 'size_bytes', 'lines', 'rows']);
    // Playwright keeps no download body: the rows are objects (typed from the file when a HAR has it).
    expect(r.output_schema.properties.rows).toEqual({ type: 'array', items: { type: 'object' } });
    expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
  });

  it('(f) a request signed in page JS falls back to the page itself in a browser', () => {
    const r = synth('f-signed', { arguments: { query: 'gamma' } });
    expect(r.report.computed.map((c) => c.message).join('\n')).toMatch(/x-signature/);
    expect(r.report.fallback).toBe('browser');
    const d = r.definition as { engine: string; browser: boolean; source: string };
    expect(d).toMatchObject({ engine: 'script', browser: true });
    const plan = JSON.parse(/const PLAN = (\{[\s\S]*?\n\});/.exec(d.source)![1]);
    expect(plan).toMatchObject({
      page: 'http://127.0.0.1:47811/signed',
      endpoint: '/api/signed-search',
      inputs: [{ selector: '#search-form [name="q"]', value: '{{args.query}}' }],
      submit: '#search-form [type=submit]',
    });
    expect(plan.login[0]).toMatchObject({
      form: '#login-form',
      fields: [{ value: '{{secrets.account.username}}' }, { value: '{{secrets.account.password}}' }],
    });
    expect(r.output_schema.properties.items.items.properties.price).toEqual({ type: ['number', 'null'] });
  });

  it('a second recording of (a) keeps the plan and confirms constants', () => {
    const r = synth('a-search-2', { arguments: { query: 'gamma' } }, ALICE, 'a-search');
    expect(def(r).steps[0].query).toEqual({ q: '{{args.query}}', limit: '5' });
    expect(def(r).login!.steps[1].body!.form!.csrf_token).toBe('{{vars.csrf_token}}');
  });

  it('a capture-session recording (action log, pasted secrets) needs no hints; hints override names', () => {
    const har = JSON.parse(fs.readFileSync(path.join(__dirname, '../../fixtures/capture/search-totp.har.json'), 'utf8')) as Har;
    const r = synthesize({ recording: har, source: { capture_session_id: har.log._capture.session_id } });
    expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
    const d = def(r);
    expect(loginShape(d)).toEqual(['GET /login', 'POST /login', 'POST /login/totp']);
    expect(d.login!.steps[2].body!.form!.code).toBe('{{secrets.account.totp}}');
    expect(r.required_secrets).toEqual([expect.objectContaining({ name: 'account', supports_totp: true })]);
    expect(r.report.secret_ids.account).toBe(har.log._capture.secrets[0].secret_id);
    expect(d.steps[0]).toMatchObject({
      url: '/api/search',
      query: { q: '{{args.q}}', limit: '5' },
      paginate: { mode: 'page', param: 'page' },
    });
    expect(d.meta).toMatchObject({ capture_session_id: har.log._capture.session_id });
    expect(JSON.stringify(r)).not.toMatch(/\{\{secret:/);
    // A browser connector from the same recording uses the selectors the recorder noted for each action.
    const b = synthesize({ recording: har, hints: { prefer_browser: true } });
    const plan = JSON.parse(/const PLAN = (\{[\s\S]*?\n\});/.exec((b.definition as { source: string }).source)![1]);
    expect(plan.login.map((l: any) => [l.form, l.fields.map((f: any) => f.selector), l.submit])).toEqual([
      ['#login-form', ['[data-testid="username"]', '[data-testid="password"]'], '[data-testid="login-submit"]'],
      ['#totp-form', ['[data-testid="totp-code"]'], '[data-testid="totp-submit"]'],
    ]);
    expect(plan).toMatchObject({
      page: 'http://127.0.0.1:47811/search',
      inputs: [{ selector: '[data-testid="search-input"]', value: '{{args.q}}' }],
      submit: '[data-testid="search-submit"]',
      result: { path: '$.items[*]', list: true },
    });
    const named = synthesize({ recording: har, hints: { arguments: { query: 'gamma' } } });
    expect(def(named).steps[0].query!.q).toBe('{{args.query}}');
  });

  it.each([
    ['b-totp-account', {}, 'http', [], ['GET /login', 'POST /login', 'POST /login/totp', 'GET /account'], true],
    [
      'c-create',
      {},
      'http',
      ['name', 'category', 'price', 'description'],
      ['GET /login', 'POST /login', 'GET /items/new', 'POST /items'],
      false,
    ],
    ['d-list-detail', {}, 'http', ['q'], ['GET /login', 'POST /login', 'GET /items', 'GET /items/{{vars.item_id | urlencode}}'], false],
    ['e-csv', { arguments: { query: 'gamma' } }, 'script', ['query'], null, false],
    ['f-signed', {}, 'script', ['q'], null, false],
  ] as const)(
    'capture-session recording %s synthesizes from the action log and pasted secrets',
    (name, hints, engine, args, shape, totp) => {
      const har = JSON.parse(fs.readFileSync(path.join(__dirname, `../../fixtures/capture/${name}.har.json`), 'utf8')) as Har;
      const r = synthesize({ recording: har, hints: hints as Hints });
      expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
      expect(r.definition.engine).toBe(engine);
      expect(Object.keys(r.input_schema.properties)).toEqual(args);
      expect(r.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login', supports_totp: totp })]);
      if (shape) expect([...loginShape(def(r)), ...def(r).steps.map((s) => `${s.method ?? 'GET'} ${s.url}`)]).toEqual(shape);
      expect(JSON.stringify(r)).not.toMatch(/\{\{secret:/);
    },
  );
});
