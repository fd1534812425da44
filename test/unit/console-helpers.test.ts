// The console's pure helpers (src/console/web): the 422 → field mapping, the arguments a generated
// form sends, the version diff, and the CRC32C the upload page compares with the service's.
import { crc32c as nativeCrc32c } from '@node-rs/crc32';
import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../../src/console/web/api.js';
import { crc32c, crc32cBase64 } from '../../src/console/web/crc32c.js';
import { lineDiff } from '../../src/console/web/diff.js';
import { collectArguments, initialValues } from '../../src/console/web/schema-form.js';

const SCHEMA = {
  properties: {
    query: { type: 'string', minLength: 1 },
    page_size: { type: 'integer', default: 5 },
    price: { type: ['number', 'null'] },
    sort: { type: 'string', enum: ['asc', 'desc'] },
    level: { type: 'integer', enum: [1, 2, 3] },
    in_stock: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    ids: { type: 'array', items: { type: 'integer' }, examples: [[1, 2]] },
  },
  required: ['query'],
};

describe('console: generated run form', () => {
  it('starts from defaults (or recorded examples) and sends typed values, leaving empty optional fields out', () => {
    const v = initialValues(SCHEMA as any);
    expect(v).toMatchObject({ query: '', page_size: '5', in_stock: false, tags: '', ids: '' });
    expect(initialValues(SCHEMA as any, true).ids).toBe('1\n2');
    expect(collectArguments(SCHEMA as any, v)).toEqual({ query: '', page_size: 5, in_stock: false });
    const filled = { ...v, query: 'gamma', price: '2.5', sort: 'desc', level: '2', in_stock: true, tags: 'a\n\nb', ids: '3\n4' };
    expect(collectArguments(SCHEMA as any, filled)).toEqual({
      query: 'gamma',
      page_size: 5,
      price: 2.5,
      sort: 'desc',
      level: 2,
      in_stock: true,
      tags: ['a', 'b'],
      ids: [3, 4],
    });
  });

  it('sends what is not a number as typed, so the API says what is wrong at the field', () => {
    expect(collectArguments(SCHEMA as any, { query: 'x', page_size: 'ten' })).toMatchObject({ page_size: 'ten' });
  });

  it('maps 422 problems to the fields their loc names; the rest stays a list', () => {
    const problems = [
      { loc: ['body', 'arguments', 'page_size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
      { loc: ['body', 'arguments', 'page_size'], msg: 'second', type: 'x' },
      { loc: ['body', 'secret_bindings', 'account'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'max_timeout_s'], msg: 'too big', type: 'less_than_equal' },
    ];
    const args = fieldErrors(problems, ['body', 'arguments']);
    expect(args.fields).toEqual({ page_size: 'Input should be greater than or equal to 1; second' });
    const slots = fieldErrors(args.rest, ['body', 'secret_bindings']);
    expect(slots.fields).toEqual({ account: 'Field required' });
    expect(slots.rest.map((p) => p.msg)).toEqual(['too big']);
  });
});

describe('console: version diff', () => {
  it('marks added and removed lines and folds long unchanged runs', () => {
    const a = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const b = [...a];
    b[10] = 'line 10 changed';
    b.splice(20, 1);
    b.push('new last');
    const d = lineDiff(a.join('\n'), b.join('\n'), 2);
    expect(d.filter((l) => l.kind === '-').map((l) => l.text)).toEqual(['line 10', 'line 20']);
    expect(d.filter((l) => l.kind === '+').map((l) => l.text)).toEqual(['line 10 changed', 'new last']);
    expect(d[0]).toEqual({ kind: '…', text: '' });
    expect(d.length).toBeLessThan(20);
  });

  it('says nothing changed for equal texts', () => {
    expect(lineDiff('a\nb', 'a\nb').every((l) => l.kind === '…')).toBe(true);
  });
});

describe('console: CRC32C', () => {
  it('equals the native CRC32C the service uses, also when read in slices', () => {
    const bytes = Buffer.from(Array.from({ length: 100_003 }, (_, i) => (i * 31) & 0xff));
    const whole = crc32c(bytes);
    expect(whole).toBe(nativeCrc32c(bytes) >>> 0);
    expect(crc32c(bytes.subarray(50_000), crc32c(bytes.subarray(0, 50_000)))).toBe(whole);
    const be = Buffer.alloc(4);
    be.writeUInt32BE(whole);
    expect(crc32cBase64(whole)).toBe(be.toString('base64'));
  });
});
