// Acceptance on a tenth real application we did not write: Request Tracker 5 (Debian package;
// Perl/Mason on Plack, served by its own rt-server; installed and seeded by
// scripts/acceptance-setup.sh). Each flow is recorded here and now with Playwright's recordHar in
// Chromium, then uploaded, synthesized, replay-validated, published and RUN with NEW arguments;
// results are checked against RT's own REST 2 API. What RT brings: every page behind a login form,
// a ticket page of label/value <div>s beside hidden inline-edit forms of the same fields, search
// results where each ticket spans two table rows, paging links, and a create form whose body is a
// rich-text editor.
// Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled } from '../helpers/real-apps.js';
import { liveApp } from '../helpers/acceptance.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.rt);
const PASSWORD = 'rt-root-pass-1';

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Request Tracker (%s)', (backend) => {
  const live = liveApp(APPS.rt, backend, 'root', PASSWORD);
  const { record, flow } = live;
  type Ticket = { id: number; Subject: string; Status: string; Priority: string };
  /** RT's REST 2 API as root (basic auth). */
  const api = async (path: string): Promise<any> =>
    (await fetch(`${live.url}/REST/2.0${path}`, { headers: { authorization: `Basic ${btoa(`root:${PASSWORD}`)}` } })).json();
  /** The tickets matching a TicketSQL clause (in the Orchard queue unless said), lowest id first. */
  const tickets = async (clause = '', queue = "Queue = 'Orchard'"): Promise<Ticket[]> => {
    const q = encodeURIComponent([queue, clause].filter(Boolean).join(' AND '));
    const out: Ticket[] = [];
    for (let page = 1; ; page++) {
      const r = await api(`/tickets?query=${q}&fields=Subject,Status,Priority&per_page=100&page=${page}&orderby=id&order=ASC`);
      out.push(...r.items.map((i: any) => ({ ...i, id: Number(i.id) })));
      if (page >= r.pages) return out;
    }
  };

  async function login(page: Page, base: string) {
    await page.goto(`${base}/`);
    await page.fill('input[name=user]', 'root');
    await page.fill('input[name=pass]', PASSWORD);
    await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/NoAuth')), page.press('input[name=pass]', 'Enter')]);
  }

  it('a ticket page behind the login form: its subject and fields, for ANOTHER ticket', async () => {
    const all = await tickets();
    const pears = all.find((t) => t.Subject === 'Order pear saplings')!;
    const pump = all.find((t) => t.Subject === 'Repair the irrigation pump')!;
    const har = await record('ticket', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/Ticket/Display.html?id=${pears.id}`);
    });
    const { result } = await flow(
      'rt-ticket',
      har,
      { hints: { arguments: { ticket: pears.id }, secrets: { account: live.secret } } },
      { arguments: { ticket: pump.id }, secret_bindings: { account: live.secret } },
    );
    console.log(JSON.stringify(result).slice(0, 1500));
    const text = JSON.stringify(result);
    expect(text).toContain('Repair the irrigation pump');
    expect(text).toContain('open');
    expect(text).not.toContain('Order pear saplings');
  });

  it('simple search: the tickets (two table rows each) for a NEW query', async () => {
    const har = await record('search', async (page, base) => {
      await login(page, base);
      await page.fill('input[name=q]', 'pear');
      await Promise.all([page.waitForURL(/q=pear/), page.press('input[name=q]', 'Enter')]);
    });
    const { result } = await flow(
      'rt-search',
      har,
      { hints: { arguments: { query: 'pear' }, secrets: { account: live.secret } } },
      { arguments: { query: 'pump' }, secret_bindings: { account: live.secret } },
    );
    console.log(JSON.stringify(result).slice(0, 1500));
    const truth = await tickets(`Subject LIKE 'pump' AND Status = '__Active__'`);
    expect(truth.length).toBeGreaterThan(0);
    const items = result.items ?? result.tickets ?? Object.values(result).find(Array.isArray);
    expect(items).toHaveLength(truth.length);
    expect(JSON.stringify(items)).toContain('Repair the irrigation pump');
  });

  it('a search over every page of its results', async () => {
    const har = await record('list', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/Search/Results.html?Query=${encodeURIComponent("Queue = 'Orchard'")}&Order=ASC&OrderBy=id&RowsPerPage=10`);
      await Promise.all([page.waitForURL(/Page=2/), page.click('.paging a:text-is("2")')]);
    });
    const truth = await tickets();
    const { result } = await flow(
      'rt-list',
      har,
      { hints: { result: [truth[0]!.Subject], secrets: { account: live.secret } } },
      { secret_bindings: { account: live.secret } },
    );
    console.log(JSON.stringify(result).slice(0, 1500));
    const items = result.items ?? Object.values(result).find(Array.isArray);
    expect(items.length).toBe(truth.length);
    expect(JSON.stringify(items)).toContain(truth.at(-1)!.Subject);
  });

  it('a NEW ticket through the create form (a rich-text body)', async () => {
    const har = await record('create', async (page, base) => {
      await login(page, base);
      // (RT refuses a create page opened without a referrer from itself: the person clicks its button.)
      await Promise.all([page.waitForURL(/Create\.html/), page.click('#CreateTicketInQueue input[type=submit]:visible')]);
      await page.fill('input[name=Subject]', 'Net the cherry trees');
      await page.click('.cke_wysiwyg_frame');
      await page.keyboard.type('Birds took half the cherries');
      await Promise.all([page.waitForURL(/Display\.html/), page.click('input[type=submit][value=Create]:visible')]);
    });
    const subject = `Stake the young walnuts ${Date.now()}`;
    const { result } = await flow(
      'rt-create',
      har,
      {
        hints: {
          arguments: { subject: 'Net the cherry trees', content: 'Birds took half the cherries' },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { subject, content: 'The wind bends them' }, secret_bindings: { account: live.secret } },
    );
    console.log(JSON.stringify(result).slice(0, 1500));
    // (The person created it in the queue the button offered, RT's first: any queue is searched.)
    const made = await tickets(`Subject = '${subject}'`, '');
    expect(made).toHaveLength(1);
    expect(JSON.stringify(result)).toContain(subject);
  });
});
