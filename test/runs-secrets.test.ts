// Run creation rules (arguments, secrets, proxy settings, timeout → 422 with precise loc) and the
// secret invariants of runs: bound and per-run values and TOTP codes are scrubbed from run logs
// and errors, and per-run secret_values are never persisted (sentinel scan of the data dir,
// PostgreSQL rows and server logs).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { totpCode } from '../src/lib/totp.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, logsOf, publish, run, waitRun } from './helpers/runs.js';

const hex = () => crypto.randomBytes(12).toString('hex');
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const S = {
  user: `usr-${hex()}`,
  pass: `pw+&/${hex()}`,
  seed: Array.from(crypto.randomBytes(32), (b) => BASE32[b & 31]).join(''),
  runPass: `rp-${hex()}`,
  runValue: `rv-${hex()}`,
};
const EPHEMERAL = [S.runPass, S.runValue];

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe.each(await backends())('run secrets and creation rules (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let c: any;
  beforeAll(async () => {
    site = await startDemoSite();
    // Many TOTP logins in a row (each would wait for a fresh 30 s step): single-use codes are test/totp-single-use.test.ts's.
    h = await startHarness(backend, { TOTP_CODE_REUSE: 'allow' });
    c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'script',
        source: `export default async (ctx) => {
          const s = ctx.secrets;
          ctx.log('bound', s.bank.username, s.bank.password, 'code', ctx.totp('bank'));
          ctx.log('per-run', s.other.password, s.token.value);
          await ctx.http.get(ctx.args.base + '/api/slow', { query: { ms: '1', p: s.bank.password, t: s.token.value } });
          if (ctx.args.explode) ctx.fail('site_changed', 'bad ' + s.bank.password, { details: { token: s.token.value } });
          if (ctx.args.leak) return { ok: true, pass: s.bank.password, note: 'token=' + s.token.value + '!', user: s.bank.username, list: [ctx.totp('bank')], [s.other.password]: 1 };
          return { ok: true };
        }`,
      },
      input_schema: {
        type: 'object',
        properties: {
          base: { type: 'string' },
          explode: { type: 'boolean', default: false },
          leak: { type: 'boolean' },
          n: { type: 'integer', minimum: 1 },
        },
        required: ['base'],
        additionalProperties: false,
      },
      required_secrets: [
        { name: 'bank', type: 'login', supports_totp: true },
        { name: 'other', type: 'login' },
        { name: 'token', type: 'string' },
      ],
    });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  const secretsBody = async () => ({
    secret_bindings: { bank: await loginSecret(h, S.user, S.pass, S.seed) },
    secret_values: { other: { username: 'someone', password: S.runPass }, token: { value: S.runValue } },
  });

  it('scrubs every secret value and TOTP code from logs and errors', async () => {
    const ok = await run(h, { connector_id: c.id, arguments: { base: site.url }, ...(await secretsBody()) });
    expect(ok.status, JSON.stringify(ok.error)).toBe('success');
    const bad = await run(h, { connector_id: c.id, arguments: { base: site.url, explode: true }, ...(await secretsBody()) });
    expect(bad.error.type).toBe('site_changed');
    const codes = [-2, -1, 0, 1, 2].map((k) => totpCode(S.seed, Date.now() + k * 30_000));
    for (const id of [ok.id, bad.id]) {
      const logs = await logsOf(h, id);
      expect(logs).toMatch(/bound \[redacted\] \[redacted\] code \[redacted\]/);
      expect(logs).toMatch(/per-run \[redacted\] \[redacted\]/);
      expect(logs).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/api\/slow\?ms=1&p=\[redacted\]&t=\[redacted\] → 200/);
      for (const s of [S.user, S.pass, encodeURIComponent(S.pass), S.seed, S.runPass, S.runValue, ...codes]) expect(logs).not.toContain(s);
    }
    expect(bad.error.message).toBe('bad [redacted]');
    expect(bad.error.details).toEqual({ token: '[redacted]' });
  });

  it("redacts the run's credentials from its result (usernames stay), stored or not", async () => {
    for (const async of [false, true]) {
      const r = await run(h, { connector_id: c.id, arguments: { base: site.url, leak: true }, async, ...(await secretsBody()) });
      const done = async ? await waitRun(h, r.id) : r;
      expect(done.status, JSON.stringify(done.error)).toBe('success');
      expect(done.result).toEqual({
        ok: true,
        pass: '[redacted]',
        note: 'token=[redacted]!',
        user: S.user,
        list: ['[redacted]'],
        '[redacted]': 1,
      });
      const again = (await h.api('GET', `/v1beta/runs/${r.id}`)).json;
      expect(again.result).toEqual(done.result);
      expect(JSON.stringify(again)).not.toContain(S.pass);
      expect(again.result_size_bytes).toBe(Buffer.byteLength(JSON.stringify(done.result)));
      expect(await logsOf(h, r.id)).toContain('the result held a secret value of this run');
    }
  });

  it('never persists secret_values (data dir files, PostgreSQL rows, server logs)', async () => {
    const a = await run(h, { connector_id: c.id, arguments: { base: site.url }, async: true, ...(await secretsBody()) });
    expect(a.status).toBe('pending');
    await new Promise((r) => setTimeout(r, 300));
    const hay: string[] = [h.logs.join('\n')];
    for (const f of filesUnder(h.dataDir)) hay.push(fs.readFileSync(f).toString('latin1'));
    if (backend === 'postgres') {
      const {
        rows: [cur],
      } = await sql<{ s: string }>`select current_schema() as s`.execute(h.services.db);
      const { rows: tables } = await sql<{
        t: string;
      }>`select table_name as t from information_schema.tables where table_schema = ${cur.s} and table_type = 'BASE TABLE'`.execute(
        h.services.db,
      );
      for (const { t } of tables)
        hay.push(JSON.stringify((await sql`select x::text as r from ${sql.id(cur.s, t)} x`.execute(h.services.db)).rows));
    }
    const all = hay.join('\n');
    expect(all).toContain(a.id);
    for (const s of EPHEMERAL) expect(all).not.toContain(s);
  });

  it('validates arguments against input_schema with locs under body.arguments', async () => {
    const body = { connector_id: c.id, ...(await secretsBody()) };
    let r = await h.api('POST', '/v1beta/runs', { ...body, arguments: { n: 0, extra: 1 } });
    expect(r.status).toBe(422);
    expect(r.json.detail.map((e: any) => [e.loc.join('.'), e.type])).toEqual([
      ['body.arguments.base', 'missing'],
      ['body.arguments.extra', 'extra_forbidden'],
      ['body.arguments.n', 'greater_than_equal'],
    ]);
    r = await h.api('POST', '/v1beta/runs', { ...body, arguments: { base: 5 } });
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'arguments', 'base'], type: 'string_type', input: 5 });
    expect(h.services.runtime.versions.compiles).toBeLessThanOrEqual(2);
  });

  it('enforces the secret slot rules without echoing values', async () => {
    const bank = await loginSecret(h, S.user, S.pass, S.seed);
    const str = (await h.api('POST', '/v1beta/secrets', { name: 'tok', secret_type: 'string', value: S.runValue })).json.id;
    const other = await h.newUser('other');
    const foreign = await loginSecret(h, 'x', 'y', null, other.key);
    const base = { connector_id: c.id, arguments: { base: site.url } };
    const locs = async (b: Record<string, unknown>) => {
      const r = await h.api('POST', '/v1beta/runs', { ...base, ...b });
      expect(r.status, r.text).toBe(422);
      for (const s of [S.pass, S.runPass, S.runValue]) expect(r.text).not.toContain(s);
      return r.json.detail.map((e: any) => `${e.loc.join('.')}:${e.type}`);
    };
    expect(await locs({ secret_bindings: { bank } })).toEqual(['body.secret_bindings.other:missing', 'body.secret_bindings.token:missing']);
    expect(
      await locs({
        secret_bindings: { bank, token: bank, nope: bank },
        secret_values: { other: { value: S.runValue }, bank: { username: 'u', password: S.runPass } },
      }),
    ).toEqual([
      'body.secret_bindings.nope:value_error',
      'body.secret_values.bank:value_error',
      'body.secret_values.other.value:extra_forbidden',
      'body.secret_values.other.username:missing',
      'body.secret_values.other.password:missing',
      'body.secret_bindings.token:value_error',
    ]);
    expect(await locs({ secret_bindings: { bank: foreign, other: str, token: str } })).toEqual([
      'body.secret_bindings.bank:value_error',
      'body.secret_bindings.other:value_error',
    ]);
    expect(
      await locs({
        secret_bindings: { bank },
        secret_values: { other: { username: 'u', password: 5 }, token: { value: S.runValue, extra: S.runPass } },
      }),
    ).toEqual(expect.arrayContaining(['body.secret_values.other.password:string_type', 'body.secret_values.token.extra:extra_forbidden']));
  });

  it('validates proxy_settings, max_timeout_s and the connector', async () => {
    const base = { connector_id: c.id, arguments: { base: site.url }, ...(await secretsBody()) };
    const one = async (b: Record<string, unknown>) =>
      (await h.api('POST', '/v1beta/runs', { ...base, ...b })).json.detail.map((e: any) => `${e.loc.join('.')}:${e.type}`);
    expect(await one({ proxy_settings: { type: 'isp', location: 'de' } })).toEqual(['body.proxy_settings.location:enum']);
    expect(await one({ proxy_settings: { type: 'residential', location: 'zz' } })).toEqual(['body.proxy_settings.location:enum']);
    expect(await one({ proxy_settings: { type: 'residential', location: 'de', port: 1 } })).toEqual([
      'body.proxy_settings.port:extra_forbidden',
    ]);
    expect(await one({ proxy_settings: { type: 'datacenter', location: 'us' } })).toEqual(['body.proxy_settings.type:union_tag_invalid']);
    expect(await one({ proxy_settings: { type: 'isp' } })).toEqual(['body.proxy_settings.location:missing']);
    // Valid settings, but this deployment maps no proxy for them.
    expect(await one({ proxy_settings: { type: 'isp', location: 'us' } })).toEqual(['body.proxy_settings:value_error']);
    expect(await one({ max_timeout_s: 0 })).toEqual(['body.max_timeout_s:greater_than_equal']);
    expect(await one({ max_timeout_s: 3601 })).toEqual(['body.max_timeout_s:less_than_equal']);
    expect(await one({ async: 'yes' })).toEqual(['body.async:bool_type']);
    expect((await h.api('POST', '/v1beta/runs', { ...base, connector_id: crypto.randomUUID() })).status).toBe(404);
    expect((await h.api('GET', '/v1beta/runs')).json.detail[0]).toMatchObject({ loc: ['query', 'connector_id'], type: 'missing' });
    expect((await h.api('GET', `/v1beta/runs?connector_id=${c.id}&version=0`)).json.detail[0].loc).toEqual(['query', 'version']);
    const other = await h.newUser('peeker');
    const r = await run(h, { ...base, proxy_settings: null });
    expect((await h.api('GET', `/v1beta/runs/${r.id}`, undefined, other.key)).status).toBe(404);
    expect((await h.api('GET', `/v1beta/runs/${r.id}/logs`, undefined, other.key)).status).toBe(404);
  });
});
