// Acceptance on a tenth real application we did not write: Request Tracker 5 (Debian package;
// Perl/Mason on Plack, served by its own rt-server; installed and seeded by
// scripts/acceptance-setup.sh). Each flow is recorded here and now with Playwright's recordHar in
// Chromium, then uploaded, synthesized, replay-validated, published and RUN with NEW arguments;
// results are checked against RT's own REST 2 API. What RT brings: every page behind a login form,
// a ticket page of label/value <div>s beside hidden inline-edit forms of the same fields, search
// results where each ticket spans two table rows, paging links, menus of plain <ul>s named app-nav,
// and a create form whose body is a rich-text editor.
// Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled } from '../helpers/real-apps.js';
import { liveApp } from '../helpers/acceptance.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.rt);
const PASSWORD = 'rt-root-pass-1';

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])(
  'synthesis on Request Tracker (%s)',
  (backend) => {
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
      // The ticket's fields (beside hidden inline-edit forms of the same fields) and its subject, the
      // page header's <h1> outside the block of fields.
      expect(result).toMatchObject({ id: pump.id, status: pump.Status, queue: 'Orchard' });
      expect([result.title, result.heading]).toContain(`#${pump.id}: ${pump.Subject}`);
      expect(JSON.stringify(result)).not.toMatch(/Order pear saplings|Homepage|Logged in as/);
    });

    it("a ticket's history (a list of transactions under the page menus), for ANOTHER ticket", async () => {
      const har = await record('history', async (page, base) => {
        await login(page, base);
        await page.goto(`${base}/Ticket/History.html?id=2`);
      });
      const { result } = await flow(
        'rt-history',
        har,
        { hints: { arguments: { ticket: 2 }, secrets: { account: live.secret } } },
        { arguments: { ticket: 4 }, secret_bindings: { account: live.secret } },
      );
      const truth = (await api('/ticket/4/history?fields=Type&per_page=100')).items as { id: string }[];
      expect(truth.length).toBeGreaterThan(1);
      // Each transaction once, linked to its own page (not the "recently viewed" menu entries).
      expect(result.items.map((i: any) => i.url)).toEqual(truth.map((t) => `/Transaction/Display.html?id=${t.id}`));
      expect(result.items[0].description).toMatch(/Ticket created/);
    });

    it('a comment on ANOTHER ticket through the update form (its link carries `;` between parameters)', async () => {
      const har = await record('comment', async (page, base) => {
        await login(page, base);
        await page.goto(`${base}/Ticket/Display.html?id=2`);
        // (The page menu's "Comment", folded in a drop-down: a click on the link itself.)
        await Promise.all([
          page.waitForURL(/Update\.html/),
          page.locator('#page-actions-comment').evaluate((a) => (a as HTMLElement).click()),
        ]);
        await page.frameLocator('.cke_wysiwyg_frame').locator('body').click();
        await page.keyboard.type('The ladder is in the shed');
        await Promise.all([page.waitForURL(/Display\.html/), page.click('input[type=submit][value="Update Ticket"]:visible')]);
      });
      const text = `Pump parts ordered ${Date.now()}`;
      await flow(
        'rt-comment',
        har,
        {
          hints: {
            arguments: { ticket: 2, text: 'The ladder is in the shed' },
            secrets: { account: live.secret },
            allow_side_effects: true,
          },
        },
        { arguments: { ticket: 4, text }, secret_bindings: { account: live.secret } },
      );
      // RT's REST 1.0 history (every transaction with its content): the comment is on ticket 4.
      const history = async (id: number) =>
        (await fetch(`${live.url}/REST/1.0/ticket/${id}/history?format=l&user=root&pass=${PASSWORD}`)).text();
      expect(await history(4)).toMatch(new RegExp(`Type: Comment[\\s\\S]*Content: ${text}`));
      expect(await history(2)).not.toContain(text);
    });

    it('simple search recorded with ONE hit: the tickets (two table rows each) of a NEW query with many', async () => {
      const har = await record('search', async (page, base) => {
        await login(page, base);
        await page.fill('input[name=q]', 'pear');
        await Promise.all([page.waitForURL(/q=pear/), page.press('input[name=q]', 'Enter')]);
      });
      const { result } = await flow(
        'rt-search',
        har,
        { hints: { arguments: { query: 'pear' }, secrets: { account: live.secret } } },
        { arguments: { query: 'canker' }, secret_bindings: { account: live.secret } },
      );
      // (RT's simple search: the subject holds the words, among active tickets of any queue.)
      // Recorded with one hit, run with a query of many (RT's own order: newest first).
      const truth = await tickets(`Subject LIKE 'canker' AND Status = '__Active__'`, '');
      expect(truth.length).toBeGreaterThan(20);
      const rows = result.items.map((i: any) => [i.id, i.subject, i.status]);
      expect(rows.sort((x: number[], y: number[]) => x[0]! - y[0]!)).toEqual(truth.map((t) => [t.id, t.Subject, t.Status]));
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
      expect(truth.length).toBeGreaterThan(30);
      // Every page (10 rows each), in the search's order, each ticket once with its own status.
      expect(result.items.map((i: any) => [i.id, i.subject, i.status])).toEqual(truth.map((t) => [t.id, t.Subject, t.Status]));
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
      // (The person created it in the queue the button offered, RT's first: any queue is searched.)
      const made = await tickets(`Subject = '${subject}'`, '');
      expect(made).toHaveLength(1);
      expect(JSON.stringify(result)).toContain(subject);
    });

    it("a ticket's status and priority (chosen by its name, sent as its number) changed in its Basics form, run on ANOTHER ticket with ANOTHER status and priority", async () => {
      const all = await tickets();
      // (Tickets this flow has not changed yet: each run changes two.)
      const fresh = all.filter((t) => t.Status !== 'stalled' && t.Status !== 'resolved');
      const [rec, other] = [fresh.at(-2)!, fresh.at(-1)!];
      const har = await record('basics', async (page, base) => {
        await login(page, base);
        await page.goto(`${base}/Ticket/Modify.html?id=${rec.id}`);
        await page.selectOption('select[name=Status]', 'stalled');
        await page.selectOption('select[name=Priority]', { label: 'High' });
        await Promise.all([page.waitForURL(/Modify\.html/), page.click('input[type=submit][value="Save Changes"]:visible')]);
      });
      await flow(
        'rt-basics',
        har,
        live.hinted({ ticket: rec.id, status: 'stalled', priority: 'High' }, { allow_side_effects: true }),
        live.bound({ ticket: other.id, status: 'resolved', priority: 'Low' }),
      );
      const now = await api(`/ticket/${other.id}`);
      // (RT's priorities by name: High is 100, Low below Medium's 50 — its option keeps the number a
      // ticket already had in that range, as the recorded page offered it.)
      expect(now).toMatchObject({ Status: 'resolved' });
      expect(Number(now.Priority)).toBeLessThan(50);
      expect(await api(`/ticket/${rec.id}`)).toMatchObject({ Status: 'stalled', Priority: '100' });
    });
  },
);
