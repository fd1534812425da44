// auto_generate_schemas: false — a synthesized connector must fit the task's own schemas: its
// arguments declared by the given input_schema, the result fields the given output_schema
// requires produced by the recorded flow (src/modules/tasks/given-schemas.ts).
import { describe, expect, it } from 'vitest';
import { checkGivenSchemas } from '../../src/modules/tasks/given-schemas.js';

const built = {
  input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  output_schema: { type: 'object', properties: { items: { type: 'array' }, total: { type: 'integer' } } },
};

describe('given schemas of a task', () => {
  it('accepts schemas the recorded flow fits (extra declared arguments are fine)', () => {
    const input = { type: 'object', properties: { q: { type: 'string' }, page: { type: 'integer' } } };
    const output = { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] };
    expect(checkGivenSchemas(built, input, output)).toBeNull();
    expect(checkGivenSchemas(built, null, null)).toBeNull();
  });

  it('names the arguments the given input_schema lacks and the required fields the flow does not yield', () => {
    const input = { type: 'object', properties: { query: { type: 'string' } } };
    const output = { type: 'object', required: ['items', 'next_page'] };
    const msg = checkGivenSchemas(built, input, output)!;
    expect(msg).toContain('argument(s) q that the given input_schema does not declare');
    expect(msg).toContain('requires next_page, which the recorded result does not contain');
    expect(msg).not.toContain('items,');
    expect(checkGivenSchemas(built, input, null)).toMatch(/argument\(s\) q/);
    expect(checkGivenSchemas(built, null, output)).toMatch(/requires next_page/);
  });
});
