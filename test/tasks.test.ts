// /v1beta/tasks: create, list, get, retry and delete rules of the task-based family, its 422s
// (UUID paths, schema strings, secrets), and isolation between users. The whole lifecycle with a
// real browser is in tasks-lifecycle.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { deref, oneOfNames } from './helpers/openapi.js';

const INPUT = JSON.stringify({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'] });
const OUTPUT = JSON.stringify({ type: 'object', properties: { items: { type: 'array' } } });
const task = (over: Record<string, unknown> = {}) => ({
  display_name: 'Search the shop',
  task: 'Log in and search the shop for a word; return the matching items',
  website: 'http://127.0.0.1:9/login',
  ...over,
});

describe.each(await backends())('tasks (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  it('creates a not_ready task that echoes its creation parameters', async () => {
    const s = await h.api('POST', '/v1beta/secrets', { name: 'shop', secret_type: 'login', username: 'alice', password: 'wonderland' });
    const r = await h.api(
      'POST',
      '/v1beta/tasks',
      task({ secrets: [{ secret_uuid: s.json.id, description: 'shop login' }], secret_bindings: { shop: s.json.id } }),
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      current_state: 'not_ready',
      display_name: 'Search the shop',
      website: 'http://127.0.0.1:9/login',
      input_schema: null,
      output_schema: null,
      required_secrets: [],
      creation: {
        auto_generate_schemas: true,
        secrets: [{ secret_uuid: s.json.id, description: 'shop login' }],
        secret_bindings: { shop: s.json.id },
      },
    });
    expect(r.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.failure_info).toBeUndefined();
    expect((await h.api('GET', `/v1beta/tasks/${r.json.id}`)).json).toEqual(r.json);
  });

  it('keeps given schemas as strings when auto_generate_schemas is false, and requires both', async () => {
    const r = await h.api('POST', '/v1beta/tasks', task({ auto_generate_schemas: false, input_schema: INPUT, output_schema: OUTPUT }));
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ input_schema: INPUT, output_schema: OUTPUT, creation: { auto_generate_schemas: false } });
    const missing = await h.api('POST', '/v1beta/tasks', task({ auto_generate_schemas: false, input_schema: INPUT }));
    expect(missing.status).toBe(422);
    expect(missing.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'output_schema'], type: 'missing' })]);
  });

  it('answers 422 for every broken rule at once', async () => {
    const r = await h.api('POST', '/v1beta/tasks', { display_name: '', website: 'x'.repeat(2084), extra: 1 });
    expect(r.status).toBe(422);
    const locs = r.json.detail.map((d: any) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.display_name', 'body.task', 'body.website', 'body.extra']));
    const types = Object.fromEntries(r.json.detail.map((d: any) => [d.loc.join('.'), d.type]));
    expect(types).toMatchObject({
      'body.display_name': 'string_too_short',
      'body.task': 'missing',
      'body.website': 'string_too_long',
      'body.extra': 'extra_forbidden',
    });

    const notUri = await h.api('POST', '/v1beta/tasks', task({ website: 'not a url' }));
    expect(notUri.status).toBe(422);
    expect(notUri.json.detail[0].loc).toEqual(['body', 'website']);

    const badSchemas = await h.api('POST', '/v1beta/tasks', task({ input_schema: '{not json', output_schema: '[1]' }));
    expect(badSchemas.status).toBe(422);
    expect(badSchemas.json.detail.map((d: any) => d.loc)).toEqual([
      ['body', 'input_schema'],
      ['body', 'output_schema'],
    ]);
    const notASchema = await h.api('POST', '/v1beta/tasks', task({ input_schema: JSON.stringify({ type: 'no-such-type' }) }));
    expect(notASchema.status).toBe(422);
    expect(notASchema.json.detail[0].msg).toMatch(/not a valid JSON Schema/);
  });

  it('accepts only the caller’s secrets in secrets and secret_bindings', async () => {
    const other = await h.newUser('stranger');
    const theirs = await h.api('POST', '/v1beta/secrets', { name: 'x', secret_type: 'string', value: 'v' }, other.key);
    const unknown = '0190aaaa-0000-7000-8000-000000000000';
    const r = await h.api(
      'POST',
      '/v1beta/tasks',
      task({ secrets: [{ secret_uuid: theirs.json.id, description: 'd' }], secret_bindings: { shop: unknown } }),
    );
    expect(r.status).toBe(422);
    expect(r.json.detail.map((d: any) => d.loc)).toEqual([
      ['body', 'secrets', 0, 'secret_uuid'],
      ['body', 'secret_bindings', 'shop'],
    ]);
    const notUuid = await h.api('POST', '/v1beta/tasks', task({ secrets: [{ secret_uuid: 'abc', description: 'd' }] }));
    expect(notUuid.status).toBe(422);
    expect(notUuid.json.detail[0].loc).toEqual(['body', 'secrets', 0, 'secret_uuid']);
    const before = (await h.api('GET', '/v1beta/tasks?limit=100')).json.data.length;
    expect(before).toBeGreaterThan(0);
    // Nothing was written by the refused requests.
    expect((await h.api('GET', '/v1beta/tasks?limit=100')).json.data.every((t: any) => t.display_name === 'Search the shop')).toBe(true);
  });

  it('lists newest first and walks with limit=1 visiting each task once', async () => {
    const u = await h.newUser('lister');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await h.api('POST', '/v1beta/tasks', task({ display_name: `t${i}` }), u.key)).json.id);
    const all = await h.api('GET', '/v1beta/tasks', undefined, u.key);
    expect(all.json).toMatchObject({ has_more: false, next_cursor: null });
    expect(all.json.data.map((t: any) => t.id)).toEqual([...ids].reverse());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await h.api('GET', `/v1beta/tasks?limit=1${cursor ? `&cursor=${cursor}` : ''}`, undefined, u.key);
      expect(page.status).toBe(200);
      seen.push(...page.json.data.map((t: any) => t.id));
      cursor = page.json.next_cursor;
      if (seen.length === 1) ids.push((await h.api('POST', '/v1beta/tasks', task({ display_name: 'late' }), u.key)).json.id);
    } while (cursor);
    expect(seen).toEqual([...ids.slice(0, 4)].reverse());
    expect((await h.api('GET', '/v1beta/tasks?limit=0', undefined, u.key)).status).toBe(422);
    expect((await h.api('GET', '/v1beta/tasks?limit=101', undefined, u.key)).status).toBe(422);
  });

  it('answers 422 at ["path","id"] for non-UUID ids and 404 for unknown or another user’s task', async () => {
    const mine = (await h.api('POST', '/v1beta/tasks', task())).json.id;
    const other = await h.newUser('other');
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/retry'],
      ['POST', '/start-manual-session'],
    ] as const) {
      const bad = await h.api(method, `/v1beta/tasks/not-a-uuid${suffix}`);
      expect(bad.status, `${method} ${suffix}`).toBe(422);
      expect(bad.json.detail[0]).toMatchObject({ loc: ['path', 'id'], type: 'uuid_parsing' });
      expect((await h.api(method, `/v1beta/tasks/0190aaaa-0000-7000-8000-000000000000${suffix}`)).status).toBe(404);
      expect((await h.api(method, `/v1beta/tasks/${mine}${suffix}`, undefined, other.key)).status).toBe(404);
    }
    expect((await h.api('GET', '/v1beta/tasks', undefined, other.key)).json.data).toEqual([]);
    expect((await h.api('GET', `/v1beta/tasks/${mine}`)).status).toBe(200);
  });

  it('retries only failed tasks (409 otherwise)', async () => {
    const t = (await h.api('POST', '/v1beta/tasks', task())).json;
    const r = await h.api('POST', `/v1beta/tasks/${t.id}/retry`);
    expect(r.status).toBe(409);
    expect(r.json.detail).toMatch(/not_ready/);
  });

  it('deletes a task: {id, deleted: true}, then 404', async () => {
    const t = (await h.api('POST', '/v1beta/tasks', task())).json;
    const d = await h.api('DELETE', `/v1beta/tasks/${t.id}`);
    expect(d.status).toBe(200);
    expect(d.json).toEqual({ id: t.id, deleted: true });
    expect((await h.api('GET', `/v1beta/tasks/${t.id}`)).status).toBe(404);
    expect((await h.api('DELETE', `/v1beta/tasks/${t.id}`)).status).toBe(404);
  });

  it('documents the family in OpenAPI, marking extensions', async () => {
    const doc = (await h.api('GET', '/openapi.json')).json;
    expect(doc.paths['/v1beta/tasks'].post['x-extension']).toBe(true);
    expect(doc.paths['/v1beta/tasks/{id}/retry'].post['x-extension']).toBeUndefined();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1beta/tasks/{id}', '/v1beta/tasks/{id}/start-manual-session']));
    // Both shapes of POST /v1beta/runs and of the POST /v1beta/secrets response.
    const runs = doc.paths['/v1beta/runs'].post;
    const reqShapes = runs.requestBody.content['application/json'].schema.oneOf;
    expect(reqShapes.map((x: any) => deref(doc, x).title)).toEqual(['CreateRunRequest', 'CreateTaskRunRequest']);
    expect(oneOfNames(runs.responses['200'].content['application/json'].schema)).toEqual(['Run', 'TaskBasedRun']);
    const secretShapes = doc.paths['/v1beta/secrets'].post.responses['200'].content['application/json'].schema;
    expect(oneOfNames(secretShapes)).toEqual(['Secret', 'TaskBasedSecret']);
  });

  it('refuses a task-based run of a task that is not ready (409) and validates its body', async () => {
    const t = (await h.api('POST', '/v1beta/tasks', task())).json;
    const r = await h.api('POST', '/v1beta/runs', { task_id: t.id, arguments: {} });
    expect(r.status).toBe(409);
    expect(r.json.detail).toMatch(/not_ready/);
    const bad = await h.api('POST', '/v1beta/runs', { task_id: 'nope', arguments: [], extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d: any) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.task_id', 'body.arguments', 'body.extra']),
    );
    expect((await h.api('POST', '/v1beta/runs', { task_id: '0190aaaa-0000-7000-8000-000000000000' })).status).toBe(404);
    // Neither id: the connector shape's own error.
    const neither = await h.api('POST', '/v1beta/runs', { arguments: {} });
    expect(neither.status).toBe(422);
    expect(neither.json.detail[0]).toMatchObject({ loc: ['body', 'connector_id'], type: 'missing' });
  });
});
