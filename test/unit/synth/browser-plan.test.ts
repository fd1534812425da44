// The browser-engine plan built from a capture session's action log (src/synth/browser-plan.ts):
// pure, on the live-view recordings in test/fixtures/capture and edited copies of them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ElementInfo, Har } from '../../../src/formats/recording/types.js';
import type { BrowserDefinition } from '../../../src/formats/definition/types.js';
import { validateDefinition } from '../../../src/formats/definition/validate.js';
import { cssSelector } from '../../../src/synth/browser-plan.js';
import { synthesize } from '../../../src/synth/index.js';
import { SynthError, type Hints } from '../../../src/synth/types.js';

const capture = (n: string) => JSON.parse(fs.readFileSync(path.join(__dirname, `../../fixtures/capture/${n}.har.json`), 'utf8')) as Har;
const plainHar = (n: string) => JSON.parse(fs.readFileSync(path.join(__dirname, `../../fixtures/har/${n}.har`), 'utf8')) as Har;
const browser = (har: Har, hints: Hints = { prefer_browser: true }) => {
  const r = synthesize({ recording: har, hints });
  expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
  expect(JSON.stringify(r)).not.toMatch(/\{\{secret:/);
  return { r, d: r.definition as BrowserDefinition };
};
const shape = (steps: BrowserDefinition['steps']) =>
  steps.map((s) => `${s.action} ${'selector' in s && s.selector ? s.selector : 'url' in s && s.url ? s.url : ''}`.trim());
const fail = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof SynthError) return e.problems;
    throw e;
  }
  throw new Error('no SynthError');
};

describe('browser plan from the action log', () => {
  it('a GET search form, then a click into the first hit: type, click, extract the list, click by place, extract the detail', () => {
    const { r, d } = browser(capture('d-list-detail'));
    expect(d.engine).toBe('browser');
    expect(shape(d.login!.steps)).toEqual([
      'navigate http://127.0.0.1:47811/login',
      'type [data-testid="username"]',
      'type [data-testid="password"]',
      'click [data-testid="login-submit"]',
      'wait',
    ]);
    expect(d.login!.steps.filter((s) => s.action === 'type').map((s) => (s as { text: string }).text)).toEqual([
      '{{secrets.account.username}}',
      '{{secrets.account.password}}',
    ]);
    expect(d.detect?.login_page).toEqual([expect.objectContaining({ css: '#login-form' })]);
    expect(shape(d.steps)).toEqual([
      'navigate http://127.0.0.1:47811/items',
      'type [data-testid="search-input"]',
      'click [data-testid="search-submit"]',
      'wait',
      'extract',
      'extract',
      'click #results > li:nth-of-type(1) > a', // not role=link[name="Delta Lantern"]: that is the recorded data
      'wait',
      'extract',
    ]);
    expect(d.steps[1]).toMatchObject({ text: '{{args.q}}' });
    // The list and the detail are extracted with the rules chosen on the recorded pages.
    expect(Object.keys((d.steps[4] as { values: object }).values)).toEqual(['items']);
    expect((d.steps[8] as { values: Record<string, { selector: string }> }).values.detail_record.selector).toBe('#item');
    expect(d.result).toEqual({ items: '{{vars.items}}', detail: '{{vars.detail_record}}' });
    expect(Object.keys(r.input_schema.properties)).toEqual(['q']);
    expect(r.report.fallback).toBe('browser');
    expect(d.meta?.decisions).toMatchObject({
      engine: { engine: 'browser', why: 'hints.prefer_browser is set' },
      arguments: [{ name: 'q', example: 'delta' }],
    });
  });

  it('a full-page POST form: a field edited twice keeps its last value, a checkbox is clicked, the button submits', () => {
    const { r, d } = browser(capture('c-create'));
    expect(shape(d.steps)).toEqual([
      'navigate http://127.0.0.1:47811/items/new',
      'type [data-testid="item-name"]',
      'select [data-testid="item-category"]',
      'type [data-testid="item-price"]',
      'click [data-testid="item-in-stock"]',
      'type [data-testid="item-description"]',
      'click [data-testid="item-submit"]',
      'wait',
      'extract',
    ]);
    expect(d.steps[2]).toMatchObject({ value: '{{args.category}}' });
    expect(r.input_schema.properties.category.examples).toEqual(['kitchen']);
    expect(r.report.side_effects).toBe(true);
  });

  it('a form whose landing page shows no data returns the URL it landed on (the browser sees no status code)', () => {
    const har = capture('c-create');
    har.log.entries.find((e) => e._id === 'e6')!.response.content.text = '<html><body></body></html>';
    const { r, d } = browser(har);
    expect(d.steps.at(-1)).toMatchObject({ action: 'extract', values: { url: { from: 'url' } } });
    expect(d.result).toEqual({ url: '{{vars.url}}' });
    expect(r.output_schema).toEqual({ type: 'object', properties: { url: { type: 'string' } }, required: ['url'] });
  });

  it('a TOTP sign-in is part of the login; a typed URL is opened after it', () => {
    const { r, d } = browser(capture('b-totp-account'));
    expect(d.login!.steps.map((s) => (s as { text?: string }).text).filter(Boolean)).toEqual([
      '{{secrets.account.username}}',
      '{{secrets.account.password}}',
      '{{secrets.account.totp}}',
    ]);
    expect(d.detect?.login_page?.map((m) => m.css)).toEqual(['#login-form', '#totp-form']);
    expect(shape(d.steps)).toEqual(['navigate http://127.0.0.1:47811/account', 'wait', 'extract']);
    expect(r.required_secrets).toEqual([expect.objectContaining({ name: 'account', supports_totp: true })]);
  });

  it('a form submitted with Enter (no button) is submitted with Enter in the last field', () => {
    const har = capture('d-list-detail');
    const acts = har.log._capture!.actions;
    har.log._capture!.actions = acts.filter((a) => a.id !== 'a15');
    (acts.find((a) => a.id === 'a16') as { submitter: unknown }).submitter = null;
    const { d } = browser(har);
    expect(d.steps.slice(1, 4)).toEqual([
      expect.objectContaining({ action: 'type' }),
      expect.objectContaining({ action: 'press', key: 'Enter', selector: '[data-testid="search-input"]' }),
      expect.objectContaining({ action: 'wait' }),
    ]);
  });

  it('Enter that no form submit followed (a page script listens for it) is pressed', () => {
    const har = capture('d-list-detail');
    har.log._capture!.actions = har.log._capture!.actions.filter((a) => a.id !== 'a15' && a.id !== 'a16');
    har.log.entries.find((e) => e._id === 'e4')!._action_id = 'a14';
    const { d } = browser(har);
    expect(d.steps.slice(1, 4)).toEqual([
      expect.objectContaining({ action: 'type' }),
      expect.objectContaining({ action: 'press', key: 'Enter', selector: '[data-testid="search-input"]' }),
      expect.objectContaining({ action: 'wait' }),
    ]);
  });

  it('an argument in a URL typed into the address bar becomes a template (encoded)', () => {
    const har = capture('d-list-detail');
    const cap = har.log._capture!;
    cap.actions = [
      ...cap.actions.filter((a) => a.seq <= 11),
      { ...cap.actions.find((a) => a.id === 'a17')!, cause: 'typed', seq: 12 } as (typeof cap.actions)[number],
    ];
    har.log.entries = har.log.entries.filter((e) => e._id !== 'e5');
    har.log.entries.find((e) => e._id === 'e4')!._action_id = 'a17';
    const { d } = browser(har, { prefer_browser: true, arguments: { q: 'delta' } });
    expect(shape(d.steps)).toEqual(['navigate http://127.0.0.1:47811/items?q={{args.q | urlencode}}', 'wait', 'extract']);
  });

  it("a site the browser signed in to out of the recording's sight (HTTP Basic/Digest): the plan answers with the hinted login", () => {
    // (The same flow without its sign-in form: the items pages, behind the site's HTTP authentication.)
    const har = capture('d-list-detail');
    const cap = (har.log as any)._capture;
    cap.actions = cap.actions
      .filter((a: { seq: number }) => a.seq >= 11)
      .map((a: { seq: number }, i: number) => ({ ...a, seq: i + 1, ...(i === 0 ? { cause: 'start' } : {}) }));
    cap.secrets = [];
    cap.start_url = 'http://127.0.0.1:47811/items';
    har.log.entries = har.log.entries.filter((e) => ['e3', 'e4', 'e5'].includes(e._id!));
    const hints: Hints = { prefer_browser: true, arguments: { q: 'delta' }, secrets: { account: 'sec_1' } };
    const r = synthesize({
      recording: har,
      hints,
      secretValues: { account: { type: 'login', username: 'alice', password: 'pw-sentinel-1', totp_secret: null } },
    });
    const d = r.definition as BrowserDefinition;
    expect(d.engine).toBe('browser');
    expect(d.login).toBeUndefined();
    expect(d.basic_auth).toBe('account');
    expect(r.required_secrets.map((s) => s.name)).toEqual(['account']);
    expect(validateDefinition(d, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
    expect(JSON.stringify(r)).not.toContain('pw-sentinel-1');
  });

  it('without prefer_browser, a page flow that replays over HTTP stays http (and meta says so)', () => {
    const r = synthesize({ recording: capture('d-list-detail') });
    expect(r.definition.engine).toBe('http');
    expect((r.definition.meta!.decisions as { engine: object }).engine).toMatchObject({ engine: 'http' });
  });

  it('without prefer_browser, a page flow whose request is computed in page JS gets the browser plan, and says why', () => {
    const har = capture('d-list-detail');
    const e4 = har.log.entries.find((e) => e._id === 'e4')!;
    e4.request.url += '&sig=9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    e4.request.queryString = [...(e4.request.queryString ?? []), { name: 'sig', value: '9f8e7d6c5b4a39281706f5e4d3c2b1a0' }];
    const { r, d } = browser(har, {});
    expect(d.engine).toBe('browser');
    expect(r.report.computed.length).toBeGreaterThan(0);
    expect((d.meta!.decisions as { engine: { why: string } }).engine.why).toMatch(/^HTTP replay can't work: .*sig/);
  });

  it('no browser plan → prefer_browser is a 422 at stage browser saying why (no action log, a download, a popup)', () => {
    const noLog = fail(() =>
      synthesize({
        recording: plainHar('d-list-detail'),
        hints: { prefer_browser: true, secrets: { account: 's1' } },
        secretValues: { account: { type: 'login', username: 'alice', password: 'wonderland', totp_secret: null } },
      }),
    );
    expect(noLog).toEqual([expect.objectContaining({ stage: 'browser', message: expect.stringMatching(/no action log/) })]);
    const csv = fail(() => synthesize({ recording: capture('e-csv'), hints: { prefer_browser: true, arguments: { query: 'gamma' } } }));
    expect(csv[0]).toMatchObject({ stage: 'browser', message: expect.stringMatching(/not read from the page's HTML/) });
    const popup = capture('d-list-detail');
    for (const a of popup.log._capture!.actions) if (a.seq >= 18) a.page = 'page_2';
    expect(fail(() => synthesize({ recording: popup, hints: { prefer_browser: true } }))[0].message).toMatch(/another tab or popup/);
    // A flow that gives the page a file: a browser plan would submit the form without it.
    const upload = capture('c-create');
    const acts = upload.log._capture!.actions;
    acts.push({
      ...acts[0],
      id: 'a_up',
      seq: 1.5,
      type: 'upload',
      target: null,
      files: [{ name: 'plan.pdf', content_type: 'application/pdf', size: 4, sha256: 'ab'.repeat(32) }],
    } as (typeof acts)[number]);
    expect(fail(() => synthesize({ recording: upload, hints: { prefer_browser: true } }))[0]).toMatchObject({
      stage: 'browser',
      message: expect.stringMatching(/gives the page a file \(action a_up\), which a browser connector cannot do/),
    });
  });

  it('a password typed by hand that no secret slot claims is never written into the plan', () => {
    const har = capture('d-list-detail');
    const fill = har.log._capture!.actions.find((a) => a.id === 'a7') as { value: string; secret: unknown };
    [fill.value, fill.secret] = ['wonderland', null];
    const problems = fail(() => synthesize({ recording: har, hints: { prefer_browser: true } }));
    expect(problems[0]).toMatchObject({ stage: 'browser', message: expect.stringMatching(/password or one-time-code field/) });
    expect(JSON.stringify(problems)).not.toContain('wonderland');
  });

  it('selectors: CSS only (the engine and the validator take CSS), unique, never naming recorded data', () => {
    const el = (selectors: [string, string, boolean][]) =>
      ({
        selectors: selectors.map(([kind, playwright, unique]) => ({ kind, value: playwright, playwright, unique })),
      }) as unknown as ElementInfo;
    expect(
      cssSelector(
        el([
          ['role', 'role=link[name="Delta Lantern"]', true],
          ['text', 'text="Delta Lantern"', true],
          ['css', 'css=#results > li:nth-of-type(1) > a', true],
        ]),
        ['delta'],
      ),
    ).toBe('#results > li:nth-of-type(1) > a');
    expect(
      cssSelector(
        el([
          ['testid', '[data-testid="row-delta"]', true],
          ['css', 'css=li.hit', false],
        ]),
        ['Delta'],
      ),
    ).toBeNull();
    expect(cssSelector(el([['testid', '[data-testid="go"]', true]]), [])).toBe('[data-testid="go"]');
  });
});
