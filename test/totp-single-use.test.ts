// Single-use TOTP (issue 11): against a site that refuses a code already used in its 30 s step
// (the demo site's single_use_totp toggle, like DokuWiki or Gitea), runs and validation replays
// never send the same code twice for one seed: a second login in the same step waits for the
// next one (the step ledger, table totp_steps), bounded by the run's timeout.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoSite, BOB_TOTP_SEED } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { httpSearchDefinition, LOGIN_SLOT, SEARCH_INPUT, SEARCH_OUTPUT } from './fixtures/definitions.js';
import { loginSecret, logsOf, publish, run } from './helpers/runs.js';
import { fixtureHar, synthesizeFrom } from './helpers/synth.js';
import { seedHash, TotpLedger } from '../src/runtime/host/totp-ledger.js';
import { totpCode } from '../src/lib/totp.js';

const WAIT_LINE = /waiting \d+ s for a fresh TOTP step \(codes are single-use\)/;

const SCRIPT_SOURCE = `export default async function (ctx) {
  const login = await ctx.http.get(ctx.args.base + '/login');
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(login.text)[1];
  const s = ctx.secrets.account;
  const r1 = await ctx.http.post(ctx.args.base + '/login', { form: { csrf_token: csrf, username: s.username, password: s.password } });
  const csrf2 = /name="csrf_token" value="([^"]+)"/.exec(r1.text)[1];
  await ctx.http.post(ctx.args.base + '/login/totp', { form: { csrf_token: csrf2, code: ctx.totp('account') } });
  const acct = await ctx.http.get(ctx.args.base + '/api/account');
  if (acct.status !== 200) ctx.fail('auth_required', 'not signed in');
  return { plan: acct.json().plan };
}`;

/** Until at least `ms` are left in the current 30 s step (so a test's runs share one step). */
async function earlyInStep(ms: number): Promise<void> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < ms) await new Promise((r) => setTimeout(r, left + 50));
}

describe.each(await backends())('single-use TOTP (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let connector: any;
  let bob: string;
  const bobCodes = () => site.state.totpLog.filter((e) => e.username === 'bob');
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend);
    connector = await publish(h, {
      definition: httpSearchDefinition(site.url),
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    bob = await loginSecret(h, 'bob', 'builder', BOB_TOTP_SEED);
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });
  beforeEach(async () => {
    await fetch(`${site.url}/__reset`, { method: 'POST' });
    await fetch(`${site.url}/__control`, { method: 'POST', body: JSON.stringify({ single_use_totp: true }) });
  });

  it('runs started together with the same secret all log in: the later ones wait for a fresh step', async () => {
    const script = await publish(h, {
      definition: { format: 'connector-definition/v1', engine: 'script', source: SCRIPT_SOURCE },
      required_secrets: [LOGIN_SLOT],
    });
    await earlyInStep(10_000);
    const [a, b, c] = await Promise.all([
      run(h, { connector_id: connector.id, arguments: { query: 'gamma' }, secret_bindings: { account: bob } }),
      run(h, { connector_id: connector.id, arguments: { query: 'delta' }, secret_bindings: { account: bob } }),
      run(h, { connector_id: script.id, arguments: { base: site.url }, secret_bindings: { account: bob } }),
    ]);
    for (const r of [a, b, c]) expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(a.result.total).toBe(8);
    expect(b.result.items[0]).toMatchObject({ id: 4 });
    expect(c.result).toEqual({ plan: 'pro' });
    // Every code the site saw was accepted, each of its own step; two runs waited for theirs.
    const codes = bobCodes();
    expect(codes).toHaveLength(3);
    expect(codes.every((e) => e.accepted && !e.reused)).toBe(true);
    expect(new Set(codes.map((e) => e.step)).size).toBe(3);
    const logs = await Promise.all([a, b, c].map((r) => logsOf(h, r.id)));
    expect(logs.filter((l) => WAIT_LINE.test(l)).length).toBeGreaterThanOrEqual(2);
    // The codes themselves (handed out by the server now, not computed in the worker) stay out of the logs.
    for (const e of codes) for (const l of logs) expect(l).not.toContain(totpCode(BOB_TOTP_SEED, e.step * 30_000));
  }, 120_000);

  // SQLite only: three logins in a row take ~90 s; the ledger on PostgreSQL is covered by the concurrent runs.
  it.skipIf(backend !== 'sqlite')(
    'validation replays of a synthesized TOTP flow never reuse a code, nor does the run right after',
    async () => {
      const r = await synthesizeFrom(h, fixtureHar('capture/search-totp', site.url), { hints: { secrets: { account: bob } } });
      expect(r.status, r.text).toBe(200);
      const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
      // Two replays (recorded query, then a changed one), each with its own login.
      expect(def.meta.validation).toMatchObject({ replayed: true, changed_argument: 'q' });
      const out = await run(h, { connector_id: r.json.id, arguments: { q: 'delta' }, secret_bindings: { account: bob } });
      expect(out.status, JSON.stringify(out.error)).toBe('success');
      expect(JSON.stringify(out.result)).toContain('Delta');
      const codes = bobCodes();
      expect(codes.length).toBeGreaterThanOrEqual(3);
      expect(codes.filter((e) => e.reused)).toEqual([]);
      expect(new Set(codes.map((e) => e.step)).size).toBe(codes.length);
    },
    180_000,
  );

  it('a run whose timeout comes before the next free step ends at once with a clear, retryable auth_required', async () => {
    const seed = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    // Another process sharing the database has used this step and the next one.
    const other = new TotpLedger(h.services.db);
    const step = Math.floor(Date.now() / 30_000);
    expect(await other.tryClaim(seed, step)).toBe(true);
    expect(await other.tryClaim(seed, step + 1)).toBe(true);
    const secret = await loginSecret(h, 'bob', 'builder', seed);
    const t0 = Date.now();
    const r = await run(h, {
      connector_id: connector.id,
      arguments: { query: 'gamma' },
      secret_bindings: { account: secret },
      max_timeout_s: 20,
    });
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.status).toBe('connector_error');
    expect(r.error).toMatchObject({ type: 'auth_required', retryable: true, details: { slot: 'account' } });
    expect(r.error.message).toMatch(/already used in this 30 s step \(codes are single-use\).*after the run's timeout/);
    expect(await logsOf(h, r.id)).toMatch(/already used in this 30 s step/);
    expect(bobCodes()).toEqual([]); // nothing was sent to the site
  });

  it('a code the site rejects is named in the error, with whether it was fresh', async () => {
    const wrong = await loginSecret(h, 'bob', 'builder', 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U');
    const r = await run(h, { connector_id: connector.id, arguments: { query: 'gamma' }, secret_bindings: { account: wrong } });
    expect(r.error).toMatchObject({ type: 'auth_required', retryable: false });
    expect(r.error.message).toMatch(
      /^the site rejected the TOTP code of slot 'account' \(the login page came back after it was sent\); the code was fresh \(never used before by this service/,
    );
  });

  it.skipIf(backend !== 'sqlite')(
    'a TOTP code pasted into a capture session is claimed too: the replay after the recording gets another',
    async () => {
      const seed = 'ONSWG4TFORZWK5DTMVRXEZLUONSWG4TF';
      const secret = await loginSecret(h, 'bob', 'builder', seed);
      const s = (await h.api('POST', '/v1beta/capture_sessions')).json;
      try {
        const paste = () => h.api('POST', `/v1beta/capture_sessions/${s.id}/paste`, { field: 'totp', secret_id: secret });
        expect((await paste()).status).toBe(204);
        const t0 = Date.now();
        const nextStep = (Math.floor(t0 / 30_000) + 1) * 30_000;
        expect((await paste()).status).toBe(204); // waited for the next step
        expect(Date.now()).toBeGreaterThanOrEqual(nextStep);
        const rows = await h.services.db
          .selectFrom('totp_steps')
          .selectAll()
          .where('seed_hash', '=', seedHash(seed))
          .orderBy('step')
          .execute();
        expect(rows.map((r) => Number(r.step))).toEqual([nextStep / 30_000 - 1, nextStep / 30_000]);
      } finally {
        await h.api('POST', `/v1beta/capture_sessions/${s.id}/abandon`);
      }
    },
    90_000,
  );

  it('the ledger: of simultaneous claims of one step from two processes exactly one wins; old steps are pruned', async () => {
    const seed = 'MZXW6YTBOI2TEMZUGU3DOOBZGA2TEMZU';
    const [p1, p2] = [new TotpLedger(h.services.db), new TotpLedger(h.services.db)];
    const step = Math.floor(Date.now() / 30_000);
    const wins = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? p1 : p2).tryClaim(seed, step)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    await h.services.db
      .insertInto('totp_steps')
      .values({ seed_hash: seedHash(seed), step: step - 100, claimed_at: new Date().toISOString() })
      .execute();
    expect(await new TotpLedger(h.services.db).tryClaim(seed, step + 1)).toBe(true);
    const left = await h.services.db.selectFrom('totp_steps').select('step').where('seed_hash', '=', seedHash(seed)).execute();
    expect(left.map((r) => Number(r.step)).sort()).toEqual([step, step + 1]);
  });

  it('the ledger holds a hash of the seed and the step, never the seed', async () => {
    const rows = await h.services.db.selectFrom('totp_steps').selectAll().execute();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const text = JSON.stringify(rows);
    for (const s of [
      BOB_TOTP_SEED,
      BOB_TOTP_SEED.toLowerCase(),
      Buffer.from(BOB_TOTP_SEED).toString('base64'),
      Buffer.from(BOB_TOTP_SEED).toString('hex'),
    ])
      expect(text).not.toContain(s);
    for (const row of rows) {
      expect(row.seed_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(Number.isInteger(Number(row.step))).toBe(true);
    }
  });
});

describe('without the ledger (TOTP_CODE_REUSE=allow) the fixture site refuses the second login of a step', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness('sqlite', { TOTP_CODE_REUSE: 'allow' });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('two runs in one step: one succeeds, the other is told its code was rejected', async () => {
    await fetch(`${site.url}/__control`, { method: 'POST', body: JSON.stringify({ single_use_totp: true }) });
    const connector = await publish(h, {
      definition: httpSearchDefinition(site.url),
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
    });
    const bob = await loginSecret(h, 'bob', 'builder', BOB_TOTP_SEED);
    await earlyInStep(20_000);
    const rs = await Promise.all(
      [0, 1].map(() => run(h, { connector_id: connector.id, arguments: { query: 'gamma' }, secret_bindings: { account: bob } })),
    );
    expect(rs.map((r) => r.status).sort()).toEqual(['connector_error', 'success']);
    const failed = rs.find((r) => r.status !== 'success');
    expect(failed.error.message).toMatch(
      /^the site rejected the TOTP code of slot 'account' .*; the code may have been sent before in its 30 s step \(TOTP_CODE_REUSE=allow\)/,
    );
    expect(site.state.totpLog.filter((e) => e.reused)).toHaveLength(1);
  });
});
