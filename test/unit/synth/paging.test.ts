// Pagination the synthesizer reads off a recording beyond "page=1, page=2": a pager of numbered
// links first reached without its parameter (Django's admin: the list, then ?p=2, ?p=3), and an
// offset growing by the page size (offset=0, 25, 50).
import { describe, expect, it } from 'vitest';
import { detectPaging } from '../../../src/synth/target.js';
import type { Exchange } from '../../../src/synth/types.js';

/** A recorded GET of `url` answered with `text`. */
const exchange = (i: number, url: string, text: string, mime: string): Exchange =>
  ({ id: `e${i}`, index: i, method: 'GET', url, status: 200, mime, text, hops: [] }) as unknown as Exchange;
/** The same, answered with JSON. */
const ex = (i: number, url: string, body: unknown) => exchange(i, url, JSON.stringify(body), 'application/json');

describe('paging by a numbered pager reached first without its parameter', () => {
  const ex = (i: number, url: string) => exchange(i, url, '<p>x</p>', 'text/html');

  it('the list, then ?p=2 and ?p=3: page mode from p=1', () => {
    const all = [ex(0, 'http://x/books/'), ex(1, 'http://x/books/?p=2'), ex(2, 'http://x/books/?p=3')];
    expect(detectPaging(all[0]!, all).paging).toEqual({ mode: 'page', param: 'p', start: 1 });
    // 0-based pagers: the list, then page=1.
    const zero = [ex(0, 'http://x/books/'), ex(1, 'http://x/books/?page=1')];
    expect(detectPaging(zero[0]!, zero).paging).toEqual({ mode: 'page', param: 'page', start: 0 });
  });

  it('one more call with a parameter not named like a page number is no pager', () => {
    const all = [ex(0, 'http://x/books/'), ex(1, 'http://x/books/?id=5')];
    expect(detectPaging(all[0]!, all).paging).toBeNull();
  });
});

describe('paging by an offset that grows by the page size', () => {
  const page = (n: number) => ({ data: Array.from({ length: n }, (_, k) => ({ id: k })) });

  it('offset=0, 25, 50 with limit=25 (or 25 records a page): page mode by steps of 25', () => {
    const named = [0, 25, 50].map((o, i) => ex(i, `http://x/api/books?limit=25&offset=${o}`, page(25)));
    expect(detectPaging(named[0]!, named).paging).toEqual({ mode: 'page', param: 'offset', start: 0, step: 25 });
    const counted = [0, 10].map((o, i) => ex(i, `http://x/api/books?skip=${o}`, page(10)));
    expect(detectPaging(counted[0]!, counted).paging).toEqual({ mode: 'page', param: 'skip', start: 0, step: 10 });
  });

  it('numbers that grow by something nothing explains are no pager', () => {
    const odd = [5, 30].map((o, i) => ex(i, `http://x/api/books?id=${o}`, page(3)));
    expect(detectPaging(odd[0]!, odd).paging).toBeNull();
  });
});

describe("a list's pages among the app's other calls to the same path", () => {
  const list = (p: number) => `http://x/items/books?limit=25&fields[]=title&sort[]=id&page=${p}`;
  it('counts and lookups on the path are no pages, and a page loaded twice is one page', () => {
    const all = [
      ex(0, 'http://x/items/books?aggregate[count]=id', { data: [{ count: 46 }] }),
      ex(1, list(1), { data: [{ title: 'a' }] }),
      ex(2, 'http://x/items/books?aggregate[count]=id', { data: [{ count: 46 }] }),
      ex(3, list(1), { data: [{ title: 'a' }] }),
      ex(4, list(2), { data: [{ title: 'b' }] }),
    ];
    const got = detectPaging(all[3]!, all);
    expect(got.paging).toEqual({ mode: 'page', param: 'page', start: 1 });
    // The target stands for its page; the counts are not samples.
    expect(got.samples.map((x) => x.id)).toEqual(['e3', 'e4']);
  });
});
