// Acceptance on a third real application we did not write: MediaWiki (Debian package, SQLite;
// installed and seeded by scripts/acceptance-setup.sh). Each flow was recorded with Playwright's
// recordHar (test/fixtures/real/record.ts), uploaded, synthesized, replay-validated and published by
// the real server, then RUN with NEW arguments; results are checked against the wiki's own action
// API (its truth), never against what the recording held. Opt-in: ACCEPTANCE=1.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.js';
import { APPS, appInstalled, rebaseHar, serveApp } from '../helpers/real-apps.js';
import { loginSecret, run } from '../helpers/runs.js';
import { synthesizeFrom } from '../helpers/synth.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.mediawiki);
const FIX = path.join(__dirname, '../fixtures/real/mediawiki');

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on MediaWiki (%s)', (backend) => {
  let h: Harness;
  let mw: Awaited<ReturnType<typeof serveApp>>;
  const figures: { flow: string; synthMs: number; runMs: number; engine: string }[] = [];
  beforeAll(async () => {
    mw = await serveApp(APPS.mediawiki);
    h = await startHarness(backend);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await mw?.close();
    if (figures.length) console.log('[acceptance] mediawiki figures', JSON.stringify(figures));
  });

  /** The wiki's own truth, from its action API. */
  async function wikiApi(params: Record<string, string>): Promise<any> {
    const r = await fetch(`${mw.url}/api.php?${new URLSearchParams({ format: 'json', formatversion: '2', ...params })}`);
    return r.json();
  }
  const pageText = async (title: string) =>
    (await wikiApi({ action: 'query', prop: 'revisions', rvprop: 'content', rvslots: 'main', titles: title })).query.pages[0].revisions?.[0]
      ?.slots.main.content;

  async function flow(name: string, body: Record<string, unknown>, runBody: Record<string, unknown>) {
    const har = rebaseHar(fs.readFileSync(path.join(FIX, `${name}.har`), 'utf8'), APPS.mediawiki.recordedPort, mw.port);
    let t = Date.now();
    const r = await synthesizeFrom(h, har, body);
    const synthMs = Date.now() - t;
    expect(r.status, r.text).toBe(200);
    const def = await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`);
    t = Date.now();
    const out = await run(h, { connector_id: r.json.id, ...runBody });
    figures.push({ flow: name, synthMs, runMs: Date.now() - t, engine: def.json.definition?.engine });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    return { result: out.result, def: def.json };
  }

  it('search: the hits of a NEW query', async () => {
    const { result } = await flow('mw-search', { hints: { arguments: { query: 'orchard' } } }, { arguments: { query: 'yellow' } });
    const truth = (await wikiApi({ action: 'query', list: 'search', srsearch: 'yellow', srwhat: 'text' })).query.search.map(
      (s: any) => s.title,
    );
    expect(truth.length).toBeGreaterThan(0);
    expect(result.items.map((i: any) => i.title).sort()).toEqual(truth.sort());
    expect(result.items.find((i: any) => i.title === 'Banana').url).toMatch(/Banana$/);
  });

  it('a search that found ONE page (the person searched "malus"): every hit of a NEW query, as records', async () => {
    const { result } = await flow('mw-search-one', { hints: { arguments: { query: 'malus' } } }, { arguments: { query: 'orchard' } });
    const truth = (await wikiApi({ action: 'query', list: 'search', srsearch: 'orchard', srwhat: 'text', srlimit: '50' })).query.search.map(
      (s: any) => s.title,
    );
    expect(truth.length).toBeGreaterThan(3);
    // (MediaWiki lists 20 hits a page.)
    expect(result.items.map((i: any) => i.title).sort()).toEqual(truth.slice(0, 20).sort());
    expect(result.items.find((i: any) => i.title === 'Banana').url).toMatch(/Banana$/);
  });

  it('detail page: the infobox fields of ANOTHER page', async () => {
    const { result } = await flow(
      'mw-page',
      { hints: { arguments: { fruit: 'Cherry' }, result: ['Dark red'] } },
      { arguments: { fruit: 'Damson' } },
    );
    const text = await pageText('Damson');
    const cell = (label: string) => new RegExp(`\\| ${label} \\|\\| (.+)`).exec(text)![1].trim();
    expect(result).toEqual({
      title: 'Damson',
      colour: cell('Colour'),
      latin_name: cell('Latin name'),
      price_per_kg: Number(cell('Price per kg')),
    });
  });

  it('table page: every row keyed by the header cells', async () => {
    const { result } = await flow('mw-catalogue', {}, {});
    const rows = (await pageText('Fruit catalogue'))
      .split('\n')
      .filter((l: string) => l.startsWith('| [['))
      .map((l: string) => l.slice(2).split(' || '));
    expect(result.items.map((i: any) => [i.fruit, i.colour, i.price_per_kg, i.stock])).toEqual(
      rows.map(([f, c, p, n]: string[]) => [f.replace(/\[|\]/g, ''), c, Number(p), Number(n)]),
    );
    expect(result.items[0].fruit_url).toMatch(/Apple$/);
  });

  it('category: its member pages', async () => {
    const { result } = await flow('mw-category', {}, {});
    const truth = (await wikiApi({ action: 'query', list: 'categorymembers', cmtitle: 'Category:Fruit', cmlimit: '50' })).query
      .categorymembers;
    // Grouped under letter headings (two under B, two under C): every member is a record.
    expect(result.items.map((i: any) => i.title).sort()).toEqual(truth.map((m: any) => m.title).sort());
  });

  it('history: the person clicked "older 2" once; the connector follows the next-page link to the end', async () => {
    const { result, def } = await flow('mw-history', {}, {});
    expect(JSON.stringify(def)).toContain('"mode":"next_url"');
    // The wiki's truth: every revision of the page, newest first.
    const revs = (await wikiApi({ action: 'query', prop: 'revisions', titles: 'Harvest log', rvlimit: 'max', rvprop: 'ids|comment' })).query
      .pages[0].revisions;
    expect(revs.length).toBeGreaterThan(4);
    expect(result.items).toHaveLength(revs.length);
    revs.forEach((r: any, i: number) => {
      expect(JSON.stringify(result.items[i])).toContain(`oldid=${r.revid}`);
      expect(Object.values(result.items[i])).toContain(r.comment);
    });
  });

  it('create a page through the edit form (login, edit token): the run saves NEW text', async () => {
    const secret = await loginSecret(h, 'Editor', 'mw-editor-pass-1');
    const text = `Buy cherries ${Date.now()}`;
    await flow(
      'mw-create',
      {
        hints: {
          arguments: { text: 'Buy apples and pears', summary: 'first list' },
          secrets: { account: secret },
          allow_side_effects: true,
        },
      },
      { arguments: { text, summary: 'second list' }, secret_bindings: { account: secret } },
    );
    expect((await pageText('Shopping list'))?.trim()).toBe(text);
  });

  it('token-first action API: an edit with a fresh CSRF token saves NEW text on a NEW page', async () => {
    const secret = await loginSecret(h, 'Editor', 'mw-editor-pass-1');
    const title = `Todo ${Date.now()}`;
    await flow(
      'mw-api-edit',
      { hints: { arguments: { title: 'Todo list', text: 'Water the plants' }, secrets: { account: secret }, allow_side_effects: true } },
      { arguments: { title, text: 'Feed the cat' }, secret_bindings: { account: secret } },
    );
    expect((await pageText(title))?.trim()).toBe('Feed the cat');
  });
});
