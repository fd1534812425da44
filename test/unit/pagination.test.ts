import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, toPage } from '../../src/lib/cursor.js';
import { InvalidInput } from '../../src/http/errors.js';

describe('cursors', () => {
  it('round-trip and are opaque', () => {
    const c = encodeCursor({ sort: 'created_at', order: 'desc', value: '2026-01-01T00:00:00.000Z', id: 'abc' });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c, 'created_at', 'desc')).toEqual({
      sort: 'created_at',
      order: 'desc',
      value: '2026-01-01T00:00:00.000Z',
      id: 'abc',
    });
  });

  it('reject garbage and cursors issued for another ordering with a 422 at query.cursor', () => {
    const c = encodeCursor({ sort: 'name', order: 'asc', value: 'a', id: 'x' });
    for (const bad of ['%%%', 'bm90IGpzb24', Buffer.from('[1,2]').toString('base64url')]) {
      expect(() => decodeCursor(bad, 'name', 'asc')).toThrow(InvalidInput);
    }
    try {
      decodeCursor(c, 'name', 'desc');
      expect.unreachable();
    } catch (e) {
      expect((e as InvalidInput).problems[0].loc).toEqual(['query', 'cursor']);
    }
    expect(decodeCursor(undefined, 'name', 'asc')).toBeNull();
  });

  it('toPage sets has_more and next_cursor from limit+1 rows', () => {
    const rows = [
      { id: 'a', v: 3 },
      { id: 'b', v: 2 },
      { id: 'c', v: 1 },
    ];
    const p = toPage(
      rows,
      2,
      'v',
      'desc',
      (r) => r.v,
      (r) => r.id,
    );
    expect(p.data).toEqual(['a', 'b']);
    expect(p.has_more).toBe(true);
    expect(decodeCursor(p.next_cursor!, 'v', 'desc', 'integer')).toMatchObject({ value: 2, id: 'b' });
    const last = toPage(
      rows.slice(2),
      2,
      'v',
      'desc',
      (r) => r.v,
      (r) => r.id,
    );
    expect(last).toEqual({ data: ['c'], has_more: false, next_cursor: null });
  });
});
