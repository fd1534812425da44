// Webhooks end to end on SQLite and PostgreSQL: a receiver on 127.0.0.1 checks every delivery
// with the `standardwebhooks` library (interoperability, not our own verifier); per-request
// webhook_urls and subscriptions; retries with backoff recorded in the delivery log;
// redelivery; the egress policy at subscription and at delivery time; other users see 404;
// sentinel secret values never reach a payload, the delivery log or the server log; and a
// delivery in flight when the service stops is delivered by the next service on the same data.
// The receivers listen on 127.0.0.1 and are reachable as the demo site is for runs: loopback is
// allowed by EGRESS_PRIVATE's default (allow); the service's own port stays refused (rule 2).
import crypto from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { Webhook } from 'standardwebhooks';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newSigningSecret } from '../src/modules/webhooks/signing.js';
import { createServices } from '../src/services.js';
import { WebhookStore } from '../src/modules/webhooks/store.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { publish, run, waitRun } from './helpers/runs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const ENV = {
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_MS: '200',
  WEBHOOK_MAX_ATTEMPTS: '4',
  WEBHOOK_TIMEOUT_S: '3',
};

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

type Behaviour = number | 'hang';

/** An HTTP receiver on loopback: answers each path by its plan (statuses in turn, then the last one), records every request. */
async function startReceiver() {
  const got: Received[] = [];
  const plans = new Map<string, Behaviour[]>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      got.push({ path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      const plan = plans.get(path) ?? [200];
      const step = plan.length > 1 ? plan.shift()! : plan[0];
      if (step === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(step, { 'content-type': 'text/plain' }).end(step >= 300 ? `nope ${step}` : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url,
    got,
    plan: (path: string, steps: Behaviour[]) => plans.set(path, [...steps]),
    at: (path: string) => got.filter((g) => g.path === path),
    close: () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

async function until<T>(what: string, fn: () => Promise<T> | T, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The payload, verified the Standard Webhooks way with `secret`; throws if the signature is wrong. */
const verified = (r: Received, secret: string): any => new Webhook(secret).verify(r.body, r.headers);

const SCRIPT = {
  format: 'connector-definition/v1',
  engine: 'script',
  source: `export default async (ctx) => {
    if (ctx.args.fail) ctx.fail('site_changed', 'failed with ' + (ctx.secrets.token ? ctx.secrets.token.value : 'none'));
    if (ctx.secrets.token) { ctx.log('token is', ctx.secrets.token.value); return { echo: ctx.secrets.token.value, n: ctx.args.n ?? 0 }; }
    return { n: ctx.args.n ?? 0 };
  }`,
};
const INPUT = { type: 'object', properties: { n: { type: 'integer' }, fail: { type: 'boolean' } } };

describe.each(await backends())('webhooks (%s)', (backend) => {
  let h: Harness;
  let rx: Receiver;
  let plain: any;
  let leaky: any;
  let other: { userId: string; key: string };

  beforeAll(async () => {
    rx = await startReceiver();
    h = await startHarness(backend, ENV);
    plain = await publish(h, { definition: SCRIPT, input_schema: INPUT });
    leaky = await publish(h, { definition: SCRIPT, input_schema: INPUT, required_secrets: [{ name: 'token', type: 'string' }] });
    other = await h.newUser('webhooks-other');
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  const deliveries = async (query = '', key?: string) => (await h.api('GET', `/v1beta/webhooks/deliveries${query}`, undefined, key)).json;
  const deliveryOf = async (resourceId: string, targetPath: string) =>
    until(
      `a delivery about ${resourceId} to ${targetPath}`,
      async () => (await deliveries(`?resource_id=${resourceId}`)).data.find((d: any) => d.target_url === rx.url + targetPath),
      (d) => !!d,
    );
  const settled = (id: string) =>
    until(
      `delivery ${id} to settle`,
      async () => (await h.api('GET', `/v1beta/webhooks/deliveries/${id}`)).json,
      (d) => d.status !== 'pending',
    );
  const subscribe = async (path: string, event_types: string[]) => {
    const r = await h.api('POST', '/v1beta/webhooks', { url: rx.url + path, event_types, description: path });
    expect(r.status, r.text).toBe(200);
    return r.json;
  };

  it('a run with webhook_url delivers run.completed with its final state, signed with the signing secret', async () => {
    const secret = (await h.api('GET', '/v1beta/webhooks/signing-secret')).json;
    expect(secret.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    // Created once, then the same on every read.
    expect((await h.api('GET', '/v1beta/webhooks/signing-secret')).json).toEqual(secret);

    const r = await run(h, { connector_id: plain.id, arguments: { n: 7 }, async: true, webhook_url: `${rx.url}/run?x=1` });
    const final = await waitRun(h, r.id);
    expect(final.status).toBe('success');
    const got = await until(
      'the run webhook',
      () => rx.at('/run?x=1'),
      (g) => g.length === 1,
    );
    const body = verified(got[0], secret.secret);
    expect(body).toEqual({ type: 'run.completed', timestamp: expect.any(String), data: final });
    expect(body.data.result).toEqual({ n: 7 });
    expect(got[0].headers['content-type']).toBe('application/json');
    expect(got[0].headers['webhook-id']).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(Math.abs(Number(got[0].headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    // A wrong secret does not verify.
    expect(() => verified(got[0], newSigningSecret())).toThrow(/signature/i);

    const d = await settled((await deliveryOf(r.id, '/run?x=1')).id);
    expect(d).toMatchObject({
      event_id: got[0].headers['webhook-id'],
      event_type: 'run.completed',
      resource_id: r.id,
      subscription_id: null,
      status: 'succeeded',
      attempt_count: 1,
      last_response_status: 200,
      last_error: null,
      next_attempt_at: null,
      attempts: [{ attempt: 1, response_status: 200, error: null, started_at: expect.any(String), duration_ms: expect.any(Number) }],
    });
  });

  it("a failure to queue an event's deliveries never undoes the run's end", async () => {
    // The database refuses every delivery row (a trigger): the run still ends, as it would have.
    const db = h.services.db;
    if (backend === 'postgres') {
      await sql`create function refuse_delivery() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`.execute(
        db,
      );
      await sql`create trigger refuse_delivery before insert on webhook_deliveries for each row execute function refuse_delivery()`.execute(
        db,
      );
    } else {
      await sql`create trigger refuse_delivery before insert on webhook_deliveries begin select raise(abort, 'refused by the test'); end`.execute(
        db,
      );
    }
    try {
      const r = await run(h, { connector_id: plain.id, arguments: { n: 3 }, async: true, webhook_url: `${rx.url}/refused` });
      const final = await waitRun(h, r.id);
      expect(final.status).toBe('success');
      expect(final.result).toEqual({ n: 3 });
      expect((await deliveries(`?resource_id=${r.id}`)).data).toEqual([]);
    } finally {
      await sql`drop trigger refuse_delivery${backend === 'postgres' ? sql` on webhook_deliveries` : sql``}`.execute(db);
      if (backend === 'postgres') await sql`drop function refuse_delivery()`.execute(db);
    }
    // Deliveries are queued again once the database takes them.
    const r = await run(h, { connector_id: plain.id, arguments: { n: 4 }, async: true, webhook_url: `${rx.url}/refused` });
    expect((await waitRun(h, r.id)).status).toBe('success');
    await until(
      'the next webhook',
      () => rx.at('/refused'),
      (g) => g.length === 1,
    );
  });

  it('a cancelled run delivers run.completed with status cancelled', async () => {
    const slow = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'script',
        source: 'export default async () => { await new Promise((r) => setTimeout(r, 60000)); return {}; }',
      },
      input_schema: { type: 'object' },
    });
    const secret = (await h.api('GET', '/v1beta/webhooks/signing-secret')).json.secret;
    const r = await run(h, { connector_id: slow.id, arguments: {}, async: true, webhook_url: `${rx.url}/cancelled` });
    await until(
      'the run to start',
      async () => (await h.api('GET', `/v1beta/runs/${r.id}`)).json.status,
      (s) => s === 'running',
    );
    expect((await h.api('POST', `/v1beta/runs/${r.id}/cancel`)).json.status).toBe('cancelled');
    const got = await until(
      'the cancel webhook',
      () => rx.at('/cancelled'),
      (g) => g.length === 1,
    );
    expect(verified(got[0], secret)).toMatchObject({ type: 'run.completed', data: { id: r.id, status: 'cancelled' } });
  });

  it('subscriptions receive the events they subscribed to, signed with their own secret shown once', async () => {
    const runs = await subscribe('/sub-runs', ['run.completed']);
    const tasks = await subscribe('/sub-tasks', ['task.completed']);
    const all = await subscribe('/sub-all', ['*']);
    for (const s of [runs, tasks, all]) {
      expect(s.secret).toMatch(/^whsec_/);
      expect(s.id).toBeTruthy();
    }
    expect(new Set([runs.secret, tasks.secret, all.secret]).size).toBe(3);
    expect(runs).toMatchObject({ url: `${rx.url}/sub-runs`, event_types: ['run.completed'], description: '/sub-runs' });
    // Never shown again.
    const listed = (await h.api('GET', '/v1beta/webhooks')).json;
    expect(listed.map((s: any) => s.id)).toEqual(expect.arrayContaining([runs.id, tasks.id, all.id]));
    const one = (await h.api('GET', `/v1beta/webhooks/${runs.id}`)).json;
    const { secret: _s, ...shown } = runs;
    expect(one).toEqual(shown);
    for (const text of [JSON.stringify(listed), JSON.stringify(one)])
      for (const s of [runs, tasks, all]) expect(text).not.toContain(s.secret);

    const r = await run(h, { connector_id: plain.id, arguments: { n: 1 } });
    expect(r.status).toBe('success');
    const [a] = await until(
      'run event at /sub-runs',
      () => rx.at('/sub-runs'),
      (g) => g.length === 1,
    );
    const [b] = await until(
      'run event at /sub-all',
      () => rx.at('/sub-all'),
      (g) => g.length >= 1,
    );
    expect(verified(a, runs.secret)).toMatchObject({ type: 'run.completed', data: { id: r.id, status: 'success', result: { n: 1 } } });
    expect(verified(b, all.secret).data.id).toBe(r.id);
    // One event, one webhook-id for every target; each target has its own secret.
    expect(a.headers['webhook-id']).toBe(b.headers['webhook-id']);
    expect(() => verified(a, all.secret)).toThrow();
    expect((await deliveries(`?subscription_id=${runs.id}`)).data.map((d: any) => d.resource_id)).toEqual([r.id]);
    // The task subscription got nothing of it.
    await new Promise((res) => setTimeout(res, 300));
    expect(rx.at('/sub-tasks')).toEqual([]);
    expect((await deliveries(`?subscription_id=${tasks.id}`)).data).toEqual([]);

    // Deleting: gone for good, its secret with it.
    expect((await h.api('DELETE', `/v1beta/webhooks/${tasks.id}`)).json).toEqual({ id: tasks.id, deleted: true });
    expect((await h.api('GET', `/v1beta/webhooks/${tasks.id}`)).status).toBe(404);
    expect(await h.services.vault.get({ ownerId: h.userId, secretId: tasks.id })).toBeNull();
    for (const s of [runs, all]) await h.api('DELETE', `/v1beta/webhooks/${s.id}`);
  });

  it('a change to the subscriptions reaches the very next event: created, deleted, or made by another process', async () => {
    const ok = async (n: number) => {
      const r = await run(h, { connector_id: plain.id, arguments: { n } });
      expect(r.status).toBe('success');
      return r.id as string;
    };
    const queuedFor = (subId: string, n: number) =>
      until(
        `${n} deliveries of subscription ${subId}`,
        async () => (await deliveries(`?subscription_id=${subId}`)).data.map((d: any) => d.resource_id),
        (ids) => ids.length >= n,
      );
    // Runs of a user without subscriptions first (the server may keep knowing that there are none).
    await ok(1);
    await ok(2);
    const sub = await subscribe('/next', ['run.completed']);
    const first = await ok(3);
    expect(await queuedFor(sub.id, 1)).toEqual([first]);
    expect((await h.api('DELETE', `/v1beta/webhooks/${sub.id}`)).status).toBe(200);
    await ok(4);
    await new Promise((r) => setTimeout(r, 300));
    expect((await deliveries(`?subscription_id=${sub.id}`)).data.map((d: any) => d.resource_id)).toEqual([first]);
    // Another instance on the same database (another server process) subscribes this user.
    const elsewhere = await createServices(h.config, { pgSchema: h.pgSchema });
    try {
      const s2 = await elsewhere.webhooks.createSubscription(h.userId, { url: `${rx.url}/elsewhere`, event_types: ['run.completed'] });
      const next = await ok(5);
      expect(await queuedFor(s2.id, 1)).toEqual([next]);
      const [got] = await until(
        'the delivery to the subscription made elsewhere',
        () => rx.at('/elsewhere'),
        (g) => g.length === 1,
      );
      expect(verified(got, s2.secret)).toMatchObject({ type: 'run.completed', data: { id: next } });
      await elsewhere.webhooks.deleteSubscription(h.userId, s2.id);
    } finally {
      await elsewhere.close();
    }
  });

  it('capture sessions and tasks deliver their end (capture_session.completed, task.completed)', async () => {
    const sub = await subscribe('/sub-capture', ['capture_session.completed', 'task.completed']);
    const signing = (await h.api('GET', '/v1beta/webhooks/signing-secret')).json.secret;
    const cs = await h.api('POST', '/v1beta/capture_sessions', { webhook_url: `${rx.url}/capture` });
    expect(cs.status, cs.text).toBe(200);
    const abandoned = await h.api('POST', `/v1beta/capture_sessions/${cs.json.id}/abandon`);
    expect(abandoned.json.state).toBe('abandoned');
    const [c] = await until(
      'capture webhook',
      () => rx.at('/capture'),
      (g) => g.length === 1,
    );
    expect(verified(c, signing)).toEqual({
      type: 'capture_session.completed',
      timestamp: expect.any(String),
      data: (await h.api('GET', `/v1beta/capture_sessions/${cs.json.id}`)).json,
    });

    const t = await h.api('POST', '/v1beta/tasks', {
      display_name: 'Hooked',
      task: 'Anything',
      website: 'http://127.0.0.1:9/',
      webhook_url: `${rx.url}/task`,
    });
    expect(t.status, t.text).toBe(200);
    const start = await h.api('POST', `/v1beta/tasks/${t.json.id}/start-manual-session`);
    expect(start.status, start.text).toBe(200);
    await h.api('POST', `/v1beta/capture_sessions/${start.json.session_id}/abandon`);
    const [task] = await until(
      'task webhook',
      () => rx.at('/task'),
      (g) => g.length === 1,
    );
    const body = verified(task, signing);
    expect(body).toMatchObject({ type: 'task.completed', data: { id: t.json.id, current_state: 'failed' } });
    expect(body.data).toEqual((await h.api('GET', `/v1beta/tasks/${t.json.id}`)).json);
    // The subscription got both sessions' ends and the task's.
    const subGot = await until(
      'subscription events',
      () => rx.at('/sub-capture'),
      (g) => g.length === 3,
    );
    expect(subGot.map((g) => verified(g, sub.secret).type).sort()).toEqual([
      'capture_session.completed',
      'capture_session.completed',
      'task.completed',
    ]);
    await h.api('DELETE', `/v1beta/webhooks/${sub.id}`);
  });

  it('retries with backoff: two 500s then 200 are three attempts in the log; redelivery sends it again', async () => {
    rx.plan('/flaky', [500, 500, 200]);
    const secret = (await h.api('GET', '/v1beta/webhooks/signing-secret')).json.secret;
    const r = await run(h, { connector_id: plain.id, arguments: { n: 3 }, webhook_url: `${rx.url}/flaky` });
    const d = await settled((await deliveryOf(r.id, '/flaky')).id);
    expect(d.status).toBe('succeeded');
    expect(d.attempt_count).toBe(3);
    expect(d.attempts.map((a: any) => [a.attempt, a.response_status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    expect(d.attempts[0].error).toBe('the receiver answered 500: nope 500');
    expect(d.attempts[2].error).toBeNull();
    for (let i = 1; i < 3; i++)
      expect(Date.parse(d.attempts[i].started_at)).toBeGreaterThanOrEqual(Date.parse(d.attempts[i - 1].started_at));
    const got = rx.at('/flaky');
    expect(got).toHaveLength(3);
    // Every attempt is signed anew and verifies; the webhook-id stays the event's.
    for (const g of got) expect(verified(g, secret).data.id).toBe(r.id);
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(1);

    const again = await h.api('POST', `/v1beta/webhooks/deliveries/${d.id}/redeliver`);
    expect(again.status, again.text).toBe(202);
    expect(again.json.id).toBe(d.id);
    const redone = await until(
      'the redelivery',
      async () => (await h.api('GET', `/v1beta/webhooks/deliveries/${d.id}`)).json,
      (x) => x.status === 'succeeded' && x.attempt_count === 4,
    );
    expect(redone.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(rx.at('/flaky')).toHaveLength(4);
    expect(rx.at('/flaky')[3].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
  });

  it('gives up after WEBHOOK_MAX_ATTEMPTS; a redelivery starts a new round', async () => {
    rx.plan('/down', [503]);
    const r = await run(h, { connector_id: plain.id, webhook_url: `${rx.url}/down` });
    const d = await settled((await deliveryOf(r.id, '/down')).id);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 4, last_response_status: 503, next_attempt_at: null });
    rx.plan('/down', [200]);
    expect((await h.api('POST', `/v1beta/webhooks/deliveries/${d.id}/redeliver`)).status).toBe(202);
    const ok = await settled(d.id);
    expect(ok).toMatchObject({ status: 'succeeded', attempt_count: 5 });
  });

  it('applies the egress policy: refused URLs are 422 when given, and checked again at every delivery', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fd00:ec2::254]/', `${h.url}/v1beta/secrets`]) {
      const r = await h.api('POST', '/v1beta/webhooks', { url, event_types: ['*'] });
      expect(r.status, url).toBe(422);
      expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'value_error' });
      expect(r.json.detail[0].msg).toMatch(/egress denied/);
    }
    const creds = await h.api('POST', '/v1beta/webhooks', { url: `http://u:p@${rx.url.slice(7)}/x`, event_types: ['*'] });
    expect(creds.status).toBe(422);
    expect(creds.json.detail[0].msg).toMatch(/credentials/);
    for (const bad of [
      { url: 'ftp://example.com/x', event_types: ['*'] },
      { url: `${rx.url}/x`, event_types: ['run.exploded'] },
    ]) {
      expect((await h.api('POST', '/v1beta/webhooks', bad)).status).toBe(422);
    }
    expect((await h.api('POST', '/v1beta/webhooks', { url: `${rx.url}/x`, event_types: [] })).status).toBe(422);

    const metadata = 'http://169.254.169.254/latest/meta-data';
    const viaRun = await h.api('POST', '/v1beta/runs', { connector_id: plain.id, webhook_url: metadata });
    expect(viaRun.status).toBe(422);
    expect(viaRun.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'webhook_url'], type: 'value_error' })]);
    const viaSession = await h.api('POST', '/v1beta/capture_sessions', { webhook_url: metadata });
    expect(viaSession.status).toBe(422);
    expect(viaSession.json.detail[0].loc).toEqual(['body', 'webhook_url']);
    const viaTask = await h.api('POST', '/v1beta/tasks', {
      display_name: 'x',
      task: 'x',
      website: 'https://example.com',
      webhook_url: metadata,
    });
    expect(viaTask.status).toBe(422);
    expect(viaTask.json.detail[0].loc).toEqual(['body', 'webhook_url']);

    // A URL that turned bad after it was accepted (as when DNS changes) is refused at delivery.
    // The row is written as a process that accepted it would have: through another connection
    // (this process keeps the subscriptions it read, and evicts on its own changes).
    const id = crypto.randomUUID();
    const elsewhere = await createServices(h.config, { pgSchema: h.pgSchema });
    await elsewhere.db
      .insertInto('webhook_subscriptions')
      .values({
        id,
        user_id: h.userId,
        url: metadata,
        event_types: '["run.completed"]',
        description: null,
        created_at: new Date().toISOString(),
      })
      .execute()
      .finally(() => elsewhere.close());
    await h.services.vault.put({ ownerId: h.userId, secretId: id }, { type: 'string', value: newSigningSecret() });
    const r = await run(h, { connector_id: plain.id });
    const d = await until(
      'the refused delivery',
      async () => (await deliveries(`?subscription_id=${id}&resource_id=${r.id}`)).data[0],
      (x) => x?.status === 'failed',
    );
    expect(d.attempt_count).toBe(4);
    for (const a of d.attempts) {
      expect(a.response_status).toBeNull();
      expect(a.error).toMatch(/egress denied: 169\.254\.169\.254:80 is link-local\/cloud metadata \(always denied\)/);
    }
    await h.api('DELETE', `/v1beta/webhooks/${id}`);
  });

  it("another user's subscriptions and deliveries are 404 to them, and not listed", async () => {
    const sub = await subscribe('/mine', ['run.completed']);
    const r = await run(h, { connector_id: plain.id });
    const d = await settled((await deliveryOf(r.id, '/mine')).id);
    const k = other.key;
    expect((await h.api('GET', `/v1beta/webhooks/${sub.id}`, undefined, k)).status).toBe(404);
    expect((await h.api('DELETE', `/v1beta/webhooks/${sub.id}`, undefined, k)).status).toBe(404);
    expect((await h.api('GET', `/v1beta/webhooks/deliveries/${d.id}`, undefined, k)).status).toBe(404);
    expect((await h.api('POST', `/v1beta/webhooks/deliveries/${d.id}/redeliver`, undefined, k)).status).toBe(404);
    expect((await h.api('GET', '/v1beta/webhooks', undefined, k)).json).toEqual([]);
    expect((await deliveries('', k)).data).toEqual([]);
    expect((await deliveries(`?subscription_id=${sub.id}`, k)).data).toEqual([]);
    expect((await h.api('GET', '/v1beta/webhooks/deliveries/not-an-id')).status).toBe(404);
    // Their signing secret is their own.
    const mine = (await h.api('GET', '/v1beta/webhooks/signing-secret')).json.secret;
    const theirs = (await h.api('GET', '/v1beta/webhooks/signing-secret', undefined, k)).json.secret;
    expect(theirs).toMatch(/^whsec_/);
    expect(theirs).not.toBe(mine);
    // Still there for its owner.
    expect((await h.api('GET', `/v1beta/webhooks/${sub.id}`)).status).toBe(200);

    // Deleting the subscription ends its pending deliveries; they can't be redelivered.
    rx.plan('/mine', [500]);
    const r2 = await run(h, { connector_id: plain.id });
    const pending = await deliveryOf(r2.id, '/mine');
    await h.api('DELETE', `/v1beta/webhooks/${sub.id}`);
    const ended = await settled(pending.id);
    expect(ended.status).toBe('failed');
    expect((await h.api('POST', `/v1beta/webhooks/deliveries/${pending.id}/redeliver`)).status).toBe(409);
  });

  it('rotating the signing secret signs every later attempt with the new one', async () => {
    const old = (await h.api('GET', '/v1beta/webhooks/signing-secret')).json.secret;
    const rotated = await h.api('POST', '/v1beta/webhooks/signing-secret');
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).not.toBe(old);
    expect((await h.api('GET', '/v1beta/webhooks/signing-secret')).json.secret).toBe(rotated.json.secret);
    await run(h, { connector_id: plain.id, webhook_url: `${rx.url}/rotated` });
    const [g] = await until(
      'rotated webhook',
      () => rx.at('/rotated'),
      (x) => x.length === 1,
    );
    expect(verified(g, rotated.json.secret).type).toBe('run.completed');
    expect(() => verified(g, old)).toThrow();
  });

  it('claims are exclusive: concurrent claimers (as several processes) never take the same delivery', async () => {
    await h.services.webhooks.stop(); // this process's own loop stays out of it
    try {
      const now = new Date().toISOString();
      const ids: string[] = Array.from({ length: 60 }, () => crypto.randomUUID());
      await h.services.db
        .insertInto('webhook_deliveries')
        .values(
          ids.map((id) => ({
            id,
            user_id: h.userId,
            subscription_id: null,
            event_id: `evt_${id}`,
            event_type: 'run.completed',
            resource_id: 'claim-test',
            target_url: `${rx.url}/never`,
            payload: '{}',
            status: 'pending' as const,
            attempts: 0,
            round_attempts: 0,
            next_attempt_at: now,
            lease_until: null,
            lease_token: null,
            last_response_status: null,
            last_error: null,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
      const lease = new Date(Date.now() + 60_000).toISOString();
      const claimers = Array.from({ length: 6 }, () => new WebhookStore(h.services.db));
      // Each claimer takes up to 10 (no per-user cap here); together they ask for 120 of 60.
      const won = (
        await Promise.all(claimers.flatMap((c) => [c.claim(10, lease, new Map(), 100), c.claim(10, lease, new Map(), 100)]))
      ).flat();
      const claimed = won.map((d) => d.id).filter((id) => ids.includes(id));
      expect(claimed.length).toBe(new Set(claimed).size);
      expect(claimed.length).toBeGreaterThan(0);
      // A held lease is not claimed again.
      expect((await claimers[0].claim(100, lease, new Map(), 100)).filter((d) => claimed.includes(d.id))).toEqual([]);
      await h.services.db.deleteFrom('webhook_deliveries').where('resource_id', '=', 'claim-test').execute();
    } finally {
      h.services.webhooks.start();
    }
    expect(rx.at('/never')).toEqual([]);
  });

  it('never puts a secret value in a payload, the delivery log or the server log (sentinels)', async () => {
    const SENTINEL = `sentinel-${crypto.randomBytes(12).toString('hex')}`;
    const sub = await subscribe('/sentinel', ['*']);
    const signing = (await h.api('GET', '/v1beta/webhooks/signing-secret')).json.secret;
    const bound = await h.api('POST', '/v1beta/secrets', { name: 'token', secret_type: 'string', value: `${SENTINEL}-bound` });
    const ids: string[] = [];
    for (const args of [{}, { fail: true }]) {
      const perRun = await run(h, {
        connector_id: leaky.id,
        arguments: args,
        secret_values: { token: { value: SENTINEL } },
        webhook_url: `${rx.url}/sentinel-direct`,
      });
      const boundRun = await run(h, {
        connector_id: leaky.id,
        arguments: args,
        secret_bindings: { token: bound.json.id },
        webhook_url: `${rx.url}/sentinel-direct`,
      });
      ids.push(perRun.id, boundRun.id);
    }
    const got = await until(
      'sentinel deliveries',
      () => [...rx.at('/sentinel'), ...rx.at('/sentinel-direct')],
      (g) => g.length === 8,
    );
    const bodies = got.map((g) => g.body).join('\n');
    expect(bodies).toContain('[redacted]');
    expect(bodies).not.toContain(SENTINEL);
    // The runs did hold it: the result redacts it, the failed run's error too.
    const results = got.map((g) => (g.path === '/sentinel' ? verified(g, sub.secret) : verified(g, signing)).data);
    expect(results.filter((x) => x.status === 'success').every((x) => x.result.echo === '[redacted]')).toBe(true);
    expect(results.filter((x) => x.status === 'connector_error').every((x) => x.error.message === 'failed with [redacted]')).toBe(true);
    for (const id of ids) await settled((await deliveryOf(id, '/sentinel')).id);

    const log = JSON.stringify([await deliveries('?limit=100'), (await h.api('GET', '/v1beta/webhooks')).json]);
    const server = h.logs.join('\n');
    for (const text of [log, server]) {
      expect(text).not.toContain(SENTINEL);
      expect(text).not.toContain(sub.secret);
      expect(text).not.toContain(signing);
      expect(text).not.toContain(signing.slice(6, 20));
    }
    // What is stored is the payload as sent: no sentinel in the queue either.
    const rows = await h.services.db.selectFrom('webhook_deliveries').select(['payload', 'last_error']).execute();
    expect(JSON.stringify(rows)).not.toContain(SENTINEL);
    await h.api('DELETE', `/v1beta/webhooks/${sub.id}`);
  });
});

describe.each(await backends())('webhooks across a restart (%s)', (backend) => {
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(async () => rx?.close());

  it('a delivery pending (even mid-attempt) when the service stops is delivered by the next service on the same data', async () => {
    const a = await startHarness(backend, { ...ENV, WEBHOOK_TIMEOUT_S: '30' });
    let b: Harness | null = null;
    try {
      const c = await publish(a, { definition: SCRIPT, input_schema: INPUT });
      const sub = (await a.api('POST', '/v1beta/webhooks', { url: `${rx.url}/restart`, event_types: ['run.completed'] })).json;
      // The receiver holds the first attempt open: the service stops in the middle of it.
      rx.plan('/restart', ['hang', 200]);
      const r = await run(a, { connector_id: c.id, arguments: { n: 42 } });
      await until(
        'the first attempt',
        () => rx.at('/restart'),
        (g) => g.length === 1,
      );
      const t0 = Date.now();
      await a.close({ keepData: true });
      expect(Date.now() - t0).toBeLessThan(10_000); // the hanging attempt was aborted, not waited for
      expect(rx.at('/restart')).toHaveLength(1);

      b = await startHarness(backend, ENV, { reuse: a });
      const got = await until(
        'the delivery after the restart',
        () => rx.at('/restart'),
        (g) => g.length === 2,
      );
      const body = verified(got[1], sub.secret);
      expect(body).toMatchObject({ type: 'run.completed', data: { id: r.id, status: 'success', result: { n: 42 } } });
      expect(got[1].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
      const d = await until(
        'the delivery log',
        async () => (await b!.api('GET', `/v1beta/webhooks/deliveries?resource_id=${r.id}`)).json.data[0],
        (x) => x?.status === 'succeeded',
        45_000,
      );
      // The aborted attempt was not the receiver's doing: not counted.
      expect(d.attempts.map((x: any) => [x.attempt, x.response_status])).toEqual([[1, 200]]);
    } finally {
      if (b) await b.close();
      else await a.close().catch(() => {});
    }
  }, 150_000);
});
