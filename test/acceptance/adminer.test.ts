// Acceptance on a ninth real application we did not write: Adminer (Debian package; one PHP app for
// database administration, over the local MariaDB, database `orchard` seeded by
// scripts/acceptance-setup.sh). Each flow is recorded here and now with Playwright's recordHar in
// Chromium, then synthesized, replay-validated, published and RUN with NEW arguments; the truth is
// read from MariaDB. What Adminer brings: a sign-in form of five fields (driver, server, user,
// password, database) whose session lives in cookies and whose user name is in every later URL,
// data tables whose header cells are sort links and whose first column is row checkboxes, a pager
// counting from 0, a search form of `where[0][col]/[op]/[val]` fields, and edit/insert forms of
// `fields[…]` with a CSRF token, answered by a redirect with a message.
// Opt-in: ACCEPTANCE=1.
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled } from '../helpers/real-apps.js';
import { liveApp } from '../helpers/acceptance.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.adminer);
const USER = 'gardener';
const PASSWORD = 'ad-pass-1';

type Tree = { id: number; name: string; variety: string; planted: number; row_no: number; notes: string };
/** The table's rows from MariaDB, by `where`. */
function trees(where = '1=1'): Tree[] {
  const out = execFileSync(
    'mysql',
    [
      '-h127.0.0.1',
      '-uroot',
      '-N',
      '-B',
      '-e',
      `select id, name, variety, planted, row_no, notes from orchard.trees where ${where} order by id`,
    ],
    {
      encoding: 'utf8',
    },
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [id, name, variety, planted, row_no, notes] = l.split('\t');
      return { id: Number(id), name: name!, variety: variety!, planted: Number(planted), row_no: Number(row_no), notes: notes! };
    });
}

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Adminer (%s)', (backend) => {
  const live = liveApp(APPS.adminer, backend, USER, PASSWORD);
  const { record, flow } = live;
  const table = (base: string) => `${base}/?server=127.0.0.1&username=${USER}&db=orchard&select=trees`;

  async function login(page: Page, base: string) {
    await page.goto(`${base}/`);
    await page.fill('input[name="auth[server]"]', '127.0.0.1');
    await page.fill('input[name="auth[username]"]', USER);
    await page.fill('input[name="auth[password]"]', PASSWORD);
    await page.fill('input[name="auth[db]"]', 'orchard');
    await Promise.all([page.waitForURL(/db=orchard/), page.click('input[type=submit]')]);
  }

  it('the table behind the sign-in form, over every page (the person went to page 2)', async () => {
    const har = await record('browse', async (page, base) => {
      await login(page, base);
      await page.goto(table(base));
      await Promise.all([page.waitForURL(/page=1/), page.click('a[href*="page=1"]')]);
    });
    const { result } = await flow(
      'ad-browse',
      har,
      { hints: { secrets: { account: live.secret } } },
      { secret_bindings: { account: live.secret } },
    );
    const truth = trees();
    expect(truth.length).toBeGreaterThan(50);
    expect(result.items.map((r: any) => r.name)).toEqual(truth.map((t) => t.name));
    expect(result.items.find((r: any) => r.name === 'Tree 7')).toMatchObject({ variety: truth[6]!.variety, planted: truth[6]!.planted });
  });

  it('search by a column (the where[] form): the rows of a NEW value', async () => {
    const har = await record('search', async (page, base) => {
      await login(page, base);
      await page.goto(table(base));
      await page.selectOption('select[name="where[0][col]"]', 'variety');
      await page.fill('input[name="where[0][val]"]', 'Russet');
      await Promise.all([page.waitForURL(/where/), page.press('input[name="where[0][val]"]', 'Enter')]);
    });
    const { result } = await flow(
      'ad-search',
      har,
      { hints: { arguments: { variety: 'Russet' }, secrets: { account: live.secret } } },
      { arguments: { variety: 'Morello' }, secret_bindings: { account: live.secret } },
    );
    const truth = trees("variety = 'Morello'");
    expect(truth.length).toBeGreaterThan(3);
    expect(result.items.map((r: any) => r.name)).toEqual(truth.map((t) => t.name));
    expect(new Set(result.items.map((r: any) => r.variety))).toEqual(new Set(['Morello']));
  });

  it("edit ANOTHER row's notes (the fields[] form with a token): its other columns stay its own", async () => {
    const [rec, other] = [trees('id = 5')[0]!, trees('id = 12')[0]!];
    const har = await record('edit', async (page, base) => {
      await login(page, base);
      await page.goto(`${table(base).replace('select=trees', 'edit=trees')}&where%5Bid%5D=5`);
      await page.fill('[name="fields[notes]"]', 'Grafted in spring');
      await Promise.all([page.waitForURL(/select=trees/), page.click('input[type=submit][value=Save]')]);
    });
    const notes = `Mulched ${Date.now() % 100000}`;
    const { result } = await flow(
      'ad-edit',
      har,
      { hints: { arguments: { id: 5, notes: 'Grafted in spring' }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { id: 12, notes }, secret_bindings: { account: live.secret } },
    );
    expect(trees('id = 12')).toEqual([{ ...other, notes }]);
    expect(result.message).toMatch(/^Item has been updated/);
    expect(trees('id = 5')[0]).toMatchObject({ name: rec.name, variety: rec.variety, planted: rec.planted, row_no: rec.row_no });
  });

  it('insert a NEW row (the empty fields[] form)', async () => {
    const har = await record('insert', async (page, base) => {
      await login(page, base);
      await page.goto(`${table(base).replace('select=trees', 'edit=trees')}`);
      await page.fill('[name="fields[name]"]', 'Tree Quince');
      await page.fill('[name="fields[variety]"]', 'Vranja');
      await page.fill('[name="fields[planted]"]', '2024');
      await page.fill('[name="fields[row_no]"]', '7');
      await Promise.all([page.waitForURL(/select=trees/), page.click('input[type=submit][value=Save]')]);
    });
    const name = `Tree Medlar ${Date.now() % 100000}`;
    const { result } = await flow(
      'ad-insert',
      har,
      {
        hints: {
          arguments: { name: 'Tree Quince', variety: 'Vranja', planted: 2024, row: 7 },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { name, variety: 'Nottingham', planted: 2025, row: 8 }, secret_bindings: { account: live.secret } },
    );
    const made = trees(`name = '${name}'`);
    expect(made).toMatchObject([{ name, variety: 'Nottingham', planted: 2025, row_no: 8 }]);
    // The outcome is Adminer's message on the table it redirected to (not the table's first 50 rows).
    expect(result.message).toMatch(new RegExp(`^Item ${made[0]!.id} has been inserted`));
  });
});
