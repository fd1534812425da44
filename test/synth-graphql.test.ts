// Synthesis on a single-page app that talks GraphQL (one POST endpoint for every call; graphql-js
// executes the queries): the page asks who is signed in and its settings on load, then searches as
// the person presses Enter. Recorded in Chromium (Playwright recordHar), synthesized, validated by
// replay with a changed argument (a GraphQL query changes nothing, so no allow_side_effects is
// needed), and run with a new query; a mutation stays a side effect.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, graphql } from 'graphql';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { recordLive } from './helpers/acceptance.js';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

const schema = buildSchema(`
  type Book { id: ID! title: String! author: String! }
  type Me { name: String! }
  type Settings { theme: String! }
  type Query { me: Me! settings: Settings! books(search: String!, first: Int, skip: Int): [Book!]! }
  type Mutation { addBook(title: String!, author: String!): Book! }
`);
const BOOKS = [
  { id: 'b1', title: 'Orchard Notes 1', author: 'Ada Orchard' },
  { id: 'b2', title: 'Orchard Notes 2', author: 'Basil Pruner' },
  { id: 'b3', title: 'Orchard Notes 3', author: 'Clara Graft' },
  { id: 'b4', title: 'Grafting Apples', author: 'Clara Graft' },
  { id: 'b5', title: 'The Broken Fence', author: 'Basil Pruner' },
  { id: 'b6', title: 'Pruning Pears', author: 'Ada Orchard' },
  { id: 'b7', title: 'Cider Days', author: 'Ada Orchard' },
  { id: 'b8', title: 'Grafting Plums', author: 'Dmitri Sap' },
  { id: 'b9', title: 'Graft Unions', author: 'Clara Graft' },
];

const PAGE = `<!doctype html><title>Shelf</title><input id=q placeholder="Search books"><ul id=out></ul><button id=more>More</button><script>
const gql = (operationName, query, variables) => fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ operationName, query, variables }) }).then((r) => r.json());
gql('Me', 'query Me { me { name } }', {});
gql('Settings', 'query Settings { settings { theme } }', {});
document.getElementById('q').addEventListener('keydown', async (e) => {
  if (e.key !== 'Enter') return;
  const r = await gql('SearchBooks', 'query SearchBooks($search: String!, $first: Int) { books(search: $search, first: $first) { id title author } }',
    { search: e.target.value, first: 20 });
  document.getElementById('out').innerHTML = r.data.books.map((b) => '<li>' + b.title + '</li>').join('');
});
// Two at a time, then "More" asks for the next two (the page in the query's variables).
let shown = 0;
document.getElementById('more').addEventListener('click', async () => {
  const r = await gql('Shelf', 'query Shelf($search: String!, $first: Int, $skip: Int) { books(search: $search, first: $first, skip: $skip) { id title author } }',
    { search: document.getElementById('q').value, first: 2, skip: shown });
  shown += r.data.books.length;
  document.getElementById('out').innerHTML += r.data.books.map((b) => '<li>' + b.title + '</li>').join('');
});
</script>`;

describe.each(await backends())('synthesis on a GraphQL single-page app (%s)', (backend) => {
  let h: Harness;
  let site: http.Server;
  let base = '';
  let browser: Browser;
  const added: string[] = [];
  beforeAll(async () => {
    const root = {
      me: () => ({ name: 'Ann' }),
      settings: () => ({ theme: 'dark' }),
      books: ({ search, first, skip }: { search: string; first?: number; skip?: number }) =>
        BOOKS.filter((b) => `${b.title} ${b.author}`.toLowerCase().includes(search.toLowerCase())).slice(
          skip ?? 0,
          (skip ?? 0) + (first ?? 100),
        ),
      addBook: ({ title, author }: { title: string; author: string }) => {
        added.push(title);
        return { id: `n${added.length}`, title, author };
      },
    };
    site = http.createServer((req, res) => {
      if (req.url === '/graphql' && req.method === 'POST') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', async () => {
          const { query, variables, operationName } = JSON.parse(body);
          const out = await graphql({ schema, source: query, rootValue: root, variableValues: variables, operationName });
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    h = await startHarness(backend);
    browser = await openChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    site?.close();
  });

  it('a search among other queries to the same endpoint: validated by replay without allow_side_effects, run with a NEW query', async () => {
    const har = await recordLive(browser, h.dataDir, 'gql-search', base, async (page, b) => {
      await page.goto(b);
      await page.fill('#q', 'clara');
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/graphql') && /SearchBooks/.test(r.request().postData() ?? '')),
        page.press('#q', 'Enter'),
      ]);
    });
    const r = await synthesizeFrom(h, har, { hints: { arguments: { query: 'clara' } } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.steps.at(-1).body.json).toMatchObject({ operationName: 'SearchBooks', variables: { search: '{{args.query}}' } });
    // Replayed with the argument changed: a GraphQL query is a read.
    expect(def.meta.validation).toMatchObject({ replayed: true, changed_argument: 'query' });
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'basil' } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.data.books.map((b: any) => b.title)).toEqual(['Orchard Notes 2', 'The Broken Fence']);
  });

  it('pages asked for in the query variables (skip grows by first): the run collects every page of a NEW query', async () => {
    const har = await recordLive(browser, h.dataDir, 'gql-pages', base, async (page, b) => {
      await page.goto(b);
      await page.fill('#q', 'orchard');
      for (let i = 0; i < 3; i++)
        await Promise.all([
          page.waitForResponse((r) => r.url().endsWith('/graphql') && /"Shelf"/.test(r.request().postData() ?? '')),
          page.click('#more'),
        ]);
    });
    const r = await synthesizeFrom(h, har, { hints: { arguments: { query: 'orchard' } } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    const step = def.steps.at(-1);
    expect(step.body.json.variables).toEqual({ search: '{{args.query}}', first: 2, skip: '{{page.number}}' });
    expect(step.paginate).toMatchObject({ mode: 'page', start: 0, step: 2 });
    expect(step.paginate.param).toBeUndefined();
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'graft' } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.items.map((b: any) => b.title)).toEqual(['Orchard Notes 3', 'Grafting Apples', 'Grafting Plums', 'Graft Unions']);
  });

  it('a mutation is a side effect: not replayed without allow_side_effects', async () => {
    const page = `${base}/`;
    const har = await recordLive(browser, h.dataDir, 'gql-add', page, async (p, b) => {
      await p.goto(b);
      await p.evaluate(() =>
        fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            operationName: 'Add',
            query: 'mutation Add($title: String!, $author: String!) { addBook(title: $title, author: $author) { id title } }',
            variables: { title: 'Mulching Plums', author: 'Dmitri Sap' },
          }),
        }).then((r) => r.json()),
      );
    });
    const before = added.length;
    const r = await synthesizeFrom(h, har, { hints: { arguments: { title: 'Mulching Plums', author: 'Dmitri Sap' } } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.validation.replayed).toBe(false);
    expect(added.length).toBe(before);
  });
});
