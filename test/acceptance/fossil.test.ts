// Acceptance on a fifth real application we did not write: Fossil (Debian package; its own web
// server; installed and seeded by scripts/acceptance-setup.sh). Unlike the PHP apps, each flow is
// recorded here and now, with Playwright's recordHar in Chromium against the running app (as a
// user of the service does), then uploaded, synthesized, replay-validated, published, and RUN with
// NEW arguments; results are checked against the repository itself (the `fossil` command).
// What Fossil brings: no <main>/<nav>/<footer> (its menus outweigh a short page), a CSRF check by
// Referer on form POSTs, a preview-then-submit ticket form, and a JSON wiki editor.
// Opt-in: ACCEPTANCE=1.
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled } from '../helpers/real-apps.js';
import { liveApp } from '../helpers/acceptance.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.fossil);
const PASSWORD = 'fsl-admin-pass-1';
const fossil = (...args: string[]) =>
  execFileSync('fossil', [...args, '-R', APPS.fossil.docroot], { encoding: 'utf8', env: { ...process.env, USER: 'admin' } });
/** Every ticket: {uuid, title, status, type, severity, comment}. */
const tickets = () => {
  const [head, ...rows] = fossil('ticket', 'show', '0').trim().split('\n');
  const cols = head!.split('\t');
  return rows.map((r) => Object.fromEntries(r.split('\t').map((v, i) => [cols[i], v]))) as Record<string, string>[];
};

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Fossil (%s)', (backend) => {
  const live = liveApp(APPS.fossil, backend, 'admin', PASSWORD);
  const { record, flow } = live;

  async function login(page: Page, base: string) {
    await page.goto(`${base}/login`);
    await page.fill('input[name=u]', 'admin');
    await page.fill('input[name=p]', PASSWORD);
    await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('input[type=submit][name=in]')]);
  }

  it('full-text search: the hits for a NEW query', async () => {
    const har = await record('search', async (page, base) => {
      await page.goto(`${base}/search`);
      await page.fill('input[name=s]', 'orchard');
      await Promise.all([page.waitForURL(/s=orchard/), page.press('input[name=s]', 'Enter')]);
    });
    const { result } = await flow('fsl-search', har, { hints: { arguments: { query: 'orchard' } } }, { arguments: { query: 'fence' } });
    const titles = result.items.map((i: any) => i.title).join('\n');
    const truth = tickets().filter((t) => /fence/i.test(`${t.title} ${t.comment}`));
    expect(truth.length).toBeGreaterThan(0);
    expect(result.items).toHaveLength(truth.length);
    for (const t of truth) expect(titles).toContain(t.title);
  });

  it("a wiki page: its own heading and Property/Value rows (not the site's menus), for ANOTHER page", async () => {
    const har = await record('wiki', async (page, base) => {
      await page.goto(`${base}/wcontent`);
      await Promise.all([page.waitForURL(/name=Cherry/), page.click('text=Cherry')]);
    });
    const { result } = await flow('fsl-wiki', har, { hints: { arguments: { page: 'Cherry' } } }, { arguments: { page: 'Damson' } });
    expect(fossil('wiki', 'export', 'Damson')).toContain('| Colour | Purple |');
    expect(result).toMatchObject({ title: 'Damson', colour: 'Purple', price_per_kg: 3.05 });
    expect(JSON.stringify(result)).not.toMatch(/Timeline|Unnamed Fossil Project|generated in about/);
  });

  it('the tickets report behind the login form: every ticket, as the repository lists them', async () => {
    const har = await record('report', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/reportlist`);
      await Promise.all([page.waitForURL(/rptview/), page.click('text=All Tickets')]);
    });
    const { result } = await flow(
      'fsl-report',
      har,
      { hints: { result: ['Fix the fence'], secrets: { account: live.secret } } },
      { secret_bindings: { account: live.secret } },
    );
    expect(result.items.map((i: any) => i.title).sort()).toEqual(
      tickets()
        .map((t) => t.title)
        .sort(),
    );
    expect(result.items.find((i: any) => i.title === 'Fix the fence')).toMatchObject({ type: 'Code_Defect', status: 'Open' });
  });

  it('a ticket page (its id in the path), for ANOTHER ticket', async () => {
    const fence = tickets().find((t) => t.title === 'Fix the fence')!;
    const other = tickets().find((t) => t.title === 'Orchard task 5: prune row 5')!;
    const har = await record('tktview', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/rptview?rn=1`);
      await Promise.all([page.waitForURL(/tktview/), page.click('tr:has-text("Fix the fence") a')]);
    });
    const { result } = await flow(
      'fsl-ticket',
      har,
      { hints: { arguments: { ticket: fence.tkt_uuid!.slice(0, 10) }, result: ['Critical'], secrets: { account: live.secret } } },
      { arguments: { ticket: other.tkt_uuid!.slice(0, 10) }, secret_bindings: { account: live.secret } },
    );
    expect(result).toMatchObject({ title: other.title, status: other.status, type: other.type, severity: other.severity });
  });

  it('a NEW ticket through the preview-then-submit form (CSRF token and a same-origin Referer)', async () => {
    const har = await record('tktnew', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/tktnew`);
      await page.fill('input[name=title]', 'Water the pear trees');
      await page.fill('textarea[name=icomment]', 'The pears need water every week');
      await Promise.all([page.waitForLoadState('load'), page.click('input[name=preview]')]);
      await Promise.all([page.waitForURL(/tktview/), page.click('input[name=submit]')]);
    });
    const title = `Mulch the plum beds ${Date.now()}`;
    await flow(
      'fsl-ticket-new',
      har,
      {
        hints: {
          arguments: { title: 'Water the pear trees', comment: 'The pears need water every week' },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { title, comment: 'Plums want mulch' }, secret_bindings: { account: live.secret } },
    );
    const made = tickets().filter((t) => t.title === title);
    expect(made).toMatchObject([{ status: 'Open' }]);
    // (The first comment is the ticket change's icomment, not the ticket's comment column.)
    expect(fossil('ticket', 'history', made[0]!.tkt_uuid!)).toContain('Change icomment: Plums want mulch');
  });

  it('a NEW wiki page through the JavaScript editor (a JSON save call), named by one word', async () => {
    const name = `Plum${Date.now().toString(36)}`;
    const har = await record('wikinew', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/wikinew`);
      await page.fill('input[name=name]', name);
      await Promise.all([page.waitForURL(/wikiedit/), page.click('input[value=Create]')]);
      const editor = page.locator('textarea:visible').first();
      await editor.waitFor();
      await editor.fill('Plums are purple stone fruit.');
      await Promise.all([
        page.waitForResponse((r) => r.url().includes('/wikiajax/save') && r.ok()),
        page
          .getByRole('button', { name: /^Save$/ })
          .first()
          .click(),
      ]);
    });
    const next = `Greengage${Date.now().toString(36)}`;
    const { result } = await flow(
      'fsl-wiki-new',
      har,
      {
        hints: {
          arguments: { name, content: 'Plums are purple stone fruit.' },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { name: next, content: 'Greengages are green plums.' }, secret_bindings: { account: live.secret } },
    );
    expect(result).toMatchObject({ name: next });
    expect(fossil('wiki', 'export', next).trim()).toBe('Greengages are green plums.');
  });
});
