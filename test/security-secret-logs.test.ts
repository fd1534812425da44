// Finding 5 of the hardening issue: a secret used in a URL was logged in the WHATWG URL
// serializer's encoding (space → %20, ' → %27, ! kept), which the scrubber didn't know, so
// per-run secret_values reached run_logs. A run uses awkward secrets in a URL path, query and
// fragment, a form body, a header and its own log lines in many encodings; no form may reach the
// run's logs (API and database row), its error, its result or the server's log.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { logsOf, publish, run } from './helpers/runs.js';

const tag = crypto.randomBytes(6).toString('hex');
// Characters each encoder treats differently: space, quote, bang, parens, star, plus, percent,
// ampersand, equals, non-ASCII, an astral character.
const PASS = `S p'!(*)+%&=é😀~${tag}`;
const VALUE = `v a'l!u"e<${tag}>`;

function forms(v: string): string[] {
  const u = new URL('http://h.test/');
  u.pathname = `/${v}`;
  const path = u.pathname.slice(1);
  u.search = v;
  const query = u.search.slice(1);
  u.hash = v;
  const frag = u.hash.slice(1);
  return [
    v,
    encodeURIComponent(v),
    encodeURI(v),
    path,
    query,
    frag,
    new URLSearchParams({ x: v }).toString().slice(2),
    JSON.stringify(v).slice(1, -1),
    Buffer.from(v).toString('hex'),
    Buffer.from(v).toString('base64').slice(0, 12),
  ];
}

describe.each(await backends())('secrets in every encoding never reach run logs (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let c: any;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend);
    c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'script',
        source: `export default async (ctx) => {
          const p = ctx.secrets.acct.password, v = ctx.secrets.token.value;
          // Raw concatenation: the URL serializer chooses the encoding, and the session logs it.
          await ctx.http.get(ctx.args.base + '/api/slow/' + p + '?ms=1&p=' + p + '&v=' + v + '#' + v);
          await ctx.http.post(ctx.args.base + '/api/slow?ms=1', { form: { p, v }, headers: { 'x-token': v } });
          ctx.log('uri', encodeURIComponent(p), encodeURI(v), 'json', JSON.stringify({ p, v }));
          if (ctx.args.fail) ctx.fail('site_changed', 'bad ' + encodeURI(p), { details: { v: escape(v) } });
          return { ok: true, echo: encodeURIComponent(p) };
        }`,
      },
      input_schema: { type: 'object', properties: { base: { type: 'string' }, fail: { type: 'boolean' } }, required: ['base'] },
      required_secrets: [
        { name: 'acct', type: 'login' },
        { name: 'token', type: 'string' },
      ],
    });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('scrubs the WHATWG, form, percent, JSON forms of per-run secrets from logs, errors and results', async () => {
    const body = (fail: boolean) => ({
      connector_id: c.id,
      arguments: { base: site.url, fail },
      secret_values: { acct: { username: `user-${tag}`, password: PASS }, token: { value: VALUE } },
    });
    const ok = await run(h, body(false));
    expect(ok.status, JSON.stringify(ok.error)).toBe('success');
    const bad = await run(h, body(true));
    expect(bad.status).toBe('connector_error');
    const needles = [...forms(PASS), ...forms(VALUE), escape(VALUE)];
    for (const r of [ok, bad]) {
      const logs = await logsOf(h, r.id);
      expect(logs).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/api\/slow\/\[redacted\]\?ms=1&p=\[redacted\]&v=\[redacted\]/);
      const row = await sql<{ logs: string }>`select logs from run_logs where run_id = ${r.id}`.execute(h.services.db);
      const stored = row.rows.map((x) => x.logs).join('\n');
      expect(stored.length).toBeGreaterThan(0);
      for (const n of needles) {
        expect(logs, n).not.toContain(n);
        expect(stored, n).not.toContain(n);
        expect(JSON.stringify(r), n).not.toContain(n);
      }
    }
    expect(ok.result).toEqual({ ok: true, echo: '[redacted]' });
    expect(bad.error.message).toBe('bad [redacted]');
    const serverLog = h.logs.join('');
    for (const n of needles) expect(serverLog, n).not.toContain(n);
  });
});
