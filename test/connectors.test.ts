// /v1beta/connectors: publish with definition validation, revisions, definition by version,
// listing (cursor, domain filter), rename, delete, isolation between users.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { httpSearchDefinition, LOGIN_SLOT, SEARCH_INPUT, SEARCH_OUTPUT } from './fixtures/definitions.js';

const body = (over: Record<string, unknown> = {}) => ({
  display_name: 'Demo search',
  purpose: 'Search the demo shop',
  website: 'https://shop.example.com',
  definition: httpSearchDefinition('http://127.0.0.1:9'),
  input_schema: SEARCH_INPUT,
  output_schema: SEARCH_OUTPUT,
  required_secrets: [LOGIN_SLOT],
  ...over,
});

describe.each(await backends())('connectors (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  it('publishes version 1, revises to version 2 with the same id, serves each definition', async () => {
    const r = await h.api('POST', '/v1beta/connectors', body());
    expect(r.status, r.text).toBe(200);
    const c = r.json;
    expect(c).toMatchObject({
      display_name: 'Demo search',
      version: 1,
      website: 'https://shop.example.com',
      required_secrets: [{ ...LOGIN_SLOT }],
    });
    expect(c.input_schema).toEqual(SEARCH_INPUT);
    const def2 = httpSearchDefinition('http://127.0.0.1:10');
    const r2 = await h.api('POST', `/v1beta/connectors/${c.id}/revisions`, {
      definition: def2,
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    expect(r2.status, r2.text).toBe(200);
    expect(r2.json).toMatchObject({ id: c.id, version: 2, display_name: 'Demo search', purpose: 'Search the demo shop' });
    expect((await h.api('GET', `/v1beta/connectors/${c.id}`)).json.version).toBe(2);
    expect((await h.api('GET', `/v1beta/connectors/${c.id}/definition?version=1`)).json.definition.base_url).toBe('http://127.0.0.1:9');
    expect((await h.api('GET', `/v1beta/connectors/${c.id}/definition`)).json).toMatchObject({
      version: 2,
      definition: { base_url: 'http://127.0.0.1:10' },
    });
    expect((await h.api('GET', `/v1beta/connectors/${c.id}/definition?version=3`)).status).toBe(404);
    const revs = await h.api('GET', `/v1beta/connectors/${c.id}/revisions`);
    expect(revs.json.data.map((x: any) => x.version)).toEqual([2, 1]);
    expect(revs.json.data[0]).toEqual((await h.api('GET', `/v1beta/connectors/${c.id}`)).json);
  });

  it('rejects bad definitions with precise locations, all at once, writing nothing', async () => {
    const before = (await h.api('GET', '/v1beta/connectors?limit=100')).json.data.length;
    const def: any = httpSearchDefinition('http://x');
    def.steps[0].methd = 'GET';
    def.steps[0].extract.items.from = 'jsn';
    let r = await h.api('POST', '/v1beta/connectors', body({ definition: def }));
    expect(r.status).toBe(422);
    expect(r.json.detail.map((e: any) => e.loc)).toEqual([
      ['body', 'definition', 'steps', 0, 'methd'],
      ['body', 'definition', 'steps', 0, 'extract', 'items', 'from'],
    ]);
    const def2: any = httpSearchDefinition('http://x');
    def2.steps[0].query.q = '{{args.qury}}';
    def2.login.steps[1].body.form.password = '{{secrets.acct.password}}';
    def2.steps.push({ id: 'search', url: '/x' });
    def2.result.total = '{{vars.totl}}';
    r = await h.api('POST', '/v1beta/connectors', body({ definition: def2 }));
    expect(r.status).toBe(422);
    const locs = r.json.detail.map((e: any) => e.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining([
        'body.definition.steps.1.id',
        'body.definition.steps.0.query.q',
        'body.definition.login.steps.1.body.form.password',
        'body.definition.result.total',
      ]),
    );
    // TOTP on a slot that doesn't declare it; a string slot as login slot.
    r = await h.api('POST', '/v1beta/connectors', body({ required_secrets: [{ name: 'account', type: 'string' }] }));
    expect(r.status).toBe(422);
    expect(r.json.detail.map((e: any) => e.loc.join('.'))).toContain('body.definition.login.slot');
    r = await h.api(
      'POST',
      '/v1beta/connectors',
      body({ definition: { format: 'connector-definition/v1', engine: 'script', source: 'export default async (ctx) => { ctx.x( }' } }),
    );
    expect(r.status).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'definition', 'source'], type: 'value_error' });
    r = await h.api('POST', '/v1beta/connectors', body({ input_schema: { type: 'string' } }));
    expect(r.json.detail[0].loc).toEqual(['body', 'input_schema']);
    r = await h.api('POST', '/v1beta/connectors', { display_name: 'x', purpose: 'y', capture_session_id: 'abc' });
    expect(r.status).toBe(422);
    expect(r.json.detail[0].loc).toEqual(['body', 'capture_session_id']);
    expect(r.json.detail[0].msg).toMatch(/capture session/i);
    r = await h.api('POST', '/v1beta/connectors', { display_name: 'x', purpose: 'y' });
    expect(r.json.detail.map((e: any) => e.loc[1])).toEqual(['definition', 'input_schema', 'output_schema']);
    expect((await h.api('GET', '/v1beta/connectors?limit=100')).json.data.length).toBe(before);
  });

  it('lists newest first with cursors and filters by domain and subdomains, not look-alikes', async () => {
    const { key } = await h.newUser('lister');
    const sites = [
      'https://example.com/a',
      'shop.example.com',
      'https://notexample.com',
      'https://deep.api.example.com:8443/x',
      null,
      'https://example.org',
    ];
    const ids: string[] = [];
    for (const website of sites) ids.push((await h.api('POST', '/v1beta/connectors', body({ website }), key)).json.id);
    const walk: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await h.api('GET', `/v1beta/connectors?limit=4${cursor ? `&cursor=${cursor}` : ''}`, undefined, key)).json;
      walk.push(...page.data.map((c: any) => c.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(walk).toEqual([...ids].reverse());
    const dom = async (d: string) =>
      (await h.api('GET', `/v1beta/connectors?domain=${encodeURIComponent(d)}`, undefined, key)).json.data
        .map((c: any) => ids.indexOf(c.id))
        .sort();
    expect(await dom('example.com')).toEqual([0, 1, 3]);
    expect(await dom('EXAMPLE.com')).toEqual([0, 1, 3]);
    expect(await dom('api.example.com')).toEqual([3]);
    expect(await dom('notexample.com')).toEqual([2]);
    expect(await dom('ample.com')).toEqual([]);
  });

  it('renames, deletes, and hides connectors from other users', async () => {
    const c = (await h.api('POST', '/v1beta/connectors', body())).json;
    const other = await h.newUser('intruder');
    for (const [m, p, b] of [
      ['GET', `/v1beta/connectors/${c.id}`],
      ['PATCH', `/v1beta/connectors/${c.id}`, { display_name: 'x' }],
      ['GET', `/v1beta/connectors/${c.id}/revisions`],
      ['GET', `/v1beta/connectors/${c.id}/definition`],
      ['DELETE', `/v1beta/connectors/${c.id}`],
    ] as const) {
      expect((await h.api(m, p, b, other.key)).status).toBe(404);
    }
    expect((await h.api('GET', '/v1beta/connectors', undefined, other.key)).json.data).toEqual([]);
    const renamed = await h.api('PATCH', `/v1beta/connectors/${c.id}`, { display_name: 'Renamed' });
    expect(renamed.json).toMatchObject({ id: c.id, display_name: 'Renamed', version: 1 });
    expect((await h.api('PATCH', `/v1beta/connectors/${c.id}`, { display_name: '' })).json.detail[0].loc).toEqual(['body', 'display_name']);
    expect((await h.api('DELETE', `/v1beta/connectors/${c.id}`)).json).toEqual({ id: c.id, deleted: true });
    expect((await h.api('GET', `/v1beta/connectors/${c.id}`)).status).toBe(404);
    expect((await h.api('DELETE', `/v1beta/connectors/${c.id}`)).status).toBe(404);
    expect((await h.api('GET', `/v1beta/connectors/not-a-uuid`)).status).toBe(404);
  });
});

describe('connectors and runs in OpenAPI', () => {
  it('documents every route, marks the extensions, and describes Run and the proxy union', async () => {
    const h = await startHarness('sqlite');
    try {
      const doc = (await h.api('GET', '/openapi.json', undefined, null)).json;
      const ops: [string, string][] = [
        ['get', '/v1beta/connectors'],
        ['post', '/v1beta/connectors'],
        ['get', '/v1beta/connectors/{connector_id}'],
        ['patch', '/v1beta/connectors/{connector_id}'],
        ['delete', '/v1beta/connectors/{connector_id}'],
        ['get', '/v1beta/connectors/{connector_id}/revisions'],
        ['post', '/v1beta/connectors/{connector_id}/revisions'],
        ['get', '/v1beta/connectors/{connector_id}/definition'],
        ['get', '/v1beta/runs'],
        ['post', '/v1beta/runs'],
        ['get', '/v1beta/runs/{run_id}'],
        ['get', '/v1beta/runs/{run_id}/logs'],
      ];
      for (const [m, p] of ops) expect(doc.paths[p]?.[m], `${m} ${p}`).toBeDefined();
      const ext = ops.filter(([m, p]) => doc.paths[p][m]['x-extension'] === true).map(([m, p]) => `${m} ${p}`);
      expect(ext).toEqual([
        'post /v1beta/connectors',
        'post /v1beta/connectors/{connector_id}/revisions',
        'get /v1beta/connectors/{connector_id}/definition',
      ]);
      const post = doc.paths['/v1beta/runs'].post;
      expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '202', '422']));
      const text = JSON.stringify(doc);
      expect(text).toContain('"result_too_large"');
      expect(text).toContain('ResidentialProxy');
    } finally {
      await h.close();
    }
  });
});
