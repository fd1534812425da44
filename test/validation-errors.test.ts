// The 422 mapping: ajv errors → FastAPI/pydantic v2 entries (loc, msg, type, input, ctx).
import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { makeValidatorCompiler } from '../src/http/validation.js';
import { ajvToEntries, redactEntries } from '../src/http/errors.js';

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
    expect(e.find((x) => x.type === 'greater_than_equal')).toMatchObject({ input: -1, ctx: { ge: 0 }, msg: 'Input should be greater than or equal to 0' });
    expect(e.find((x) => x.type === 'string_too_short')).toMatchObject({ msg: 'String should have at least 1 character', ctx: { min_length: 1 } });
  });

  it('maps lengths, types and enums like pydantic', () => {
    expect(errorsFor(Body, 'body', { name: 'toolong', size_bytes: 1 })[0]).toMatchObject({ type: 'string_too_long', ctx: { max_length: 5 } });
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
