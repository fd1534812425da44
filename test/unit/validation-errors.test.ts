// The 422 mapping: ajv errors → FastAPI/pydantic v2 entries (loc, msg, type, input, ctx).
import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { makeValidatorCompiler } from '../../src/http/validation.js';
import { ajvToEntries, redactEntries } from '../../src/http/errors.js';

const compile = makeValidatorCompiler();

function errorsFor(schema: object, part: 'body' | 'querystring' | 'params', data: unknown) {
  const v = compile({ schema, httpPart: part, method: 'POST', url: '/' } as any) as any;
  const ok = v(data);
  return ok ? [] : ajvToEntries(v.errors, part, data);
}

const Body = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 5 }),
    size_bytes: Type.Integer({ minimum: 0 }),
    kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
    source: Type.Optional(Type.String({ enum: ['UPLOAD', 'RUN_OUTPUT'] })),
    tags: Type.Optional(Type.Array(Type.Object({ k: Type.String() }, { additionalProperties: false }))),
  },
  { additionalProperties: false },
);

describe('422 mapping', () => {
  it('reports missing fields with the parent object as input', () => {
    expect(errorsFor(Body, 'body', { name: 'x' })).toEqual([
      { loc: ['body', 'size_bytes'], msg: 'Field required', type: 'missing', input: { name: 'x' } },
    ]);
  });

  it('reports a missing body as missing at ["body"]', () => {
    expect(errorsFor(Body, 'body', undefined)).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }]);
  });

  it('reports every error at once, one per location', () => {
    const e = errorsFor(Body, 'body', { name: '', size_bytes: -1, extra: 1 });
    expect(e.map((x) => [x.loc.join('.'), x.type])).toEqual(
      expect.arrayContaining([
        ['body.name', 'string_too_short'],
        ['body.size_bytes', 'greater_than_equal'],
        ['body.extra', 'extra_forbidden'],
      ]),
    );
    expect(e).toHaveLength(3);
    expect(e.find((x) => x.type === 'greater_than_equal')).toMatchObject({
      input: -1,
      ctx: { ge: 0 },
      msg: 'Input should be greater than or equal to 0',
    });
    expect(e.find((x) => x.type === 'string_too_short')).toMatchObject({
      msg: 'String should have at least 1 character',
      ctx: { min_length: 1 },
    });
  });

  it('maps lengths, types and enums like pydantic', () => {
    expect(errorsFor(Body, 'body', { name: 'toolong', size_bytes: 1 })[0]).toMatchObject({
      type: 'string_too_long',
      ctx: { max_length: 5 },
    });
    expect(errorsFor(Body, 'body', { name: 5, size_bytes: 1 })[0]).toMatchObject({ type: 'string_type', loc: ['body', 'name'] });
    expect(errorsFor(Body, 'body', { name: 'a', size_bytes: 1.5 })[0]).toMatchObject({ type: 'int_from_float' });
    expect(errorsFor(Body, 'body', { name: 'a', size_bytes: '5' })[0]).toMatchObject({ type: 'int_parsing' });
    expect(errorsFor(Body, 'body', { name: 'a', size_bytes: 1, source: 'X' })[0]).toMatchObject({
      type: 'enum',
      msg: "Input should be 'UPLOAD' or 'RUN_OUTPUT'",
      ctx: { expected: "'UPLOAD' or 'RUN_OUTPUT'" },
    });
  });

  it('uses integer indices inside arrays', () => {
    const e = errorsFor(Body, 'body', { name: 'a', size_bytes: 1, tags: [{ k: 'x' }, { k: 1 }] });
    expect(e[0].loc).toEqual(['body', 'tags', 1, 'k']);
  });

  it('coerces and checks query parameters', () => {
    const Q = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) });
    expect(errorsFor(Q, 'querystring', { limit: '50' })).toEqual([]);
    expect(errorsFor(Q, 'querystring', { limit: 'abc' })[0]).toMatchObject({ loc: ['query', 'limit'], type: 'int_parsing', input: 'abc' });
    expect(errorsFor(Q, 'querystring', { limit: '0' })[0]).toMatchObject({ type: 'greater_than_equal', ctx: { ge: 1 } });
    expect(errorsFor(Q, 'querystring', { limit: '101' })[0]).toMatchObject({ type: 'less_than_equal', ctx: { le: 100 } });
  });

  it('reports malformed UUIDs in the path', () => {
    const P = Type.Object({ id: Type.String({ format: 'uuid' }) });
    expect(errorsFor(P, 'params', { id: 'nope' })[0]).toMatchObject({ loc: ['path', 'id'], type: 'uuid_parsing', input: 'nope' });
  });

  it('never echoes credential fields', () => {
    const entries = [
      { loc: ['body', 'password'], msg: 'x', type: 'string_type', input: 'hunter2' },
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: { password: 'hunter2', value: 'v', other: 1 } },
    ];
    const r = redactEntries(entries, ['password', 'value']);
    expect(JSON.stringify(r)).not.toContain('hunter2');
    expect(r[0]).not.toHaveProperty('input');
    expect(r[1].input).toEqual({ other: 1 });
  });
});

describe('422 echo limits and request-wide rules (issue 9)', () => {
  it('truncates echoed input: strings 200 chars, depth 3, 10 items, 20 keys', async () => {
    const { truncateInput } = await import('../../src/http/errors.js');
    expect(truncateInput('x'.repeat(500))).toBe(`${'x'.repeat(200)}…`);
    expect(truncateInput({ a: { b: { c: { d: 1 } } } })).toEqual({ a: { b: { c: '{…} (1 keys)' } } });
    expect(truncateInput(Array.from({ length: 12 }, (_, i) => i))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, '… (2 more items)']);
    const wide = truncateInput(Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]))) as Record<string, unknown>;
    expect(Object.keys(wide)).toHaveLength(21);
    expect(wide['…']).toBe('5 more keys');
  });

  it('property: any input echoes as small, shallow JSON', async () => {
    const fc = (await import('fast-check')).default;
    const { truncateInput } = await import('../../src/http/errors.js');
    const depthOf = (v: unknown): number => (v && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (v) => {
        const t = truncateInput(v);
        expect(depthOf(t)).toBeLessThanOrEqual(3);
        expect(JSON.stringify(t).length).toBeLessThan(60_000);
      }),
      { numRuns: 300 },
    );
  });

  it('caps a 422 at 50 entries and 64 KB', async () => {
    const { capEntries } = await import('../../src/http/errors.js');
    const many = Array.from({ length: 500 }, (_, i) => ({ loc: ['body', `f${i}`], msg: 'm', type: 't', input: 'y'.repeat(5000) }));
    const capped = capEntries(many);
    expect(capped.length).toBeGreaterThan(0);
    expect(capped.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(capped).length).toBeLessThanOrEqual(64 * 1024);
    // The first entries survive, in order, with their echoes cut down.
    expect(capped[0].loc).toEqual(['body', 'f0']);
    expect(String(capped[0].input ?? '').length).toBeLessThan(5000);
  });

  it('finds NUL in strings and keys at any depth, iteratively', async () => {
    const { findNulBytes } = await import('../../src/lib/json-schema.js');
    expect(findNulBytes({ a: ['ok', 'b\u0000'], 'k\u0000': 1, 'x/y': { z: '\u0000' } })).toEqual(['/a/1', '/k\u0000', '/x~1y/z']);
    let deep: unknown = 'end\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findNulBytes(deep)).toHaveLength(1);
  });

  it('gives unbounded integers the int32 range; explicit bounds stay', () => {
    const e = errorsFor(Type.Object({ v: Type.Integer(), l: Type.Integer({ maximum: 5 }) }), 'querystring', { v: '2147483648', l: '6' });
    expect(e).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['query', 'v'], type: 'less_than_equal', ctx: { le: 2147483647 } }),
        expect.objectContaining({ loc: ['query', 'l'], type: 'less_than_equal', ctx: { le: 5 } }),
      ]),
    );
  });

  it('rejects JSON nested deeper than 128 levels, counting only brackets outside strings', async () => {
    const { depthExceeded } = await import('../../src/http/json-body.js');
    expect(depthExceeded('['.repeat(128) + ']'.repeat(128), 128)).toBe(-1);
    expect(depthExceeded('['.repeat(129) + ']'.repeat(129), 128)).toBe(128);
    expect(depthExceeded(`{"a": "${'['.repeat(500)}\\""}`, 128)).toBe(-1);
  });
});
