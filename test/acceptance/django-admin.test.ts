// Acceptance on a seventh real application we did not write: Django's admin (Debian's
// python3-django, served by `manage.py runserver`; a small library project whose only UI is the
// admin, installed and seeded by scripts/acceptance-setup.sh). As for Fossil and Redmine, each flow
// is recorded here and now with Playwright's recordHar in Chromium, then synthesized, replay-validated,
// published and RUN with NEW arguments; results are checked against the app's own database. What
// Django brings: a CSRF token in a cookie and every form, a change list as a table whose first
// column is a <th> link and whose first cell is a selection checkbox, search and filters in the query
// string, paging by `?p=`, change forms whose data sit in <input> values, and the "added
// successfully" message on the list the create form redirects to.
// Opt-in: ACCEPTANCE=1.
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled } from '../helpers/real-apps.js';
import { liveApp } from '../helpers/acceptance.js';
import { run } from '../helpers/runs.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.django);
const PASSWORD = 'dj-admin-pass-1';

type Book = { id: number; title: string; author: string; year: number; isbn: string; in_stock: number; summary: string };
/** The app's books (its own SQLite database, read here), by title. */
function books(where = '1=1', ...params: unknown[]): Book[] {
  const db = new Database(`${APPS.django.docroot}/db.sqlite3`, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        `select b.id, b.title, a.name as author, b.year, b.isbn, b.in_stock, b.summary from library_book b
         join library_author a on a.id = b.author_id where ${where} order by b.id desc`,
      )
      .all(...params) as Book[];
  } finally {
    db.close();
  }
}

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Django admin (%s)', (backend) => {
  const live = liveApp(APPS.django, backend, 'admin', PASSWORD);
  const { record, flow } = live;

  async function login(page: Page, base: string) {
    await page.goto(`${base}/admin/`);
    await page.fill('#id_username', 'admin');
    await page.fill('#id_password', PASSWORD);
    await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/admin/login')), page.click('input[type=submit]')]);
  }

  it('search the change list: every hit with its columns, for a NEW query', async () => {
    const har = await record('search', async (page, base) => {
      await login(page, base);
      await page.click('text=Books');
      await page.fill('#searchbar', 'Basil');
      await Promise.all([page.waitForURL(/q=Basil/), page.press('#searchbar', 'Enter')]);
    });
    const { result } = await flow(
      'dj-search',
      har,
      { hints: { arguments: { query: 'Basil' }, secrets: { account: live.secret } } },
      { arguments: { query: 'Clara' }, secret_bindings: { account: live.secret } },
    );
    const truth = books('a.name = ? or b.title like ? or b.summary like ?', 'Clara Graft', '%Clara%', '%Clara%');
    expect(truth.length).toBeGreaterThan(1);
    // Every column, the yes/no icons' column as booleans; each title links to its change form.
    expect(result.items.map((i: any) => ({ ...i, title_url: undefined }))).toEqual(
      truth.map((b) => ({
        title: b.title,
        title_url: undefined,
        author: b.author,
        year: b.year,
        isbn: b.isbn,
        in_stock: b.in_stock === 1,
      })),
    );
    for (const [k, b] of truth.entries()) expect(result.items[k].title_url).toMatch(new RegExp(`^/admin/library/book/${b.id}/change/`));
  });

  it('a change form: the book as its fields, for ANOTHER book', async () => {
    const [fence] = books('b.title = ?', 'The Broken Fence');
    const [other] = books('b.title = ?', 'Orchard Notes volume 7');
    const har = await record('change', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/library/book/?q=fence`);
      await Promise.all([page.waitForURL(/\/change\//), page.click('text=The Broken Fence')]);
    });
    const { result } = await flow(
      'dj-change',
      har,
      { hints: { arguments: { book: fence!.id }, secrets: { account: live.secret } } },
      { arguments: { book: other!.id }, secret_bindings: { account: live.secret } },
    );
    // The form's labelled inputs, the select's chosen option and the checkbox, read as a record.
    expect(result).toEqual({
      title: other!.title,
      author: other!.author,
      year: other!.year,
      isbn: other!.isbn,
      in_stock: other!.in_stock === 1,
      summary: other!.summary,
    });
  });

  it('the change list over every page', async () => {
    const har = await record('list', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/library/book/`);
      await Promise.all([page.waitForURL(/p=2/), page.click('.paginator a >> text="2"')]);
      await Promise.all([page.waitForURL(/p=3/), page.click('.paginator a >> text="3"')]);
    });
    const newest = books()[0]!;
    const { result } = await flow(
      'dj-list',
      har,
      { hints: { result: [newest.title], secrets: { account: live.secret } } },
      { secret_bindings: { account: live.secret } },
    );
    // Django's pager has numbered links only (no "next"): ?p= counts up from the list's own link.
    const truth = books();
    expect(truth.length).toBeGreaterThan(20);
    expect(result.items.map((i: any) => i.title)).toEqual(truth.map((b) => b.title));
  });

  /**
   * Records changing `recTitle`'s year, then runs the connector on `otherTitle`: only its year
   * changes. Their "in stock" boxes are set first (`stock`: recorded, other), as the seed had them.
   */
  async function editYear(name: string, recTitle: string, otherTitle: string, stock: [number, number]) {
    const db = new Database(`${APPS.django.docroot}/db.sqlite3`, { fileMustExist: true });
    try {
      const set = db.prepare('update library_book set in_stock = ? where title = ?');
      set.run(stock[0], recTitle);
      set.run(stock[1], otherTitle);
    } finally {
      db.close();
    }
    const [rec] = books('b.title = ?', recTitle);
    const [other] = books('b.title = ?', otherTitle);
    const har = await record(name, async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/library/book/${rec!.id}/change/`);
      await page.fill('#id_year', String(rec!.year + 1));
      await Promise.all([page.waitForURL(/\/book\/$/), page.click('input[name=_save]')]);
    });
    const year = 1900 + (Date.now() % 100);
    await flow(
      name,
      har,
      { hints: { arguments: { book: rec!.id, year: rec!.year + 1 }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { book: other!.id, year }, secret_bindings: { account: live.secret } },
    );
    // Only the year changed, on the book asked for; the recorded book keeps its own fields.
    expect(books('b.id = ?', other!.id)).toEqual([{ ...other, year }]);
    expect(books('b.id = ?', rec!.id)).toMatchObject([{ title: rec!.title, isbn: rec!.isbn, summary: rec!.summary, author: rec!.author }]);
  }

  it("edit ANOTHER book's year: the form's other fields are that book's own, read from its change form at run time", async () => {
    // (Recorded on a book in stock, run on one that is not: its "in stock" box stays unticked.)
    await editYear('dj-edit', 'Orchard Notes volume 9', 'Orchard Notes volume 10', [1, 0]);
  });

  it('edit recorded on a book whose box is unticked (the browser sent nothing for it), run on one whose box is ticked: it stays ticked', async () => {
    await editYear('dj-edit-unticked', 'Orchard Notes volume 13', 'Orchard Notes volume 14', [0, 1]);
  });

  it("the book found by its title and clicked in the change list: change ANOTHER book's year, named by ITS title", async () => {
    // (The person never sees an id: the form's URL carries the one the list linked to from the
    // row the title names. Run on another title, the connector reads that book's row.)
    const [rec] = books('b.title = ?', 'Orchard Notes volume 5');
    const [other] = books('b.title = ?', 'Orchard Notes volume 17');
    const har = await record('pick-edit', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/library/book/`);
      await page.fill('#searchbar', 'Orchard Notes volume 5');
      await Promise.all([page.waitForURL(/\?q=/), page.press('#searchbar', 'Enter')]);
      await Promise.all([
        page.waitForURL(/\/book\/\d+\/change\//),
        page.getByRole('link', { name: 'Orchard Notes volume 5', exact: true }).click(),
      ]);
      await page.fill('#id_year', String(rec!.year + 1));
      await Promise.all([page.waitForURL(/\/book\/(\?.*)?$/), page.click('input[name=_save]')]);
    });
    const year = 1800 + (Date.now() % 100);
    const { def } = await flow(
      'dj-pick-edit',
      har,
      {
        hints: {
          arguments: { title: 'Orchard Notes volume 5', year: rec!.year + 1 },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { title: 'Orchard Notes volume 17', year }, secret_bindings: { account: live.secret } },
    );
    expect(JSON.stringify(def)).toContain('"where":{"name":"{{args.title}}"}');
    expect(books('b.id = ?', other!.id)).toEqual([{ ...other, year }]);
    expect(books('b.id = ?', rec!.id)).toEqual([{ ...rec, year: rec!.year + 1 }]);
  });

  it("the book clicked on the change list's first page by its title: change the year of a book on its THIRD page, named by its title", async () => {
    // (Django's pager is numbered links only, "1 2 3": the connector reads page after page by
    // their `?p=` until the named row is there.)
    const [rec] = books('b.title = ?', 'Orchard Notes volume 20');
    const [other] = books('b.title = ?', 'Orchard Notes volume 3');
    const har = await record('pick-edit-paged', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/library/book/`);
      await Promise.all([
        page.waitForURL(/\/book\/\d+\/change\//),
        page.getByRole('link', { name: 'Orchard Notes volume 20', exact: true }).click(),
      ]);
      await page.fill('#id_year', String(rec!.year + 1));
      await Promise.all([page.waitForURL(/\/book\/(\?.*)?$/), page.click('input[name=_save]')]);
    });
    const year = 1700 + (Date.now() % 100);
    const { def } = await flow(
      'dj-pick-edit-paged',
      har,
      {
        hints: {
          arguments: { title: 'Orchard Notes volume 20', year: rec!.year + 1 },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { title: 'Orchard Notes volume 3', year }, secret_bindings: { account: live.secret } },
    );
    expect(JSON.stringify(def)).toMatch(/"paginate":\{"mode":"page","param":"p","start":\d,[^}]*"until_found":true/);
    expect(books('b.id = ?', other!.id)).toEqual([{ ...other, year }]);
    expect(books('b.id = ?', rec!.id)).toEqual([{ ...rec, year: rec!.year + 1 }]);
    // A title on no page: every page read, then the run's input is wrong (not the site), and no book changed.
    const before = books();
    const [conn] = (await live.h.api('GET', '/v1beta/connectors?limit=1')).json.data;
    const missing = await run(live.h, {
      connector_id: conn.id,
      arguments: { title: 'Orchard Notes volume 99', year },
      secret_bindings: { account: live.secret },
    });
    expect(missing.status).toBe('connector_error');
    expect(missing.error).toMatchObject({ type: 'invalid_input', details: { not_found: true } });
    expect(books()).toEqual(before);
  });

  it('add a NEW book through the change form (CSRF token in the cookie and the form)', async () => {
    const har = await record('add', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/library/book/add/`);
      await page.fill('#id_title', 'Grafting for Beginners');
      await page.selectOption('#id_author', { label: 'Ada Orchard' });
      await page.fill('#id_year', '2019');
      await page.fill('#id_isbn', '978-9-9999-1');
      await page.fill('#id_summary', 'How to graft apple trees');
      await Promise.all([page.waitForURL(/\/book\/$/), page.click('input[name=_save]')]);
    });
    const title = `Mulching Plums ${Date.now()}`;
    const { result } = await flow(
      'dj-add',
      har,
      {
        hints: {
          arguments: { title: 'Grafting for Beginners', year: 2019, isbn: '978-9-9999-1', summary: 'How to graft apple trees' },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { title, year: 2022, isbn: '978-9-9999-2', summary: 'Plums want mulch' }, secret_bindings: { account: live.secret } },
    );
    expect(books('b.title = ?', title)).toMatchObject([
      { year: 2022, isbn: '978-9-9999-2', summary: 'Plums want mulch', author: 'Ada Orchard' },
    ]);
    // The outcome is what Django said on the list it redirected to, with the link to the new book.
    const [made] = books('b.title = ?', title);
    expect(result.message).toMatch(new RegExp(`The book “${title}” was added successfully`));
    expect(result.message_url).toBe(`/admin/library/book/${made!.id}/change/`);
  });

  it('a book deleted from its change form through the confirmation page ("Yes, I\u2019m sure"), found by a search: run on ANOTHER book named by its title', async () => {
    const stamp = Date.now();
    const titles = [`Cider Presses ${stamp}`, `Pear Blight ${stamp}`, `Quince Jelly ${stamp}`];
    const db = new Database(`${APPS.django.docroot}/db.sqlite3`, { fileMustExist: true });
    try {
      const add = db.prepare(
        "insert into library_book (title, author_id, year, isbn, in_stock, summary) values (?, (select id from library_author where name = 'Ada Orchard'), 2020, ?, 1, 'To delete')",
      );
      for (const [i, t] of titles.entries()) add.run(t, `978-0-${stamp % 100000}-${i}`);
    } finally {
      db.close();
    }
    const [a, b, c] = titles as [string, string, string];
    const har = await record('delete', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/library/book/`);
      await page.fill('#searchbar', a);
      await Promise.all([page.waitForURL(/\?q=/), page.press('#searchbar', 'Enter')]);
      await Promise.all([page.waitForURL(/\/book\/\d+\/change\//), page.getByRole('link', { name: a, exact: true }).click()]);
      await Promise.all([page.waitForURL(/\/delete\//), page.click('a.deletelink')]);
      await Promise.all([page.waitForURL(/\/book\/(\?.*)?$/), page.click('input[type=submit]')]);
    });
    expect(books('b.title = ?', a)).toEqual([]);
    const { result } = await flow('dj-delete', har, live.hinted({ title: a }, { allow_side_effects: true }), live.bound({ title: b }));
    expect(books('b.title = ?', b)).toEqual([]);
    expect(books('b.title = ?', c)).toHaveLength(1);
    expect(JSON.stringify(result)).toContain(`“${b}” was deleted successfully`);
  });
});
