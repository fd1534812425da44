// Acceptance on a sixth real application we did not write: Redmine (Debian package; Rails, served
// with rackup/WEBrick; installed and seeded by scripts/acceptance-setup.sh). As for Fossil, each
// flow is recorded here and now with Playwright's recordHar in Chromium, then uploaded,
// synthesized, replay-validated, published and RUN with NEW arguments; results are checked against
// Redmine's own REST API. What Redmine brings: menus in plain <div>s (no <nav>), an attribute grid
// of label/value <div>s with empty values, Rails' CSRF token in a <meta> tag and the form, a
// multipart create form with an empty file input, an issue list over two pages, and search hits in
// a <dl>.
// Opt-in: ACCEPTANCE=1.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../../src/browser/chromium.js';
import { backends, startHarness, type Harness } from '../helpers/harness.js';
import { APPS, appInstalled, serveApp } from '../helpers/real-apps.js';
import { loginSecret } from '../helpers/runs.js';
import { type Figure, recordLive, synthesizeAndRun } from '../helpers/acceptance.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.redmine);
const PASSWORD = 'rm-admin-pass-1';

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Redmine (%s)', (backend) => {
  let h: Harness;
  let app: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let secret: string;
  const figures: Figure[] = [];
  const record = (name: string, flow: (page: Page, base: string) => Promise<void>) => recordLive(browser, h.dataDir, name, app.url, flow);
  const flow = (name: string, har: string, body: Record<string, unknown>, runBody: Record<string, unknown>) =>
    synthesizeAndRun(h, figures, name, har, body, runBody);
  /** The project's issues, newest first, from Redmine's REST API. */
  const issues = async (): Promise<{ id: number; subject: string; description: string; status: { name: string } }[]> =>
    ((await (await fetch(`${app.url}/issues.json?project_id=orchard&status_id=*&sort=id:desc&limit=100`)).json()) as any).issues;
  beforeAll(async () => {
    app = await serveApp(APPS.redmine);
    h = await startHarness(backend);
    browser = await openChromium();
    secret = await loginSecret(h, 'admin', PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await app?.close();
    if (figures.length) console.log('[acceptance] redmine figures', JSON.stringify(figures));
  });

  async function login(page: Page, base: string) {
    await page.goto(`${base}/login`);
    await page.fill('#username', 'admin');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('#login-submit')]);
  }

  it('an issue page: its subject and attribute grid, for ANOTHER issue', async () => {
    const all = await issues();
    const fence = all.find((i) => i.subject === 'Fix the fence by the gate')!;
    const other = all.find((i) => i.subject === 'Prune row 7 of the orchard')!;
    const har = await record('issue', async (page, base) => {
      await page.goto(`${base}/projects/orchard/issues`);
      await Promise.all([page.waitForURL(/\/issues\/\d+$/), page.click('text=Fix the fence by the gate')]);
    });
    const { result } = await flow('rm-issue', har, { hints: { arguments: { issue: fence.id } } }, { arguments: { issue: other.id } });
    const truth = ((await (await fetch(`${app.url}/issues/${other.id}.json`)).json()) as any).issue;
    expect(result).toMatchObject({ title: truth.subject, status: truth.status.name, priority: truth.priority.name });
    expect(JSON.stringify(result)).not.toMatch(/Atom|PDF|Sign in|Projects/);
  });

  it('search: the hits (a <dl> of linked <dt>s and their <dd>s) for a NEW query', async () => {
    const har = await record('search', async (page, base) => {
      await page.goto(`${base}/projects/orchard`);
      await page.fill('#q', 'pruning');
      await Promise.all([page.waitForURL(/search/), page.press('#q', 'Enter')]);
    });
    const { result } = await flow('rm-search', har, { hints: { arguments: { query: 'pruning' } } }, { arguments: { query: 'broken' } });
    const truth = (await issues()).filter((i) => /broken/i.test(`${i.subject} ${i.description}`));
    expect(truth.length).toBeGreaterThan(0);
    expect(result.items).toHaveLength(truth.length);
    for (const t of truth) {
      const hit = result.items.find((i: any) => i.url === `/issues/${t.id}`);
      expect(hit.title).toContain(t.subject);
      expect(hit.description).toBe(t.description);
    }
  });

  it('the issue list behind the login form, over both of its pages', async () => {
    const har = await record('issues', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/projects/orchard/issues`);
      await Promise.all([page.waitForURL(/page=2/), page.click('text=Next »')]);
    });
    const { result } = await flow(
      'rm-issues',
      har,
      { hints: { result: ['Fix the fence by the gate'], secrets: { account: secret } } },
      { secret_bindings: { account: secret } },
    );
    const truth = await issues();
    expect(truth.length).toBeGreaterThan(25);
    expect(result.items.map((i: any) => i.subject)).toEqual(truth.map((i) => i.subject));
  });

  it('a NEW issue through the multipart form (Rails authenticity token, an empty file input)', async () => {
    const har = await record('new-issue', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/projects/orchard/issues/new`);
      await page.fill('#issue_subject', 'Water the pear trees');
      await page.fill('#issue_description', 'The pears need water every week');
      await Promise.all([page.waitForURL(/\/issues\/\d+$/), page.click('input[name=commit]')]);
    });
    const subject = `Mulch the plum beds ${Date.now()}`;
    const { result } = await flow(
      'rm-new-issue',
      har,
      {
        hints: {
          arguments: { subject: 'Water the pear trees', description: 'The pears need water every week' },
          secrets: { account: secret },
          allow_side_effects: true,
        },
      },
      { arguments: { subject, description: 'Plums want mulch' }, secret_bindings: { account: secret } },
    );
    expect((await issues()).filter((i) => i.subject === subject)).toMatchObject([{ description: 'Plums want mulch' }]);
    // The page the site answered with: the new issue, and no complaint about the empty file input.
    expect(JSON.stringify(result)).toContain(subject);
    expect(JSON.stringify(result)).not.toMatch(/could not be saved/);
  });
});
