// Browser connectors with real Chromium against the demo site: the login + search flow by
// clicking (TOTP included), the JS-signed search that plain HTTP replay can't do, changed markup.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoSite, BOB_TOTP_SEED } from '../examples/demo-site/server.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { browserSearchDefinition, LOGIN_SLOT } from './fixtures/definitions.js';
import { loginSecret, logsOf, publish, run } from './helpers/runs.js';

const OUTPUT = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    items: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] },
    },
  },
  required: ['summary', 'items'],
};
const INPUT = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };

// Chromium-heavy: once, on SQLite (the database layer is covered by the other suites on both).
describe('browser connector runs', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let connector: any;
  let bob: string;
  beforeAll(async () => {
    site = await startDemoSite();
    // Many TOTP logins in a row (each would wait for a fresh 30 s step): single-use codes are test/totp-single-use.test.ts's.
    h = await startHarness('sqlite', { TOTP_CODE_REUSE: 'allow' });
    connector = await publish(h, {
      definition: browserSearchDefinition(site.url),
      input_schema: INPUT,
      output_schema: OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    bob = await loginSecret(h, 'bob', 'builder', BOB_TOTP_SEED);
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });
  beforeEach(async () => {
    await fetch(`${site.url}/__reset`, { method: 'POST' });
  });

  it('logs in with TOTP by typing and clicking, follows the pager and extracts every row', async () => {
    const r = await run(h, { connector_id: connector.id, arguments: { query: 'tools' }, secret_bindings: { account: bob } });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    // category tools = ids 1, 5, 9, …, 37: 10 items on one page; "a" matches 2 pages.
    expect(r.result.items.map((i: any) => i.id)).toEqual([1, 5, 9, 13, 17, 21, 25, 29, 33, 37]);
    const two = await run(h, { connector_id: connector.id, arguments: { query: 'a' }, secret_bindings: { account: bob } });
    expect(two.status, JSON.stringify(two.error)).toBe('success');
    expect(two.result.items.length).toBeGreaterThan(10);
    expect(new Set(two.result.items.map((i: any) => i.id)).size).toBe(two.result.items.length);
    expect(await logsOf(h, two.id)).toMatch(/next a\[rel=next\]/);
  });

  it('a wrong TOTP seed is auth_required; changed markup is site_changed; a challenge is anti_bot', async () => {
    const badTotp = await loginSecret(h, 'bob', 'builder', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    let r = await run(h, { connector_id: connector.id, arguments: { query: 'tools' }, secret_bindings: { account: badTotp } });
    expect(r.error).toMatchObject({ type: 'auth_required' });
    await fetch(`${site.url}/__control`, { method: 'POST', body: JSON.stringify({ changed_markup: true }) });
    // Rows are required here: with the changed markup no [data-testid=item-row] exists.
    const strict: any = browserSearchDefinition(site.url);
    strict.steps[1].steps[0].values.rows.required = true;
    const c2 = await publish(h, { definition: strict, input_schema: INPUT, output_schema: OUTPUT, required_secrets: [LOGIN_SLOT] });
    r = await run(h, { connector_id: c2.id, arguments: { query: 'tools' }, secret_bindings: { account: bob } });
    expect(r.error).toMatchObject({ type: 'site_changed' });
    await fetch(`${site.url}/__control`, { method: 'POST', body: JSON.stringify({ changed_markup: false, challenge: true }) });
    r = await run(h, { connector_id: connector.id, arguments: { query: 'tools' }, secret_bindings: { account: bob } });
    expect(r.error).toMatchObject({ type: 'anti_bot' });
  });

  it('does the JS-signed search that HTTP replay cannot', async () => {
    const def = {
      format: 'connector-definition/v1',
      engine: 'browser',
      login: browserSearchDefinition(site.url).login,
      detect: { login_page: [{ css: '#login-form' }] },
      steps: [
        { action: 'navigate', url: `${site.url}/signed` },
        { action: 'type', selector: 'input[name=q]', text: '{{args.query}}' },
        { action: 'press', selector: 'input[name=q]', key: 'Enter' },
        { action: 'wait', selector: '#status[data-state=done]', state: 'attached' },
        { action: 'extract', values: { names: { from: 'css', selector: '[data-testid=result-row]', all: true } } },
      ],
      result: { names: '{{vars.names}}' },
    };
    const c = await publish(h, {
      definition: def,
      input_schema: INPUT,
      output_schema: { type: 'object', properties: { names: { type: 'array', minItems: 1 } } },
      required_secrets: [LOGIN_SLOT],
    });
    const r = await run(h, { connector_id: c.id, arguments: { query: 'gamma' }, secret_bindings: { account: bob } });
    expect(r.status, JSON.stringify(r.error) + (await logsOf(h, r.id))).toBe('success');
    expect(r.result.names.length).toBe(5);
    expect(r.result.names[0]).toMatch(/Gamma/);
  });
});
