// Pagination the synthesizer reads off a recording beyond "page=1, page=2": a pager of numbered
// links first reached without its parameter (Django's admin: the list, then ?p=2, ?p=3), and an
// offset growing by the page size (offset=0, 25, 50).
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../src/formats/definition/validate.js';
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

describe('pages asked for in a JSON body (a POST search, GraphQL variables)', () => {
  /** A POST of `body` to one endpoint, answered with `answer`. */
  const post = (i: number, body: unknown, answer: unknown) =>
    ({
      id: `e${i}`,
      index: i,
      method: 'POST',
      url: 'http://x/graphql',
      status: 200,
      mime: 'application/json',
      text: JSON.stringify(answer),
      body: { mime: 'application/json', text: JSON.stringify(body) },
      hops: [],
    }) as unknown as Exchange;
  const q = (vars: Record<string, unknown>) => ({
    operationName: 'Feed',
    query: 'query Feed { … }',
    variables: { search: 'pear', first: 2, ...vars },
  });
  const other = post(0, { operationName: 'Me', query: 'query Me { me { name } }', variables: {} }, { data: { me: { name: 'Ann' } } });

  it('a cursor from the answer before, the first page sending none: cursor mode on the body leaf', () => {
    const all = [
      other,
      post(1, q({}), { data: { feed: { nodes: [{ id: 1 }, { id: 2 }], endCursor: 'Y3Vyc29yOjI=' } } }),
      post(2, q({ after: 'Y3Vyc29yOjI=' }), { data: { feed: { nodes: [{ id: 3 }, { id: 4 }], endCursor: 'Y3Vyc29yOjQ=' } } }),
      post(3, q({ after: 'Y3Vyc29yOjQ=' }), { data: { feed: { nodes: [{ id: 5 }], endCursor: null } } }),
    ];
    const { paging, samples } = detectPaging(all[3]!, all);
    expect(paging).toEqual({ mode: 'cursor', param: 'variables.after', nextPath: ['data', 'feed', 'endCursor'], in: 'json' });
    // (The call that sent the cursor first is the step: its body holds the leaf to template.)
    expect(samples.map((s) => s.id)).toEqual(['e2', 'e3']);
  });

  it('a page number counting up from 1 (first page without it): page mode from 1', () => {
    const all = [
      other,
      post(1, q({}), { items: [1, 2] }),
      post(2, q({ page: 2 }), { items: [3, 4] }),
      post(3, q({ page: 3 }), { items: [5] }),
    ];
    expect(detectPaging(all[1]!, all).paging).toEqual({ mode: 'page', param: 'variables.page', start: 1, in: 'json' });
  });

  it('a leaf that changes in steps nothing names (a timestamp, a random seed) is no pager', () => {
    const all = [other, post(1, q({ seed: 17 }), { items: [1] }), post(2, q({ seed: 34 }), { items: [1] })];
    expect(detectPaging(all[1]!, all).paging).toBeNull();
  });
});

describe('a paginated step without a query parameter', () => {
  const def = (body: unknown) => ({
    format: 'connector-definition/v1',
    engine: 'http',
    base_url: 'http://x',
    steps: [
      {
        id: 's',
        method: 'POST',
        url: '/graphql',
        body: { json: body },
        extract: { items: { from: 'json', path: '$.items[*]', all: true } },
        paginate: { mode: 'page', start: 0, step: 2, stop_when_empty: 'items' },
      },
    ],
    result: { items: '{{vars.items}}' },
  });
  it('is valid when its request reads {{page.number}}, and names the missing param otherwise', () => {
    expect(
      validateDefinition(def({ skip: '{{page.number}}' }), { inputSchema: { type: 'object', properties: {} }, requiredSecrets: [] }),
    ).toEqual([]);
    const problems = validateDefinition(def({ skip: 0 }), { inputSchema: { type: 'object', properties: {} }, requiredSecrets: [] });
    expect(problems.map((p) => p.loc.join('.'))).toContain('body.definition.steps.0.paginate.param');
  });
});
