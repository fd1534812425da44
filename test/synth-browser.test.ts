// The browser fallback through the real API: capture-session recordings (test/fixtures/capture,
// made in the live view) published with hints.prefer_browser become browser-engine connectors
// that replay the action log in Chromium — a GET search form and a full-page POST create form —
// validated by a sandbox replay, then RUN with new arguments against the demo site. A plain HAR
// (no action log) with prefer_browser is a 422 that says why, never a silent http connector.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, run } from './helpers/runs.js';
import { fixtureHar, synthesizeFrom } from './helpers/synth.js';

describe('browser fallback from the action log (sqlite)', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let alice: string;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness('sqlite');
    alice = await loginSecret(h, 'alice', 'wonderland');
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });
  beforeEach(async () => {
    await fetch(`${site.url}/__reset`, { method: 'POST' });
  });
  const definition = async (id: string) => (await h.api('GET', `/v1beta/connectors/${id}/definition`)).json.definition;
  const go = async (id: string, args: Record<string, unknown>) => {
    const out = await run(h, { connector_id: id, arguments: args, secret_bindings: { account: alice } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    return out.result;
  };

  it('a search form submitted as a page load, then a click into the first hit: browser engine, new query', async () => {
    const r = await synthesizeFrom(h, fixtureHar('capture/d-list-detail', site.url), {
      hints: { secrets: { account: alice }, prefer_browser: true },
    });
    expect(r.status, r.text).toBe(200);
    const def = await definition(r.json.id);
    expect(def.engine).toBe('browser');
    expect(JSON.stringify(def)).not.toMatch(/wonderland|\{\{secret:/);
    expect(def.meta.decisions.engine).toMatchObject({ engine: 'browser', why: 'hints.prefer_browser is set' });
    expect(def.meta.validation).toMatchObject({ replayed: true, changed_argument: 'q' });
    expect(def.steps.map((s: any) => s.action)).toEqual([
      'navigate',
      'type',
      'click',
      'wait',
      'extract',
      'extract',
      'click',
      'wait',
      'extract',
    ]);
    expect(def.steps[1]).toMatchObject({ selector: '[data-testid="search-input"]', text: '{{args.q}}' });
    // The hit is clicked by its place in the list, not by the recorded name ("Delta Lantern").
    expect(def.steps[6].selector).not.toMatch(/delta/i);
    expect(def.login.steps.map((s: any) => s.text ?? s.selector ?? s.url).join(' ')).toMatch(/\{\{secrets\.account\.password\}\}/);
    const out = await go(r.json.id, { q: 'alpha' });
    expect(out.items.map((i: any) => i.item_id)).toEqual([1, 6, 11, 16, 21, 26, 31, 36]);
    expect(out.detail).toMatchObject({ id: 1, name: 'Alpha Widget', category: 'tools' });
  });

  it('a full-page POST form (typed fields, a select, a checkbox) creates a new item through the browser', async () => {
    const r = await synthesizeFrom(h, fixtureHar('capture/c-create', site.url), {
      hints: { secrets: { account: alice }, prefer_browser: true, allow_side_effects: true },
    });
    expect(r.status, r.text).toBe(200);
    const def = await definition(r.json.id);
    expect(def.engine).toBe('browser');
    expect(def.meta.validation).toMatchObject({ replayed: true });
    expect(Object.keys(r.json.input_schema.properties)).toEqual(['name', 'category', 'price', 'description']);
    expect(def.steps.filter((s: any) => s.action === 'select')).toEqual([expect.objectContaining({ value: '{{args.category}}' })]);
    const made = site.state.items.length;
    const out = await go(r.json.id, { name: 'Garden Gnome', category: 'garden', price: 9.25, description: 'Small and cheerful' });
    expect(out).toMatchObject({
      name: 'Garden Gnome',
      category: 'garden',
      price: 9.25,
      description: 'Small and cheerful',
      in_stock: 'yes',
    });
    expect(site.state.items.length).toBe(made + 1);
    expect(site.state.items.at(-1)).toMatchObject({ id: out.id, name: 'Garden Gnome', in_stock: true });
  });

  it('an http plan that does not replay (an untraceable token) is replaced by the browser plan, and meta says why', async () => {
    // The recorded sign-in sent a token we rewrite to a plain word: traced as a constant, replayed
    // over HTTP it is refused (403); the person's own actions in the browser still sign in.
    const har = JSON.parse(fixtureHar('capture/d-list-detail', site.url));
    const post = har.log.entries.find((e: any) => e._id === 'e2').request.postData;
    post.text = post.text.replace(post.params[0].value, 'tok');
    post.params[0].value = 'tok';
    const r = await synthesizeFrom(h, JSON.stringify(har), { hints: { secrets: { account: alice } } });
    expect(r.status, r.text).toBe(200);
    const def = await definition(r.json.id);
    expect(def.engine).toBe('browser');
    expect(def.meta.decisions.engine.why).toMatch(/^the HTTP plan did not replay/);
    expect(def.meta.validation).toMatchObject({ replayed: true, http_replay: expect.stringMatching(/replaying the plan/) });
    const out = await go(r.json.id, { q: 'gamma' });
    expect(out.items.map((i: any) => i.item_id)).toEqual([3, 8, 13, 18, 23, 28, 33, 38]);
  });
});

describe.each(await backends())('prefer_browser without an action log (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let alice: string;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend);
    alice = await loginSecret(h, 'alice', 'wonderland');
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('an uploaded HAR (no action log) with prefer_browser is a 422 at stage browser, nothing published', async () => {
    const before = (await h.api('GET', '/v1beta/connectors')).json;
    const r = await synthesizeFrom(h, fixtureHar('d-list-detail', site.url), {
      hints: { secrets: { account: alice }, prefer_browser: true },
    });
    expect(r.status, r.text).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'recording_file_id'], ctx: { stage: 'browser' } });
    expect(r.json.detail[0].msg).toMatch(/prefer_browser.*no action log/);
    expect((await h.api('GET', '/v1beta/connectors')).json).toEqual(before);
  });
});
