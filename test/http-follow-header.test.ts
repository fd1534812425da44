// A step's `follow_header` against real servers: a form posted by XHR is answered 200 with no body
// and the next page's URL in a header (percent-encoded, as Icinga Web's X-Icinga-Redirect), and the
// run loads that page as the page's script does. A hostile site naming another origin there is not
// followed (the other server sees nothing). Query values are sent with spaces as %20, which servers
// that decode the raw query (Icinga Web) read as spaces, not '+'.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { publish, run } from './helpers/runs.js';

describe.each(await backends())('follow_header (%s)', (backend) => {
  let h: Harness;
  let site: http.Server;
  let other: http.Server;
  let base = '';
  let otherBase = '';
  const seen: string[] = [];
  const otherSaw: string[] = [];
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const u = new URL(req.url!, 'http://x');
        if (req.method === 'POST' && u.pathname === '/users') {
          const q = new URLSearchParams(body).get('q') ?? '';
          const to = u.searchParams.get('away') ? `${otherBase}/users?q=${q}` : `/users?(name=*${encodeURIComponent(q)}*)`;
          res.writeHead(200, { 'x-app-redirect': encodeURIComponent(to), 'content-type': 'text/html' }).end();
          return;
        }
        // The raw query, decoded as Icinga Web does: '+' stays '+'.
        const raw = decodeURIComponent((req.url!.split('?')[1] ?? '').replace(/^\(name=\*|\*\).*$/g, ''));
        const names = ['ann smith', 'dan smith', 'cora reed'].filter((n) => n.includes(raw));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ names }));
      });
    });
    other = http.createServer((req, res) => {
      otherSaw.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"names":["elsewhere"]}');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    h = await startHarness(backend);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    site?.close();
    other?.close();
  });

  const connector = (query: Record<string, string> = {}) =>
    publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        base_url: base,
        steps: [
          {
            id: 'search',
            method: 'POST',
            url: '/users',
            query,
            body: { form: { q: '{{args.q}}' } },
            follow_header: 'x-app-redirect',
            extract: { names: { from: 'json', path: '$.names', required: false, default: null } },
          },
        ],
        result: { names: '{{vars.names}}' },
      },
    });

  it('follows the header to the page the script would load, with a space sent as %20', async () => {
    const c = await connector();
    seen.length = 0;
    const out = await run(h, { connector_id: c.id, arguments: { q: 'n smith' } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({ names: ['ann smith', 'dan smith'] });
    expect(seen).toEqual(['POST /users', 'GET /users?(name=*n%20smith*)']);
  });

  it('does not follow a header that names another origin: the answer stays the bodiless one', async () => {
    const c = await connector({ away: '1' });
    otherSaw.length = 0;
    const out = await run(h, { connector_id: c.id, arguments: { q: 'ann' } });
    // (The bodiless answer is what the step got: no JSON to read, and nothing was asked elsewhere.)
    expect(out.status).toBe('connector_error');
    expect(out.error).toMatchObject({ type: 'site_changed', details: { url: `${base}/users?away=1` } });
    expect(otherSaw).toEqual([]);
  });

  it('a query value with a space goes out as %20 and a plus as %2B', async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        base_url: base,
        steps: [{ id: 'list', url: '/list', query: { group: '{{args.group}}' }, extract: { names: { from: 'json', path: '$.names' } } }],
        result: { names: '{{vars.names}}' },
      },
    });
    seen.length = 0;
    const out = await run(h, { connector_id: c.id, arguments: { group: 'Orchard operators+1' } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(seen).toEqual(['GET /list?group=Orchard%20operators%2B1']);
  });
});
