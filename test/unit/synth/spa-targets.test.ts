// Target choice in a single-page app's traffic (the shapes Directus showed: test/acceptance/
// directus.test.ts). Around the one call that matters, the app saves its view (a PATCH carrying the
// search text), counts things about the record (a filter carrying its id), and refreshes its state.
import { describe, expect, it } from 'vitest';
import { isGraphqlQuery, normalize } from '../../../src/synth/normalize.js';
import { scoreTargets } from '../../../src/synth/target.js';
import { argumentValues, findDetail, listEntries } from '../../../src/synth/facts.js';
import { requestSlots } from '../../../src/synth/slots.js';
import { deterministicAdvisor } from '../../../src/synth/advisor.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'https://cms.test';
const xs = (h: ReturnType<typeof har>) => normalize(h).exchanges;
const facts = (argValues: string[]) => ({ argValues, resultValues: [], secretCarriers: new Set<string>(), lastActionTime: null });
const books = [
  { id: 3, title: 'Orchard Notes volume 3', author: 'Clara Graft' },
  { id: 7, title: 'Orchard Notes volume 7', author: 'Clara Graft' },
];

describe('targets in a single-page app', () => {
  it('search typed into a live filter: the GET whose records hold the text beats the later PATCH saving the view', () => {
    const x = xs(
      har(
        { url: `${O}/items/books?limit=25&page=1&search=Clara`, body: { data: books } },
        { url: `${O}/items/books?search=Clara&aggregate[count]=id`, body: { data: [{ count: 2 }] } },
        {
          method: 'PATCH',
          url: `${O}/presets/1`,
          json: { search: 'Clara' },
          body: { data: { id: 1, collection: 'books', search: 'Clara' } },
        },
      ),
    );
    const c = scoreTargets(x, facts(['clara']));
    expect(c[0]!.exchange.url).toContain('limit=25');
    expect(c[0]!.reasons.join(' ')).toMatch(/records in the answer hold typed value/);
    const patch = c.find((k) => k.exchange.method === 'PATCH')!;
    expect(patch.reasons.join(' ')).toMatch(/background write of only what a search request searched with/);
  });

  it("a PATCH of the record's id and its new year beats the record's GET by id, even with its answer missing from the recording", () => {
    const x = xs(
      har(
        { url: `${O}/items/books/10`, body: { data: { id: 10, title: 'Orchard Notes volume 9', year: 2000 } } },
        { url: `${O}/revisions?filter[item][_eq]=10&aggregate[count]=id`, body: { data: [{ count: 2 }] } },
        // (A HAR closed before the answer's body arrived holds none.)
        { method: 'PATCH', url: `${O}/items/books/10`, json: { year: 2001 }, mime: 'application/json' },
      ),
    );
    const c = scoreTargets(x, facts(['10', '2001']));
    expect(c[0]!.exchange.method).toBe('PATCH');
    expect(c.find((k) => k.exchange.method === 'GET' && k.exchange.url.endsWith('/10'))!.reasons.join(' ')).toMatch(/\(1 of 2\)/);
  });

  it('a write carrying more than the searched text (a create form with a lookup) stays the point', () => {
    const x = xs(
      har(
        { url: `${O}/items/authors?search=Clara`, body: { data: [{ id: 2, name: 'Clara Graft' }] } },
        {
          method: 'POST',
          url: `${O}/items/books`,
          json: { title: 'Grafting for Beginners', author: 'Clara' },
          body: { data: { id: 30, title: 'Grafting for Beginners', author: 'Clara' } },
        },
      ),
    );
    const c = scoreTargets(x, facts(['clara', 'grafting for beginners']));
    expect(c[0]!.exchange.method).toBe('POST');
    expect(c[0]!.reasons.join(' ')).not.toMatch(/background write/);
  });

  it('an item opened by its id: the answer that IS that record beats a later count filtered by the id', () => {
    const x = xs(
      har(
        { url: `${O}/items/books/25`, body: { data: { id: 25, title: 'The Broken Fence' } } },
        { url: `${O}/revisions?filter[item][_eq]=25&aggregate[count]=id`, body: { data: [{ count: { id: '1' } }] } },
      ),
    );
    const c = scoreTargets(x, facts(['25']));
    expect(c[0]!.exchange.url).toBe(`${O}/items/books/25`);
    expect(c[0]!.reasons.join(' ')).toMatch(/the answer is the record typed value/);
    // ... and the count is no "detail" of it: a record's own id is not a list's.
    expect(findDetail(c[0]!.exchange, x, new Set())).toBeNull();
    const list = xs(
      har(
        { url: `${O}/items/books`, body: { data: [{ id: 25, title: 'The Broken Fence' }] } },
        { url: `${O}/items/books/25`, body: { data: { id: 25 } } },
      ),
    );
    expect(findDetail(list[0]!, list, new Set())?.url).toBe(`${O}/items/books/25`);
    // A value the list's own request sent too (limit=25, page=2) was not taken from the list.
    const paged = xs(
      har(
        { url: `${O}/items/books?limit=25&page=1`, body: { data: [{ id: 2 }, { id: 25 }] } },
        { url: `${O}/notifications?limit=25&page=1`, body: { data: [] } },
      ),
    );
    expect(findDetail(paged[0]!, paged, new Set())).toBeNull();
  });
});

describe('arguments from the action log of a single-page app', () => {
  it('a box that adds entries one by one gives an argument per entry a request sent together; a corrected typo gives none', () => {
    const box = { tag: 'input', type: 'text', id: null, name: 'value', label: 'Legal value', placeholder: null, accessible_name: null };
    const name = { ...box, name: 'name', label: 'Context name' };
    const fill = (target: object, value: string) => ({ type: 'fill', value, target });
    const rec = { exchanges: [], actions: [fill(name, 'orchard-row'), fill(box, 'north'), fill(box, 'south')] } as any;
    const typed = argumentValues(rec, {}, deterministicAdvisor, '');
    expect(typed.find((a) => a.example === 'south')).toMatchObject({ earlier: ['north'] });
    const values = (x: any) => requestSlots(x).map((s) => s.value);
    const list = xs(
      har({
        method: 'POST',
        url: `${O}/api/context`,
        json: { name: 'orchard-row', legalValues: [{ value: 'north' }, { value: 'south' }] },
        body: { ok: true },
      }),
    );
    expect(listEntries(typed, list, values)).toEqual([
      { name: 'name', example: 'orchard-row' },
      { name: 'value', example: 'north' },
      { name: 'value_2', example: 'south' },
    ]);
    // A search for "Pera", corrected to "Pear" and searched again: no request sent both.
    const searches = xs(
      har({ url: `${O}/api/search?q=Pera`, body: { hits: [] } }, { url: `${O}/api/search?q=Pear`, body: { hits: [{ n: 1 }] } }),
    );
    const corrected = argumentValues(
      { exchanges: [], actions: [fill(box, 'Pera'), fill(box, 'Pear')] } as any,
      {},
      deterministicAdvisor,
      '',
    );
    expect(listEntries(corrected, searches, values)).toEqual([{ name: 'value', example: 'Pear' }]);
  });

  it('a field with no name, label or id is named by what it says to a person (its placeholder)', () => {
    const target = { tag: 'input', type: null, id: null, name: null, label: null, placeholder: 'Search Items...', accessible_name: null };
    const rec = { exchanges: [], actions: [{ type: 'fill', value: 'Clara', target }] } as any;
    expect(argumentValues(rec, {}, deterministicAdvisor, '')).toEqual([{ name: 'search_items', example: 'Clara' }]);
    // Its accessible name first, when it has one.
    rec.actions[0].target = { ...target, accessible_name: 'Filter books' };
    expect(argumentValues(rec, {}, deterministicAdvisor, '')[0]!.name).toBe('filter_books');
  });
});

describe('GraphQL reads and writes', () => {
  const post = (body: unknown) => xs(har({ method: 'POST', url: `${O}/graphql`, json: body, body: { data: {} } }))[0]!;
  it('query operations (named, shorthand, batched) are reads; a mutation or subscription is not', () => {
    expect(isGraphqlQuery(post({ query: 'query Books($q: String!) { books(search: $q) { id } }', variables: { q: 'x' } }))).toBe(true);
    expect(isGraphqlQuery(post({ query: '# list\n{ books { id } }' }))).toBe(true);
    expect(isGraphqlQuery(post([{ query: 'query A { a }' }, { query: 'query B { b }' }]))).toBe(true);
    expect(isGraphqlQuery(post({ query: 'mutation Add { addBook(title: "x") { id } }' }))).toBe(false);
    expect(isGraphqlQuery(post([{ query: 'query A { a }' }, { query: 'mutation B { b }' }]))).toBe(false);
    expect(isGraphqlQuery(post({ query: 'query A { a } mutation B { b }' }))).toBe(false);
    expect(isGraphqlQuery(post({ q: 'books' }))).toBe(false);
  });
});

describe('reads a page polls', () => {
  it("of two calls a page polls about the same record, the fuller answer wins over the later summary (Syncthing's folder status)", () => {
    const status = {
      globalBytes: 33,
      globalFiles: 3,
      localBytes: 33,
      localFiles: 3,
      needFiles: 0,
      state: 'idle',
      stateChanged: '2026-11-29T10:00:00Z',
      sequence: 3,
      version: 3,
      errors: 0,
      pullErrors: 0,
      inSyncFiles: 3,
    };
    // (A GUI's other calls before them: recency then tells little between the two.)
    const others = Array.from({ length: 20 }, (_, i) => ({
      url: `${O}/rest/system/part${i}`,
      at: 10 + i,
      body: { uptime: 100 + i, ok: true },
    }));
    const x = xs(
      har(
        ...others,
        { url: `${O}/rest/db/status?folder=photos`, at: 100, body: status },
        { url: `${O}/rest/db/completion?folder=photos`, at: 200, body: { completion: 100, needBytes: 0, sequence: 3 } },
      ),
    );
    const c = scoreTargets(x, facts(['photos']));
    expect(c[0]!.exchange.url).toContain('/rest/db/status');
    expect(c[0]!.reasons.join(' ')).toMatch(/fullest answer/);
    // (One call only: nothing to compare, no bonus.)
    const one = scoreTargets(xs(har({ url: `${O}/rest/db/completion?folder=photos`, body: { completion: 100 } })), facts(['photos']));
    expect(one[0]!.reasons.join(' ')).not.toMatch(/fullest answer/);
  });
});
