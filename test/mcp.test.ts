// The MCP endpoint (/mcp, Streamable HTTP) through the MCP SDK's own client against the real
// server: connectors as tools (schema, purpose, secret bindings), a real http connector run
// against the demo site, run reading tools, argument errors naming the field, the API key
// (401 without or with a wrong one), one user never seeing another's tools or runs, and a
// sentinel password that never shows in a tool answer or the server's logs.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoSite, USERS } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { httpSearchDefinition, LOGIN_SLOT, SEARCH_INPUT, SEARCH_OUTPUT } from './fixtures/definitions.js';
import { loginSecret, publish, run } from './helpers/runs.js';

const SENTINEL = `mcp-sentinel-${crypto.randomBytes(12).toString('hex')}`;
const SITE_USER = `mcp-${crypto.randomBytes(4).toString('hex')}`;
const TOOL = 'demo_shop_search_items';

describe.each(await backends())('MCP endpoint (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let connector: any;
  let secretId: string;
  const clients: Client[] = [];
  const answers: string[] = [];

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** callTool, keeping every answer for the sentinel scan. */
  async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
    const r = await client.callTool({ name, arguments: args });
    answers.push(JSON.stringify(r));
    return r;
  }

  beforeAll(async () => {
    site = await startDemoSite();
    // A site account whose password is the sentinel: a successful login must not leak it.
    site.state.users = [...USERS, { ...USERS[0], username: SITE_USER, password: SENTINEL }];
    // Progress notifications every second (default 10 s): the long-run test stays short.
    h = await startHarness(backend, { MCP_PROGRESS_INTERVAL_S: '1' });
    connector = await publish(h, {
      display_name: 'Demo Shop — search items!',
      purpose: 'Search the Demo Shop catalogue by keyword and return matching items with prices.',
      website: site.url,
      definition: httpSearchDefinition(site.url),
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    secretId = await loginSecret(h, SITE_USER, SENTINEL);
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await h?.close();
    await site?.close();
  });

  it('lists the connector as a tool with its input schema, purpose, website and a secret_bindings argument', async () => {
    const client = await connect(h.key);
    expect(client.getServerVersion()?.name).toBe('connector-service');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([TOOL, 'list_runs', 'get_run', 'get_run_logs', 'list_secrets']));
    for (const n of names) expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const tool = tools.find((t) => t.name === TOOL)!;
    expect(tool.title).toBe('Demo Shop — search items!');
    expect(tool.description).toContain('Search the Demo Shop catalogue by keyword');
    expect(tool.description).toContain(`Website: ${site.url}`);
    expect(tool.description).toContain('secret_bindings');
    expect(tool.description).toContain(connector.id);
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      required: ['query'],
      additionalProperties: false,
      properties: {
        query: SEARCH_INPUT.properties.query,
        page_size: SEARCH_INPUT.properties.page_size,
        secret_bindings: { type: 'object', properties: { account: { type: 'string' } }, additionalProperties: false },
      },
    });
    expect((tool.inputSchema.required as string[]) ?? []).not.toContain('secret_bindings');
  });

  it('runs the connector against the demo site with new arguments and a bound secret', async () => {
    const client = await connect(h.key);
    const r = await call(client, TOOL, { query: 'gamma', page_size: 3, secret_bindings: { account: secretId } });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    const s = r.structuredContent;
    expect(s).toMatchObject({ status: 'success', connector_id: connector.id, connector_version: 1, error: null });
    expect(s.secret_bindings).toEqual({ account: secretId });
    expect(s.result.total).toBe(8);
    expect(s.result.items.map((i: any) => i.id)).toEqual([3, 8, 13, 18, 23, 28, 33, 38]);
    expect(s.result.items[0]).toEqual({ id: 3, name: 'Gamma Gizmo', price: 11.99, in_stock: false });
    // The JSON text block carries the same answer.
    expect(JSON.parse(r.content[0].text)).toEqual(s);
    // It is a real run, readable over the REST API.
    const rest = await h.api('GET', `/v1beta/runs/${s.run_id}`);
    expect(rest.json).toMatchObject({ status: 'success', arguments: { query: 'gamma', page_size: 3 } });
    expect(rest.json.arguments).not.toHaveProperty('secret_bindings');

    // Other arguments, other result.
    const other = await call(client, TOOL, { query: 'alpha widget', secret_bindings: { account: secretId } });
    expect(other.structuredContent.result.items.map((i: any) => i.name)).toEqual(['Alpha Widget']);
  });

  it('list_runs, get_run and get_run_logs return that run', async () => {
    const client = await connect(h.key);
    const r = await call(client, TOOL, { query: 'delta', secret_bindings: { account: secretId } });
    const runId = r.structuredContent.run_id;

    const all = await call(client, 'list_runs');
    expect(all.isError ?? false).toBe(false);
    expect(all.structuredContent.runs[0]).toMatchObject({ run_id: runId, id: runId, connector_id: connector.id, status: 'success' });
    expect(all.structuredContent.runs.length).toBeGreaterThanOrEqual(3);
    const filtered = await call(client, 'list_runs', { connector_id: connector.id, status: 'success', limit: 1 });
    expect(filtered.structuredContent.runs.map((x: any) => x.run_id)).toEqual([runId]);
    expect(filtered.structuredContent.has_more).toBe(true);
    const next = await call(client, 'list_runs', { connector_id: connector.id, limit: 1, cursor: filtered.structuredContent.next_cursor });
    expect(next.structuredContent.runs).toHaveLength(1);
    expect(next.structuredContent.runs[0].run_id).not.toBe(runId);
    expect((await call(client, 'list_runs', { status: 'timed_out' })).structuredContent.runs).toEqual([]);

    const one = await call(client, 'get_run', { run_id: runId });
    expect(one.structuredContent).toMatchObject({ run_id: runId, status: 'success', arguments: { query: 'delta' } });
    expect(one.structuredContent.result.total).toBe(8);

    const logs = await call(client, 'get_run_logs', { run_id: runId });
    expect(logs.isError ?? false).toBe(false);
    expect(logs.content[0].text).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/login → 30\d/);
    expect(logs.content[0].text).toMatch(/GET [^\n]*\/api\/search/);
    expect(logs.structuredContent).toEqual({ run_id: runId, logs: logs.content[0].text });

    const secrets = await call(client, 'list_secrets');
    expect(secrets.structuredContent.secrets).toEqual([expect.objectContaining({ id: secretId, secret_type: 'login', has_totp: false })]);
  });

  it('invalid arguments are a tool error naming the field', async () => {
    const client = await connect(h.key);
    let r = await call(client, TOOL, { page_size: 500, secret_bindings: { account: secretId } });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/^- query: Field required$/m);
    expect(r.content[0].text).toMatch(/^- page_size: .*50/m);
    r = await call(client, TOOL, { query: 'gamma' });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/secret_bindings\.account: Field required/);
    r = await call(client, TOOL, { query: 'gamma', secret_bindings: { account: crypto.randomUUID() } });
    expect(r.content[0].text).toMatch(/secret_bindings\.account: Value error, no such secret/);
    r = await call(client, TOOL, { query: 'gamma', secret_bindings: 'nope' });
    expect(r.content[0].text).toMatch(/secret_bindings: Input should be an object/);
    r = await call(client, 'get_run', {});
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/run_id: Field required/);
    r = await call(client, 'list_runs', { limit: 0, status: 'done' });
    expect(r.content[0].text).toMatch(/^- limit: Input should be greater than or equal to 1$/m);
    expect(r.content[0].text).toMatch(/^- status: Input should be 'pending', /m);
    r = await call(client, 'get_run_logs', { run_id: 'x', verbose: true });
    expect(r.content[0].text).toMatch(/^- verbose: Extra inputs are not permitted$/m);
    r = await call(client, 'get_run', { run_id: crypto.randomUUID() });
    expect(r).toMatchObject({ isError: true, content: [{ text: 'Run not found' }] });
    r = await call(client, 'no_such_tool');
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/Unknown tool 'no_such_tool'/);
    // Nothing was run for the refused calls.
    const runs = (await h.api('GET', `/v1beta/runs?connector_id=${connector.id}&limit=100`)).json.data;
    expect(runs.every((x: any) => x.status === 'success')).toBe(true);
  });

  it("a failed run is a tool error with the run's error type and message", async () => {
    const client = await connect(h.key);
    const wrong = await loginSecret(h, SITE_USER, `${SENTINEL}-not-it`);
    const r = await call(client, TOOL, { query: 'gamma', secret_bindings: { account: wrong } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ status: 'connector_error', error: { type: 'auth_required' } });
    expect(r.content[0].text).toContain('connector_error (auth_required: ');
    expect(r.content[0].text).toContain(r.structuredContent.error.message);
    expect(r.content[0].text).toContain(r.structuredContent.run_id);
  });

  it('a long run keeps a client with a short timeout waiting through progress notifications', async () => {
    await publish(h, {
      display_name: 'Slow wait',
      purpose: 'Waits on the demo site.',
      definition: {
        format: 'connector-definition/v1',
        engine: 'script',
        source: `export default async (ctx) => {
          await ctx.http.get(ctx.args.base + '/api/slow', { query: { ms: '3500' } });
          return { waited: true };
        }`,
      },
      input_schema: { type: 'object', properties: { base: { type: 'string' } }, required: ['base'] },
    });
    const client = await connect(h.key);
    const seen: number[] = [];
    const r: any = await client.callTool({ name: 'slow_wait', arguments: { base: site.url } }, undefined, {
      timeout: 2000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => seen.push(p.progress),
    });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    expect(r.structuredContent.result).toEqual({ waited: true });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // Without a progressToken nothing is sent, and the same timeout fires.
    await expect(client.callTool({ name: 'slow_wait', arguments: { base: site.url } }, undefined, { timeout: 2000 })).rejects.toThrow(
      /timed out/i,
    );
  });

  it('a caller that goes away mid-run does not cancel the run, and the server keeps answering', async () => {
    const before = (await h.api('GET', '/v1beta/connectors?limit=100')).json.data.find((c: any) => c.display_name === 'Slow wait');
    const ac = new AbortController();
    const res = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow_wait', arguments: { base: site.url } } }),
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    await new Promise((r) => setTimeout(r, 300));
    ac.abort();
    await res.body?.cancel().catch(() => {});
    const client = await connect(h.key);
    let runs: any[] = [];
    for (let i = 0; i < 100; i++) {
      runs = (await call(client, 'list_runs', { connector_id: before.id, limit: 100 })).structuredContent.runs;
      if (runs.length === 3 && runs.every((x) => x.status === 'success')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(runs.map((x) => x.status)).toEqual(['success', 'success', 'success']);
    expect(h.logs.join('')).not.toMatch(/unhandled|MCP request failed/);
  });

  it('needs the API key: none, a malformed header or a wrong key → 401', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      });
    for (const headers of [{} as Record<string, string>, { authorization: `Basic ${h.key}` }, { authorization: 'Bearer csk_wrong' }]) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect((await res.json()).detail).toMatch(/authenticated|authorization|API key/);
    }
    // The right key gets the MCP answer.
    const ok = await post({ authorization: `Bearer ${h.key}` });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('"serverInfo"');

    const bad = new Client({ name: 'mcp-test', version: '1.0.0' });
    const t = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { Authorization: 'Bearer csk_nope' } },
    });
    await expect(bad.connect(t)).rejects.toMatchObject({ code: 401 });
    await bad.close().catch(() => {});
  });

  it('answers protocol edges: GET/DELETE 405, non-JSON body a JSON-RPC parse error, the route stays out of OpenAPI', async () => {
    const auth = { authorization: `Bearer ${h.key}` };
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${h.url}/mcp`, { method, headers: { ...auth, accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
    const res = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": ',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
    const doc = await h.api('GET', '/openapi.json', undefined, null);
    expect(Object.keys(doc.json.paths)).not.toContain('/mcp');
  });

  it("one user never sees another user's tools or runs", async () => {
    const mine = await connect(h.key);
    const r = await call(mine, TOOL, { query: 'beta', secret_bindings: { account: secretId } });
    const runId = r.structuredContent.run_id;

    const b = await h.newUser('mcp-b');
    const theirs = await connect(b.key);
    const { tools } = await theirs.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_run', 'get_run_logs', 'list_runs', 'list_secrets']);
    expect(JSON.stringify(tools)).not.toContain(connector.id);
    expect((await call(theirs, TOOL, { query: 'beta', secret_bindings: { account: secretId } })).content[0].text).toMatch(/Unknown tool/);
    expect((await call(theirs, 'get_run', { run_id: runId })).content[0].text).toBe('Run not found');
    expect((await call(theirs, 'get_run_logs', { run_id: runId })).content[0].text).toBe('Run not found');
    expect((await call(theirs, 'list_runs')).structuredContent.runs).toEqual([]);
    expect((await call(theirs, 'list_runs', { connector_id: connector.id })).content[0].text).toBe('Connector not found');
    expect((await call(theirs, 'list_secrets')).structuredContent.secrets).toEqual([]);

    // B's own connector, with the same name as A's: B sees it under the plain name; A gets a suffix for a second one.
    const bc = await publish(
      h,
      { display_name: 'Demo Shop — search items!', definition: httpSearchDefinition(site.url), required_secrets: [LOGIN_SLOT] },
      b.key,
    );
    expect((await theirs.listTools()).tools.find((t) => t.name === TOOL)?.description).toContain(bc.id);
    const second = await publish(h, {
      display_name: 'Demo Shop: search items',
      definition: httpSearchDefinition(site.url),
      required_secrets: [LOGIN_SLOT],
    });
    const names = (await mine.listTools()).tools.map((t) => t.name);
    expect(names).toContain(TOOL);
    expect(names).toContain(`${TOOL}_2`);
    expect((await mine.listTools()).tools.find((t) => t.name === `${TOOL}_2`)?.description).toContain(second.id);
    // Deleted connectors are no tools.
    expect((await h.api('DELETE', `/v1beta/connectors/${second.id}`)).status).toBe(200);
    expect((await mine.listTools()).tools.map((t) => t.name)).not.toContain(`${TOOL}_2`);
  });

  it('the sentinel password never appears in a tool answer or the server logs', async () => {
    // One more run over REST for comparison: the same scrubbing applies to both faces.
    await run(h, { connector_id: connector.id, arguments: { query: 'epsilon' }, secret_bindings: { account: secretId } });
    expect(answers.length).toBeGreaterThan(10);
    expect(answers.some((a) => a.includes('Gamma Gizmo'))).toBe(true);
    for (const a of answers) expect(a).not.toContain(SENTINEL);
    const logs = h.logs.join('');
    expect(logs).toContain('/mcp');
    expect(logs).not.toContain(SENTINEL);
    // No request of this file (the aborted one included) made the server log an error.
    expect(h.logs.filter((l) => JSON.parse(l).level >= 50)).toEqual([]);
  });
});
