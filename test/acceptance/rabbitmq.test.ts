// Acceptance on a seventeenth real application we did not write: RabbitMQ 3.10's management UI
// (Debian's rabbitmq-server; a fresh node per run imports the users, virtual hosts and queues of
// scripts/acceptance-setup.sh, and this suite publishes the messages). Each flow is recorded here
// and now in Chromium, signed in through its login form, then synthesized, replay-validated,
// published and RUN with NEW arguments; results are checked against its own HTTP API. What RabbitMQ
// brings: a jQuery/Sammy single-page app whose login form keeps base64(user:password) in a cookie
// that page JS sends as `Authorization: Basic` on every XHR (the site never hands out a token);
// virtual hosts URL-encoded inside API paths (`/` is `%2F`); synchronous XHRs for its writes; JSON
// bodies built from forms whose booleans are strings; an admin form with a password that is the NEW
// user's, not the signed-in one's; and a page that polls its API every five seconds. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, RABBITMQ_USER, rabbitApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.rabbitmq);

const MESSAGES: [string, string, string][] = [
  ['/', 'orders.new', 'order 1042: 12 crates of Cox apples'],
  ['/', 'orders.new', 'order 1043: 3 crates of Conference pears'],
  ['/', 'invoices', 'invoice 88 for order 1017: 240.00 EUR'],
  ['orchard', 'pickers', 'picker Ana starts on row 7'],
];

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on RabbitMQ (%s)', (backend) => {
  const live = liveApp(APPS.rabbitmq, backend, RABBITMQ_USER.username, RABBITMQ_USER.password);
  const { flow } = live;
  const api = (method: string, path: string, body?: unknown) => rabbitApi(live.url, method, path, body);
  const vq = (vhost: string, name: string) => `${encodeURIComponent(vhost)}/${encodeURIComponent(name)}`;

  beforeAll(async () => {
    // (The node imports its definitions just after it answers: wait for every queue.)
    for (let n = 0; n < 100; n++) {
      const qs = await api('GET', '/queues').catch(() => []);
      if (qs.length >= 6) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const [vhost, queue, payload] of MESSAGES)
      await api('POST', `/exchanges/${encodeURIComponent(vhost)}/amq.default/publish`, {
        properties: {},
        routing_key: queue,
        payload,
        payload_encoding: 'string',
      });
  }, 30_000);

  const answer = (page: Page, path: string, method = 'GET') =>
    page.waitForResponse((r) => r.url().includes(`/api/${path}`) && r.request().method() === method && r.status() < 300);
  /** Records a flow after signing in through the login form, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(base);
      await page.fill('input[name="username"]', RABBITMQ_USER.username);
      await page.fill('input[name="password"]', RABBITMQ_USER.password);
      await Promise.all([answer(page, 'overview'), page.click('input[value="Login"]')]);
      await page.waitForSelector('#tabs');
      await steps(page, base);
    });
  const openQueues = async (page: Page) => {
    await Promise.all([answer(page, 'queues'), page.click('#tabs a[href="#/queues"]')]);
    await page.waitForSelector('table.list');
  };
  const openQueue = async (page: Page, vhost: string, name: string) => {
    await openQueues(page);
    await Promise.all([answer(page, `queues/${vq(vhost, name)}`), page.click(`a[href="#/queues/${vq(vhost, name)}"]`)]);
    await page.waitForSelector(`h1:has-text("${name}")`);
  };
  /** Opens a page's collapsed section by its heading. */
  const section = (page: Page, title: string) => page.click(`h2:has-text("${title}")`);

  it('the queues whose name holds a filter typed into the list, for a NEW filter', async () => {
    const har = await record('filter', async (page) => {
      await openQueues(page);
      // (The list's filter box asks the server when Enter is pressed.)
      await page.locator('#queues-name').pressSequentially('orders', { delay: 40 });
      await Promise.all([answer(page, 'queues?page=1&page_size=100&name=orders'), page.keyboard.press('Enter')]);
      await page.waitForSelector('text=orders.paid');
    });
    const { result } = await flow(
      'rq-filter',
      har,
      { hints: { arguments: { filter: 'orders' }, secrets: { account: live.secret } } },
      { arguments: { filter: 'invoice' }, secret_bindings: { account: live.secret } },
    );
    const text = JSON.stringify(result);
    expect(text).toContain('"invoices"');
    expect(text).not.toContain('orders.new');
  });

  it("a queue's page, for ANOTHER queue in ANOTHER virtual host (`/` travels as %2F in the path)", async () => {
    const har = await record('queue', async (page) => {
      await openQueue(page, 'orchard', 'pickers');
    });
    const { result, def } = await flow(
      'rq-queue',
      har,
      { hints: { arguments: { vhost: 'orchard', queue: 'pickers' }, secrets: { account: live.secret } } },
      { arguments: { vhost: '/', queue: 'invoices' }, secret_bindings: { account: live.secret } },
    );
    const text = JSON.stringify(result);
    expect(text).toContain('"invoices"');
    expect(text).toContain('86400000'); // (its x-message-ttl)
    expect(text).not.toContain('pickers');
    expect(JSON.stringify(def)).not.toContain(RABBITMQ_USER.password);
  });

  it('a new queue from the "Add a new queue" form, run with a NEW name', async () => {
    const har = await record('add-queue', async (page) => {
      await openQueues(page);
      await section(page, 'Add a new queue');
      await page.fill('input[name="name"]', 'refunds');
      await Promise.all([answer(page, `queues/${vq('/', 'refunds')}`, 'PUT'), page.click('input[value="Add queue"]')]);
      await page.waitForSelector('a[href="#/queues/%2F/refunds"]');
    });
    await flow(
      'rq-add-queue',
      har,
      { hints: { arguments: { name: 'refunds' }, secrets: { account: live.secret } } },
      { arguments: { name: 'returns.pending' }, secret_bindings: { account: live.secret } },
    );
    const q = await api('GET', `/queues/${vq('/', 'returns.pending')}`);
    expect(q.name).toBe('returns.pending');
    expect(q.durable).toBe(true);
  });

  it("a message published from a queue's page, run on ANOTHER queue with ANOTHER payload", async () => {
    const har = await record('publish', async (page) => {
      await openQueue(page, '/', 'orders.new');
      await section(page, 'Publish message');
      await page.fill('textarea[name="payload"]', 'order 1044: 5 crates of Bramley apples');
      await Promise.all([answer(page, 'exchanges/%2F/amq.default/publish', 'POST'), page.click('input[value="Publish message"]')]);
      await page.waitForSelector('text=Message published');
    });
    await flow(
      'rq-publish',
      har,
      {
        hints: { arguments: { queue: 'orders.new', payload: 'order 1044: 5 crates of Bramley apples' }, secrets: { account: live.secret } },
      },
      { arguments: { queue: 'orders.paid', payload: 'order 1017 paid by card' }, secret_bindings: { account: live.secret } },
    );
    const got = await api('POST', `/queues/${vq('/', 'orders.paid')}/get`, { count: 10, ackmode: 'ack_requeue_true', encoding: 'auto' });
    expect(got.map((m: { payload: string }) => m.payload)).toContain('order 1017 paid by card');
  });

  it('messages read with "Get messages" (requeued), on ANOTHER queue', async () => {
    const har = await record('get', async (page) => {
      await openQueue(page, '/', 'orders.new');
      await section(page, 'Get messages');
      await Promise.all([answer(page, `queues/${vq('/', 'orders.new')}/get`, 'POST'), page.click('input[value="Get Message(s)"]')]);
      await page.waitForSelector('text=order 1042');
    });
    const { result } = await flow(
      'rq-get',
      har,
      { hints: { arguments: { queue: 'orders.new' }, result: ['order 1042: 12 crates of Cox apples'], secrets: { account: live.secret } } },
      { arguments: { queue: 'invoices' }, secret_bindings: { account: live.secret } },
    );
    const text = JSON.stringify(result);
    expect(text).toContain('invoice 88 for order 1017: 240.00 EUR');
    expect(text).not.toContain('order 1042');
  });

  it('a new user from the Admin tab, whose password is an argument (not the signed-in secret)', async () => {
    const har = await record('add-user', async (page) => {
      await Promise.all([answer(page, 'users'), page.click('#tabs a[href="#/users"]')]);
      await section(page, 'Add a user');
      await page.fill('input[name="username"]', 'picker1');
      await page.fill('input[name="password"]', 'Pk-pass-1!');
      await page.fill('input[name="password_confirm"]', 'Pk-pass-1!');
      await page.fill('#tags', 'management');
      await Promise.all([answer(page, 'users/picker1', 'PUT'), page.click('input[value="Add user"]')]);
      await page.waitForSelector('a[href="#/users/picker1"]');
    });
    await flow(
      'rq-add-user',
      har,
      {
        hints: { arguments: { username: 'picker1', password: 'Pk-pass-1!', tags: 'management' }, secrets: { account: live.secret } },
      },
      { arguments: { username: 'picker2', password: 'Other pass 2', tags: 'monitoring' }, secret_bindings: { account: live.secret } },
    );
    const u = await api('GET', '/users/picker2');
    expect(u.tags).toEqual(['monitoring']);
    const who = await fetch(`${live.url}/api/whoami`, {
      headers: { authorization: `Basic ${Buffer.from('picker2:Other pass 2').toString('base64')}` },
    });
    expect(who.status).toBe(200);
  });
});
