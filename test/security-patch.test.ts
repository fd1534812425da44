// `$patch` (read-modify-write) through the real server and sandbox, with a hostile definition and
// a hostile site: a key that would reach a prototype is refused at publish time; a site whose
// document carries its own `__proto__` key, or a definition that walks into a scalar or names a
// record that isn't there, ends the run with a clear error — and the next run of the same worker
// pool sees no polluted prototype.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { publish, run } from './helpers/runs.js';

// (Written as text: a JSON document whose `__proto__` is an own key, as JSON.parse reads it.)
const DOC = '{"__proto__":{"polluted":"yes"},"version":3,"items":[{"id":7,"name":"pear"},{"id":8,"name":"plum"}]}';

describe.each(await backends())('$patch against hostile input (%s)', (backend) => {
  let h: Harness;
  let site: http.Server;
  let base = '';
  const puts: string[] = [];
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.method === 'PUT') puts.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(req.method === 'PUT' ? '{"ok":true}' : DOC);
      });
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    h = await startHarness(backend);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    site?.close();
  });

  const definition = (set: unknown[]) => ({
    format: 'connector-definition/v1',
    engine: 'http',
    base_url: base,
    steps: [
      { id: 'read', url: '/config', extract: { doc: { from: 'json', path: '$' } } },
      {
        id: 'write',
        method: 'PUT',
        url: '/config',
        body: { json: { $patch: '{{vars.doc}}', set } },
        extract: { ok: { from: 'json', path: '$.ok' } },
      },
    ],
    result: { ok: '{{vars.ok}}', probe: '{{vars.doc.polluted}}' },
  });
  const connector = (set: unknown[]) =>
    publish(h, {
      definition: definition(set),
      input_schema: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
    });

  it('a key that reaches a prototype is refused at publish time', async () => {
    for (const at of [
      ['__proto__', 'polluted'],
      ['items', 'constructor', 'prototype'],
    ]) {
      const r = await h.api('POST', '/v1beta/connectors', {
        display_name: 'x',
        purpose: 'x',
        input_schema: { type: 'object' },
        output_schema: {},
        definition: definition([{ at, value: true }]),
      });
      expect(r.status, JSON.stringify(at)).toBe(422);
      expect(r.json.detail[0].loc).toEqual(['body', 'definition', 'steps', 1, 'body', 'json', 'set', 0, 'at']);
    }
  });

  it("edits the record the arguments name in the site's own document; its __proto__ key stays data", async () => {
    const c = await connector([{ at: ['items', { id: '{{args.id}}' }, 'name'], value: '{{args.name}}' }]);
    puts.length = 0;
    const out = await run(h, { connector_id: c.id, arguments: { id: '8', name: 'damson' } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.ok).toBe(true);
    const sent = JSON.parse(puts[0]!);
    expect(sent.items).toEqual([
      { id: 7, name: 'pear' },
      { id: 8, name: 'damson' },
    ]);
    expect(sent.version).toBe(3);
    expect(puts[0]).toContain('"__proto__":{"polluted":"yes"}'); // (sent back as the site's own data)
  });

  it('a record that is not there, or a path through a scalar, is invalid_input; the workers stay clean', async () => {
    const missing = await connector([{ at: ['items', { id: '{{args.id}}' }, 'name'], value: 'x' }]);
    const a = await run(h, { connector_id: missing.id, arguments: { id: '99' } });
    expect(a.status).toBe('connector_error');
    expect(a.error).toMatchObject({ type: 'invalid_input', message: expect.stringContaining('no items record(s) with id = "99"') });
    const scalar = await connector([{ at: ['version', 'deep'], value: 'x' }]);
    const b = await run(h, { connector_id: scalar.id, arguments: {} });
    expect(b.error).toMatchObject({ type: 'invalid_input', message: expect.stringContaining('the document has no version') });
    // (Runs after the hostile document: a fresh object in the sandbox has no `polluted`.)
    const fine = await connector([{ at: ['items', 0, 'name'], value: 'quince' }]);
    const c = await run(h, { connector_id: fine.id, arguments: {} });
    expect(c.status, JSON.stringify(c.error)).toBe('success');
    // (The document's `polluted` sits under its own `__proto__` key: reaching it through the
    // prototype chain would mean the sandbox's Object.prototype was changed.)
    expect(c.result.probe ?? null).toBeNull();
  });
});
