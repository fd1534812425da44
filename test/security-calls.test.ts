// The `calls` extractor (records an answer carries as code for the page to run) through the real
// server and sandbox, against a hostile site: code is never evaluated, a million nested calls or an
// unclosed one are read in one pass (the run ends well inside its time limit), the calls read from
// one answer are capped, and an argument's own `__proto__` key is data that pollutes nothing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CALLS } from '../src/runtime/worker/engines/js-calls.js';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { publish, run } from './helpers/runs.js';

const DEPTH = 1_000_000;
const ANSWERS: Record<string, () => string> = {
  // f(f(f(…f(1)…))): each call's argument list holds the next; read naively, quadratic.
  '/nested': () => `${'row('.repeat(DEPTH)}1${')'.repeat(DEPTH)}; row(2, {"name": "plum"});`,
  '/unclosed': () => `row(1, {"name": "pear"}); ${'row('.repeat(DEPTH)}`,
  '/many': () => 'row(7, {"name": "damson"});\n'.repeat(MAX_CALLS * 3),
  // Code that would run if anything evaluated it, and an argument with its own __proto__ key.
  '/hostile': () =>
    JSON.stringify({
      exec: 'row((function(){ globalThis.hacked = 1; return 1; })(), {"name": "evil"}); row(3, {"__proto__": {"polluted": "yes"}, "name": "pear"}); row(4, {"name": "plum"});',
    }),
};

describe.each(await backends())('calls extractor against hostile answers (%s)', (backend) => {
  let h: Harness;
  let site: http.Server;
  let base = '';
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const answer = Object.hasOwn(ANSWERS, req.url ?? '') ? ANSWERS[req.url!] : undefined;
      res
        .writeHead(answer ? 200 : 404, { 'content-type': req.url === '/hostile' ? 'application/json' : 'text/javascript' })
        .end(answer?.() ?? '');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    h = await startHarness(backend);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    site?.close();
  });

  const connector = (path: string, extra: Record<string, unknown> = {}) =>
    publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        base_url: base,
        steps: [
          {
            id: 'read',
            url: path,
            extract: {
              items: {
                from: 'calls',
                call: 'row',
                all: true,
                required: false,
                fields: { id: { arg: 0 }, name: { arg: 1, key: 'name', required: false } },
                ...extra,
              },
            },
          },
        ],
        result: { items: '{{vars.items}}' },
      },
      input_schema: { type: 'object', properties: {} },
    });

  it('a million nested calls, or an unclosed one, are read in one pass', async () => {
    const nested = await run(h, { connector_id: (await connector('/nested')).id, arguments: {} });
    expect(nested.status, JSON.stringify(nested.error)).toBe('success');
    // (The outermost call's arguments are no JSON: skipped, and the calls inside it are not read again.)
    expect(nested.result.items).toEqual([{ id: 2, name: 'plum' }]);
    const unclosed = await run(h, { connector_id: (await connector('/unclosed')).id, arguments: {} });
    expect(unclosed.status, JSON.stringify(unclosed.error)).toBe('success');
    expect(unclosed.result.items).toEqual([{ id: 1, name: 'pear' }]);
  });

  it('at most MAX_CALLS calls are read from one answer', async () => {
    const out = await run(h, { connector_id: (await connector('/many')).id, arguments: {} });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.items).toHaveLength(MAX_CALLS);
  });

  it("nothing is evaluated; an argument's own __proto__ key is data, and no prototype is polluted", async () => {
    const c = await connector('/hostile', {
      in: '$.exec',
      fields: { id: { arg: 0 }, name: { arg: 1, key: 'name' }, proto: { arg: 1, key: '__proto__', required: false } },
    });
    const out = await run(h, { connector_id: c.id, arguments: {} });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.items).toEqual([
      { id: 3, name: 'pear', proto: { polluted: 'yes' } },
      { id: 4, name: 'plum', proto: null },
    ]);
    // (A later run in the same sandbox pool: a fresh object has no `polluted`, nothing set `hacked`.)
    const again = await run(h, { connector_id: c.id, arguments: {} });
    expect(again.result.items[1]).toEqual({ id: 4, name: 'plum', proto: null });
    expect(JSON.stringify(again.result)).not.toContain('evil');
  });

  it('a call that is not a dotted name, an `in` that is no JSONPath, or a field named constructor is refused at publish time', async () => {
    for (const [extra, field] of [
      [{ call: 'row); alert(1' }, 'call'],
      [{ in: 'exec' }, 'in'],
      // (A field named like the prototype; `__proto__` itself is dropped by the body parser before.)
      [{ fields: { constructor: { arg: 0 } } }, 'constructor'],
      [{ fields: { prototype: { arg: 0 } } }, 'prototype'],
    ] as const) {
      const r = await h.api('POST', '/v1beta/connectors', {
        display_name: 'x',
        purpose: 'x',
        input_schema: { type: 'object' },
        output_schema: {},
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: base,
          steps: [{ id: 'read', url: '/hostile', extract: { items: Object.assign({ from: 'calls', call: 'row' }, extra) } }],
          result: { items: '{{vars.items}}' },
        },
      });
      expect(r.status, r.text).toBe(422);
      expect(r.json.detail[0].loc.at(-1)).toBe(field);
    }
  });
});
