// Runs of an http connector against the demo site: login with TOTP, pagination, typed results,
// re-login after a session expiry, RunError types produced by the real site, version pinning.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoSite, BOB_TOTP_SEED } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { httpSearchDefinition, LOGIN_SLOT, SEARCH_INPUT, SEARCH_OUTPUT } from './fixtures/definitions.js';
import { loginSecret, logsOf, publish, run, waitRun } from './helpers/runs.js';

describe.each(await backends())('http connector runs (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let connector: any;
  let bob: string;
  let alice: string;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend);
    connector = await publish(h, {
      definition: httpSearchDefinition(site.url),
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
      website: site.url,
    });
    bob = await loginSecret(h, 'bob', 'builder', BOB_TOTP_SEED);
    alice = await loginSecret(h, 'alice', 'wonderland');
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });
  beforeEach(async () => {
    await fetch(`${site.url}/__reset`, { method: 'POST' });
  });

  it('logs in with TOTP, pages through the search and returns typed results (sync, 200)', async () => {
    const r = await h.api('POST', '/v1beta/runs', {
      connector_id: connector.id,
      arguments: { query: 'gamma', page_size: 3 },
      secret_bindings: { account: bob },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      status: 'success',
      connector_version: 1,
      result_stored: true,
      error: null,
      has_logs: true,
      secret_bindings: { account: bob },
    });
    expect(r.json.result.total).toBe(8);
    expect(r.json.result.items.map((i: any) => i.id)).toEqual([3, 8, 13, 18, 23, 28, 33, 38]);
    expect(r.json.result.items[0]).toEqual({ id: 3, name: 'Gamma Gizmo', price: 11.99, in_stock: false });
    expect(r.json.result_size_bytes).toBe(Buffer.byteLength(JSON.stringify(r.json.result)));
    const logs = await logsOf(h, r.json.id);
    expect(logs).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/login\/totp → 303/);
    expect(logs.match(/GET [^\n]*\/api\/search/g)).toHaveLength(3);
    expect((await h.api('GET', `/v1beta/runs/${r.json.id}`)).json.result).toEqual(r.json.result);
  });

  it('runs async (202 pending, then success) and with per-run secret_values', async () => {
    const r = await h.api('POST', '/v1beta/runs', {
      connector_id: connector.id,
      arguments: { query: 'alpha widget' },
      secret_values: { account: { username: 'alice', password: 'wonderland' } },
      async: true,
    });
    expect(r.status, r.text).toBe(202);
    expect(r.json).toMatchObject({ status: 'pending', result: null, finished_at: null });
    const done = await waitRun(h, r.json.id);
    expect(done.status).toBe('success');
    expect(done.result.items.map((i: any) => i.name)).toEqual(['Alpha Widget']);
    expect(done.secret_bindings).toBeUndefined();
  });

  it('logs in again once when the session expires mid-run', async () => {
    // The site drops every session right after the login chain's last request.
    const def = httpSearchDefinition(site.url);
    def.steps.unshift({ id: 'expire', method: 'POST', url: '/__control', body: { json: { expire_sessions: true } } } as any);
    const c = await publish(h, {
      definition: def,
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    const r = await run(h, { connector_id: c.id, arguments: { query: 'delta' }, secret_bindings: { account: alice } });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(r.result.total).toBe(8);
    expect(await logsOf(h, r.id)).toMatch(/logged out \(HTTP 401\); running the login chain again/);
  });

  it('maps real failures to RunError types', async () => {
    const base = { connector_id: connector.id, arguments: { query: 'gamma' } };
    // Wrong password: the login page comes back.
    const wrong = await loginSecret(h, 'alice', 'not-the-password');
    let r = await run(h, { ...base, secret_bindings: { account: wrong } });
    expect(r.status).toBe('connector_error');
    expect(r.error).toMatchObject({ type: 'auth_required', retryable: false, exception: null });
    // Site down.
    await fetch(`${site.url}/__control`, { method: 'POST', body: JSON.stringify({ outage: true }) });
    r = await run(h, { ...base, secret_bindings: { account: alice } });
    expect(r.error).toMatchObject({ type: 'site_unavailable', retryable: true, details: { status: 503 } });
    // Anti-bot challenge.
    await fetch(`${site.url}/__control`, { method: 'POST', body: JSON.stringify({ outage: false, challenge: true }) });
    r = await run(h, { ...base, secret_bindings: { account: alice } });
    expect(r.error.type).toBe('anti_bot');
    await fetch(`${site.url}/__reset`, { method: 'POST' });
    // Argument rejected by the site (limit > 50 → 400).
    const loose = await publish(h, {
      definition: httpSearchDefinition(site.url),
      input_schema: { type: 'object', properties: { query: { type: 'string' }, page_size: { type: 'integer' } } },
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    r = await run(h, { connector_id: loose.id, arguments: { query: 'x', page_size: 500 }, secret_bindings: { account: alice } });
    expect(r.error).toMatchObject({ type: 'invalid_input', retryable: false });
    // Unreachable host.
    const dead = await publish(h, {
      definition: httpSearchDefinition('http://127.0.0.1:9'),
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    r = await run(h, { connector_id: dead.id, arguments: { query: 'x' }, secret_bindings: { account: alice } });
    expect(r.error).toMatchObject({ type: 'site_unavailable', retryable: true, details: { code: 'ECONNREFUSED' } });
  });

  it('a page addressed by an argument the site does not have (404) is invalid_input; a fixed URL that 404s is site_changed', async () => {
    const pages = http.createServer((req, res) => {
      const known = req.url === '/pages/known';
      res.writeHead(known ? 200 : 404, { 'content-type': 'text/html' });
      res.end(known ? '<h1>Known page</h1>' : '<h1>Not found</h1>');
    });
    await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    const connectorAt = (url: string) =>
      publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: base,
          steps: [{ id: 'page', url, extract: { title: { from: 'css', selector: 'h1' } } }],
          result: { title: '{{vars.title}}' },
        },
        input_schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
    try {
      const byName = await connectorAt('/pages/{{args.name}}');
      expect((await run(h, { connector_id: byName.id, arguments: { name: 'known' } })).result).toEqual({ title: 'Known page' });
      const missing = await run(h, { connector_id: byName.id, arguments: { name: 'unknown' } });
      expect(missing.error).toMatchObject({ type: 'invalid_input', retryable: false, details: { status: 404, not_found: true } });
      expect(missing.error.message).toMatch(/no page for these arguments/);
      const fixed = await connectorAt('/pages/gone');
      const gone = await run(h, { connector_id: fixed.id, arguments: { name: 'x' } });
      expect(gone.error).toMatchObject({ type: 'site_changed', details: { status: 404 } });
    } finally {
      pages.close();
    }
  });

  it('numbered pages end where the site says so past the last page: a 404, a redirect to the first page, the last page again', async () => {
    // 7 items, 3 per page; `past` decides what a page number after the last one answers.
    let past: '404' | 'first' | 'clamp' = '404';
    const items = Array.from({ length: 7 }, (_, i) => `Item ${i + 1}`);
    const listPage = (n: number, q: string) =>
      `<table><thead><tr><th>Name</th><th>Open</th></tr></thead><tbody>${items
        .slice((n - 1) * 3, n * 3)
        .map((t) => `<tr><td>${t}</td><td><a href="/item?name=${encodeURIComponent(t)}&${q}">open</a></td></tr>`)
        .join('')}</tbody></table>`;
    const srv = http.createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      const n = Number(u.searchParams.get('p') ?? 1);
      if (n <= 3) return res.writeHead(200, { 'content-type': 'text/html' }).end(listPage(n, u.search.slice(1)));
      if (past === '404') return res.writeHead(404).end('no such page');
      // (Links carry the page's own query, as Django's do: the same rows at another URL.)
      if (past === 'first') return res.writeHead(302, { location: '/list?e=1' }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(listPage(3, u.search.slice(1)));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    try {
      const c = await publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: base,
          steps: [
            {
              id: 'list',
              url: '/list',
              extract: {
                items: {
                  from: 'css',
                  selector: 'tbody > tr',
                  all: true,
                  required: false,
                  fields: { name: { column: 'name' }, url: { selector: 'a', attr: 'href' } },
                },
              },
              paginate: { mode: 'page', param: 'p', start: 1, stop_when_empty: 'items', max_pages: 10 },
            },
          ],
          result: { items: '{{vars.items}}' },
        },
      });
      for (const mode of ['404', 'first', 'clamp'] as const) {
        past = mode;
        const r = await run(h, { connector_id: c.id });
        expect(r.status, `${mode}: ${JSON.stringify(r.error)}`).toBe('success');
        expect(r.result.items.map((i: any) => i.name)).toEqual(items);
      }
    } finally {
      srv.close();
    }
  });

  it('page mode with a step walks an offset by the page size (offset=0, 3, 6) until a page is empty', async () => {
    const items = Array.from({ length: 8 }, (_, i) => ({ id: i + 1 }));
    const seen: string[] = [];
    const srv = http.createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      seen.push(u.search);
      const off = Number(u.searchParams.get('offset'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: items.slice(off, off + 3) }));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const c = await publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
          steps: [
            {
              id: 'list',
              url: '/api/items',
              query: { limit: '3' },
              extract: { items: { from: 'json', path: '$.data[*]', all: true, required: false } },
              paginate: { mode: 'page', param: 'offset', start: 0, step: 3, stop_when_empty: 'items', max_pages: 10 },
            },
          ],
          result: { items: '{{vars.items}}' },
        },
      });
      const r = await run(h, { connector_id: c.id });
      expect(r.status, JSON.stringify(r.error)).toBe('success');
      expect(r.result.items).toEqual(items);
      expect(seen).toEqual(['?limit=3&offset=0', '?limit=3&offset=3', '?limit=3&offset=6', '?limit=3&offset=9']);
    } finally {
      srv.close();
    }
  });

  it('until_found pages a list until the record the run names, and no further; past the end it is invalid_input', async () => {
    // (Seven books, three a page; a page past the end is empty. The run names one, then reads it.)
    const books = Array.from({ length: 7 }, (_, i) => ({ id: 101 + i, title: `Volume ${i + 1}` }));
    const seen: string[] = [];
    const srv = http.createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      seen.push(u.pathname + u.search);
      if (u.pathname.startsWith('/api/books/'))
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: Number(u.pathname.split('/')[3]) }));
      const page = Number(u.searchParams.get('page'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: books.slice((page - 1) * 3, page * 3) }));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const c = await publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
          steps: [
            {
              id: 'list',
              url: '/api/books',
              query: { limit: '3', page: '1' },
              extract: { book_id: { from: 'json', path: '$.data[*]', where: { title: '{{args.title}}' }, select: '$.id' } },
              paginate: { mode: 'page', param: 'page', start: 1, until_found: true, max_pages: 20 },
            },
            { id: 'book', url: '/api/books/{{vars.book_id}}', extract: { book: { from: 'json', path: '$' } } },
          ],
          result: '{{vars.book}}',
        },
        input_schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      });
      const r = await run(h, { connector_id: c.id, arguments: { title: 'Volume 5' } });
      expect(r.status, JSON.stringify(r.error)).toBe('success');
      expect(r.result).toEqual({ id: 105 });
      expect(seen).toEqual(['/api/books?limit=3&page=1', '/api/books?limit=3&page=2', '/api/books/105']);
      seen.length = 0;
      const first = await run(h, { connector_id: c.id, arguments: { title: 'volume 2' } });
      expect(first.result).toEqual({ id: 102 });
      expect(seen).toEqual(['/api/books?limit=3&page=1', '/api/books/102']);
      seen.length = 0;
      const none = await run(h, { connector_id: c.id, arguments: { title: 'Volume 9' } });
      expect(none.status).toBe('connector_error');
      expect(none.error).toMatchObject({ type: 'invalid_input', details: { not_found: true } });
      expect(none.error.message).toContain('no record with title = "Volume 9"');
      expect(seen).toEqual([
        '/api/books?limit=3&page=1',
        '/api/books?limit=3&page=2',
        '/api/books?limit=3&page=3',
        '/api/books?limit=3&page=4',
      ]);
    } finally {
      srv.close();
    }
  });

  it('a kept-alive connection the server closes as the next request arrives is sent again on a new one; a fresh reset fails', async () => {
    // The server answers the first request of each connection and drops the connection on the
    // second, unanswered: what a server whose idle timeout just ran out does to a reused socket.
    const seen: string[] = [];
    const site = http.createServer((req, res) => {
      const n = ((req.socket as any).served = ((req.socket as any).served ?? 0) + 1);
      seen.push(`${req.url}#${n}`);
      if (n > 1 || req.url === '/always-reset') return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ at: req.url }));
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const twoSteps = (second: string) =>
      publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: base,
          steps: [
            { id: 'a', url: '/a', extract: { a: { from: 'json', path: '$.at' } } },
            { id: 'b', method: 'POST', url: second, body: { json: { x: 1 } }, extract: { b: { from: 'json', path: '$.at' } } },
          ],
          result: { a: '{{vars.a}}', b: '{{vars.b}}' },
        },
      });
    try {
      const ok = await run(h, { connector_id: (await twoSteps('/b')).id, arguments: {} });
      expect(ok.status, JSON.stringify(ok.error)).toBe('success');
      expect(ok.result).toEqual({ a: '/a', b: '/b' });
      // /b reached the server twice: dropped on the reused connection, answered on a new one.
      expect(seen).toEqual(['/a#1', '/b#2', '/b#1']);
      seen.length = 0;
      const reset = await run(h, { connector_id: (await twoSteps('/always-reset')).id, arguments: {} });
      expect(reset.error).toMatchObject({ type: 'site_unavailable', retryable: true, details: { code: 'ECONNRESET' } });
      // Sent again once after the reused connection dropped it, then the fresh one failed too.
      expect(seen.filter((x) => x.startsWith('/always-reset'))).toEqual(['/always-reset#2', '/always-reset#1']);
    } finally {
      site.close();
    }
  });

  it('output_schema violations and missing extracts are site_changed with details', async () => {
    const def: any = httpSearchDefinition(site.url);
    def.result.items.to.price = '{{it.name}}'; // a string where the schema wants a number
    const c = await publish(h, {
      definition: def,
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    let r = await run(h, { connector_id: c.id, arguments: { query: 'beta' }, secret_bindings: { account: alice } });
    expect(r.error.type).toBe('site_changed');
    expect(r.error.details.errors[0]).toMatchObject({ path: '/items/0/price', keyword: 'type' });
    const def2: any = httpSearchDefinition(site.url);
    def2.steps[0].extract.total.path = '$.count_of_items';
    const c2 = await publish(h, {
      definition: def2,
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    r = await run(h, { connector_id: c2.id, arguments: { query: 'beta' }, secret_bindings: { account: alice } });
    expect(r.error).toMatchObject({ type: 'site_changed', details: { extractor: 'search.extract.total' } });
  });

  it('creates an item with a double-submit CSRF token (cookie, header, regex extractors) and walks a cursor API', async () => {
    const def = {
      format: 'connector-definition/v1',
      engine: 'http',
      base_url: site.url,
      login: httpSearchDefinition(site.url).login,
      detect: { login_page: [{ css: '#login-form' }] },
      steps: [
        { id: 'new_form', url: '/items/new', extract: { csrf: { from: 'cookie', name: 'demo_csrf' } } },
        {
          id: 'create',
          method: 'POST',
          url: '/items',
          headers: { 'x-csrf-token': '{{vars.csrf}}', accept: 'application/json' },
          body: { json: { name: '{{args.name}}', category: 'tools', price: '{{args.price}}', in_stock: true } },
          expect_status: [201],
          error_rules: [{ when: { status: [422] }, error: 'invalid_input', message: 'The shop rejected the item' }],
          extract: { id: { from: 'json', path: '$.id', type: 'integer' }, location: { from: 'header', name: 'location' } },
        },
        {
          id: 'detail',
          url: '{{vars.location}}',
          extract: {
            name: { from: 'css', selector: '#item [data-field=name]' },
            price: { from: 'regex', pattern: 'data-field="price"[^>]*>([0-9.]+)<', type: 'number' },
          },
        },
        {
          id: 'alpha',
          url: '/api/items',
          query: { q: 'alpha', limit: '3' },
          extract: { ids: { from: 'json', path: '$.items[*].id', all: true } },
          paginate: { mode: 'cursor', param: 'cursor', next: { from: 'json', path: '$.next_cursor', required: false } },
        },
      ],
      result: {
        id: '{{vars.id}}',
        location: '{{vars.location}}',
        name: '{{vars.name}}',
        price: '{{vars.price}}',
        alpha_ids: '{{vars.ids}}',
      },
    };
    const c = await publish(h, {
      definition: def,
      input_schema: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name', 'price'] },
      required_secrets: [LOGIN_SLOT],
    });
    const r = await run(h, { connector_id: c.id, arguments: { name: 'Alpha Anvil', price: 19.5 }, secret_bindings: { account: alice } });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(r.result).toEqual({
      id: 41,
      location: '/items/41',
      name: 'Alpha Anvil',
      price: 19.5,
      alpha_ids: [1, 6, 11, 16, 21, 26, 31, 36, 41],
    });
    expect((await logsOf(h, r.id)).match(/GET [^\n]*\/api\/items/g)).toHaveLength(3);
    const bad = await run(h, { connector_id: c.id, arguments: { name: 'Broken', price: -5 }, secret_bindings: { account: alice } });
    expect(bad.error).toMatchObject({ type: 'invalid_input', message: 'The shop rejected the item', details: { status: 422 } });
  });

  it('sends Referer and Origin as a browser would: the last page fetched, its origin on a POST (a CSRF check by Referer passes)', async () => {
    // A site that refuses a POST whose Origin and Referer are not its own form page (Fossil and
    // Django over HTTPS check them), and a second origin that sees only the page's origin.
    const seen: Record<string, http.IncomingHttpHeaders> = {};
    const listen = (handler: http.RequestListener) =>
      new Promise<http.Server>((resolve) => {
        const srv = http.createServer(handler);
        srv.listen(0, '127.0.0.1', () => resolve(srv));
      });
    const other = await listen((req, res) => {
      seen.elsewhere = req.headers;
      res.end('ok');
    });
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    let origin = '';
    const forms = await listen((req, res) => {
      const path = (req.url ?? '').split('?')[0]!;
      seen[path] = req.headers;
      res.setHeader('content-type', 'text/html; charset=utf-8');
      if (path === '/form') return res.end('<html><body><form method="post"><input name="token" value="t-42"></form></body></html>');
      if (path === '/api') {
        res.setHeader('content-type', 'application/json');
        return res.end('{"n":1}');
      }
      if (path === '/save') {
        if (req.headers.origin !== origin || req.headers.referer !== `${origin}/form?x=1`) {
          res.statusCode = 403;
          return res.end('cross-site request refused');
        }
        res.writeHead(303, { location: '/saved' });
        return res.end();
      }
      if (path === '/saved') return res.end('<html><body><p id="msg">saved</p></body></html>');
      res.end('pong');
    });
    origin = `http://127.0.0.1:${(forms.address() as AddressInfo).port}`;
    try {
      const c = await publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: origin,
          steps: [
            { id: 'early', method: 'POST', url: '/ping', body: { form: { a: '1' } } },
            { id: 'form', url: '/form?x=1', extract: { token: { from: 'css', selector: 'input[name=token]', attr: 'value' } } },
            { id: 'api', url: '/api', headers: { accept: 'application/json' } },
            {
              id: 'save',
              method: 'POST',
              url: '/save',
              body: { form: { token: '{{vars.token}}', note: 'hello' } },
              extract: { msg: { from: 'css', selector: '#msg' } },
            },
            { id: 'elsewhere', url: `${otherUrl}/track` },
          ],
          result: { msg: '{{vars.msg}}' },
        },
        input_schema: { type: 'object' },
      });
      const r = await run(h, { connector_id: c.id });
      expect(r.status, JSON.stringify(r.error)).toBe('success');
      expect(r.result).toEqual({ msg: 'saved' });
      // Before any page: a POST says where it comes from by its own origin only.
      expect(seen['/ping']).toMatchObject({ origin });
      expect(seen['/ping']!.referer).toBeUndefined();
      // A JSON answer is not a page: the form stays the referrer.
      expect(seen['/api']!.referer).toBe(`${origin}/form?x=1`);
      expect(seen['/api']!.origin).toBeUndefined();
      // The redirect's target is the page now; another origin sees only the page's origin.
      expect(seen['/saved']!.referer).toBe(`${origin}/form?x=1`);
      expect(seen.elsewhere).toMatchObject({ referer: `${origin}/` });
      expect(seen.elsewhere!.origin).toBeUndefined();
    } finally {
      forms.closeAllConnections();
      other.closeAllConnections();
      await Promise.all([new Promise((r) => forms.close(r)), new Promise((r) => other.close(r))]);
    }
  });

  it('sends an empty file input as a browser does: a file part with filename="" (not a text field)', async () => {
    let body = '';
    const srv = http.createServer((req, res) => {
      req.on('data', (c) => (body += c));
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const c = await publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
          steps: [
            {
              id: 'post',
              method: 'POST',
              url: '/issues',
              body: {
                multipart: [
                  { name: 'subject', value: 'Pears' },
                  { name: 'attachments[dummy][file]', value: '', filename: '', content_type: 'application/octet-stream' },
                ],
              },
            },
          ],
          result: {},
        },
        input_schema: { type: 'object' },
      });
      const r = await run(h, { connector_id: c.id });
      expect(r.status, JSON.stringify(r.error)).toBe('success');
      // (A site reads a part without filename as a text field: Redmine then says "1 file(s) could not be saved".)
      expect(body).toMatch(
        /content-disposition: form-data; name="attachments\[dummy\]\[file\]"; filename=""\r\ncontent-type: application\/octet-stream/i,
      );
      expect(body).toMatch(/content-disposition: form-data; name="subject"\r\n\r\nPears/i);
    } finally {
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    }
  });

  it('sends a JSON body under the content type the step names (jQuery posts JSON as its default form type), application/json otherwise', async () => {
    const got: { type?: string; body: string }[] = [];
    const srv = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ type: req.headers['content-type'], body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const form = 'application/x-www-form-urlencoded; charset=UTF-8';
      const c = await publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
          steps: [
            {
              id: 'save',
              method: 'POST',
              url: '/saveactions',
              body: { json: ['{{args.reject | number}}', null, 6, 4], content_type: form },
            },
            { id: 'plain', method: 'POST', url: '/plain', body: { json: { a: 1 } } },
          ],
          result: {},
        },
        input_schema: { type: 'object', properties: { reject: { type: 'number' } } },
      });
      const r = await run(h, { connector_id: c.id, arguments: { reject: 22.5 } });
      expect(r.status, JSON.stringify(r.error)).toBe('success');
      expect(got).toEqual([
        { type: form, body: '[22.5,null,6,4]' },
        { type: 'application/json', body: '{"a":1}' },
      ]);
    } finally {
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    }
  });

  it('pins the version at creation: runs keep their version across a revision; listing filters by version', async () => {
    const c = await publish(h, {
      definition: httpSearchDefinition(site.url),
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    const v1 = await run(h, { connector_id: c.id, arguments: { query: 'kettle' }, secret_bindings: { account: alice }, async: true });
    const def2: any = httpSearchDefinition(site.url);
    def2.result = { total: '{{vars.total}}', items: [] };
    const rev = await h.api('POST', `/v1beta/connectors/${c.id}/revisions`, {
      definition: def2,
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    expect(rev.json.version).toBe(2);
    const v2 = await run(h, { connector_id: c.id, arguments: { query: 'kettle' }, secret_bindings: { account: alice } });
    const v1done = await waitRun(h, v1.id);
    expect(v1done.connector_version).toBe(1);
    expect(v1done.result.items.length).toBe(5);
    expect(v2).toMatchObject({ connector_version: 2, result: { total: 5, items: [] } });
    const list2 = (await h.api('GET', `/v1beta/runs?connector_id=${c.id}`)).json;
    expect(list2.data.map((x: any) => x.id)).toEqual([v2.id]);
    const list1 = (await h.api('GET', `/v1beta/runs?connector_id=${c.id}&version=1`)).json;
    expect(list1.data.map((x: any) => x.id)).toEqual([v1.id]);
    // Deleted: runs stay readable, new runs are refused.
    await h.api('DELETE', `/v1beta/connectors/${c.id}`);
    expect((await h.api('GET', `/v1beta/runs/${v2.id}`)).json.status).toBe('success');
    expect((await h.api('GET', `/v1beta/runs?connector_id=${c.id}&version=1`)).json.data.length).toBe(1);
    const refused = await h.api('POST', '/v1beta/runs', {
      connector_id: c.id,
      arguments: { query: 'x' },
      secret_bindings: { account: alice },
    });
    expect(refused.status).toBe(409);
  });
  it('run.now_ms / now_s / now_iso and run.uuid: read when the run sends them, the same in every step of it, new for the next run', async () => {
    const seen: URLSearchParams[] = [];
    const echo = http.createServer((req, res) => {
      seen.push(new URL(req.url!, 'http://x').searchParams);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    try {
      const query = { ms: '{{run.now_ms}}', s: '{{run.now_s}}', iso: '{{run.now_iso}}', id: '{{run.uuid}}' };
      const c = await publish(h, {
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          base_url: base,
          steps: [
            { id: 'one', url: '/one', query },
            { id: 'two', url: '/two', query, extract: { ok: { from: 'json', path: '$.ok' } } },
          ],
          result: { ok: '{{vars.ok}}' },
        },
      });
      const before = Date.now();
      for (let i = 0; i < 2; i++) expect((await run(h, { connector_id: c.id, arguments: {} })).status).toBe('success');
      const q = seen.map((p) => Object.fromEntries(p));
      expect(q).toHaveLength(4);
      const ms = Number(q[0]!.ms);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThan(Date.now());
      expect(q[0]).toEqual({
        ms: String(ms),
        s: String(Math.floor(ms / 1000)),
        iso: new Date(ms).toISOString(),
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect(q[1]).toEqual(q[0]); // (one run: one clock reading, one id)
      expect(q[2]!.id).not.toBe(q[0]!.id);
      expect(Number(q[2]!.ms)).toBeGreaterThanOrEqual(ms);
    } finally {
      echo.close();
    }
  });
});
