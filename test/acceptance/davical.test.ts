// Acceptance on a forty-eighth real application we did not write: DAViCal 1.1 (Debian's davical, PHP
// over PostgreSQL), a CalDAV/CardDAV server's own admin pages, over a fresh copy of a seeded database
// per start (scripts/acceptance-setup.sh: eight people, two resources, two groups with members). Each
// flow is recorded here and now in Chromium, then synthesized, replay-validated, published and RUN
// with NEW arguments; results are checked against DAViCal's own database. What DAViCal brings:
// sortable tables of principals, a principal's page that is a form of label/value rows above several
// tables, forms written inside table rows (the HTML parser moves them out of the table, their fields
// stay in the cells), multipart posts carrying a csrf_token, a username field named `xxxxusername`,
// a member chosen by name from a list whose values are ids, and a delete confirmed by a link that
// carries a one-time token. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { clickThrough, fieldHolding, liveApp } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, DAVICAL_ADMIN, davicalRows } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.davical);
type Item = Record<string, unknown>;

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on DAViCal (%s)', (backend) => {
  const live = liveApp(APPS.davical, backend, DAVICAL_ADMIN.username, DAVICAL_ADMIN.password);
  const { flow, hinted, bound } = live;
  const rows = (sql: string) => davicalRows(live.url, sql);
  /** A principal's id, by its username. */
  const idOf = (username: string) => Number(rows(`SELECT principal_id FROM dav_principal WHERE username = '${username}'`)[0]![0]);
  const principal = (username: string) => {
    const [r] = rows(`SELECT fullname, email FROM usr WHERE username = '${username}'`);
    return r && { fullname: r[0], email: r[1] };
  };
  const membersOf = (group: string) =>
    rows(
      `SELECT m.username FROM group_member gm JOIN dav_principal g ON g.principal_id = gm.group_id JOIN dav_principal m ON m.principal_id = gm.member_id WHERE g.username = '${group}' ORDER BY 1`,
    ).map((r) => r[0]);
  /** Records a flow after signing in through the login form. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.recordSignedIn(
      name,
      { path: '/', user: 'input[name="username"]', password: 'input[name="password"]', submit: 'input[name="submit"]' },
      steps,
    );
  const submit = clickThrough;
  /** A principal's page, opened as a bookmark would open it. */
  const openPrincipal = async (page: Page, base: string, id: number) => {
    await page.goto(`${base}/admin.php?action=edit&t=principal&id=${id}`);
    await page.waitForSelector('#form_editor_1');
  };

  it('the list of people, run after a change: every person, with their display name and mail as they are now', async () => {
    const har = await record('users', async (page, base) => {
      await page.goto(`${base}/index.php`);
      await submit(page, 'a:has-text("User Functions")');
      await page.waitForSelector('text=Hana Sato');
    });
    rows(`UPDATE principal SET displayname = 'Ada Moreno-Lind' WHERE user_no = (SELECT user_no FROM usr WHERE username = 'ada')`);
    const { result } = await flow('dv-users', har, hinted({}), bound({}));
    const items = result.items as Item[];
    const want = rows('SELECT displayname FROM dav_principal WHERE type_id = 1 ORDER BY username').map((r) => r[0]!);
    expect(want).toContain('Ada Moreno-Lind');
    expect(items).toHaveLength(want.length);
    fieldHolding(items, want);
    fieldHolding(
      items,
      rows('SELECT email FROM dav_principal WHERE type_id = 1 ORDER BY username').map((r) => r[0]!),
    );
    expect(JSON.stringify(items)).not.toContain('Press room');
  });

  it("a principal's page, run for ANOTHER principal: their name, mail and groups", async () => {
    const har = await record('principal', async (page, base) => openPrincipal(page, base, idOf('ada')));
    const { result } = await flow('dv-principal', har, hinted({ principal_id: idOf('ada') }), bound({ principal_id: idOf('chidi') }));
    const text = JSON.stringify(result);
    expect(text).toContain('Chidi Obi');
    expect(text).toContain('chidi@orchard.test');
    expect(text).toContain('Cellar team');
    expect(text).not.toContain('Moreno');
    expect(text).not.toContain('Pickers');
  });

  // (Not its password: DAViCal 1.1.12's form prints the placeholder "$pwstars" in its password boxes,
  // and the server takes it back as a new password — the browser's save did so to chidi too.)
  it("a principal's mail changed, run for ANOTHER principal: only theirs changes", async () => {
    const har = await record('edit', async (page, base) => {
      await openPrincipal(page, base, idOf('chidi'));
      await page.fill('input[name="email"]', 'chidi.obi@orchard.test');
      await submit(page, 'input[name="submit"][value="Apply Changes"]');
    });
    expect(principal('chidi')!.email).toBe('chidi.obi@orchard.test');
    const elif = principal('elif')!;
    await flow(
      'dv-edit',
      har,
      hinted({ principal_id: idOf('chidi'), email: 'chidi.obi@orchard.test' }),
      bound({ principal_id: idOf('elif'), email: 'elif.demir@orchard.test' }),
    );
    expect(principal('elif')).toEqual({ ...elif, email: 'elif.demir@orchard.test' });
    expect(principal('chidi')!.email).toBe('chidi.obi@orchard.test');
  });

  it('a member added to a group by name, run with ANOTHER group and ANOTHER person', async () => {
    const har = await record('member', async (page, base) => {
      await openPrincipal(page, base, idOf('pickers'));
      await page.selectOption('select[name="member_id"]', { label: 'Hana Sato' });
      await submit(page, 'input[name="savegrouprow"]');
    });
    expect(membersOf('pickers')).toEqual(['ada', 'ben', 'dara', 'hana']);
    await flow(
      'dv-member',
      har,
      hinted({ group_id: idOf('pickers'), member: 'Hana Sato' }),
      bound({ group_id: idOf('cellar'), member: 'Gus Lindqvist' }),
    );
    expect(membersOf('cellar')).toEqual(['chidi', 'elif', 'gus']);
    expect(membersOf('pickers')).toEqual(['ada', 'ben', 'dara', 'hana']);
  });

  it('a calendar created for a principal, run for ANOTHER principal with ANOTHER name', async () => {
    const collections = (u: string) =>
      rows(`SELECT dav_name, dav_displayname FROM collection WHERE dav_name LIKE '/${u}/%' AND is_calendar ORDER BY 1`);
    const har = await record('calendar', async (page, base) => {
      await openPrincipal(page, base, idOf('dara'));
      await submit(page, 'a:has-text("Create Collection")');
      await page.fill('input[name="collection_name"]', 'harvest');
      await page.fill('input[name="dav_displayname"]', 'Harvest 2026');
      await submit(page, 'input[name="submit"][value="Create"]');
    });
    expect(collections('dara')).toContainEqual(['/dara/harvest/', 'Harvest 2026']);
    await flow(
      'dv-calendar',
      har,
      hinted({ principal_id: idOf('dara'), name: 'harvest', title: 'Harvest 2026' }),
      bound({ principal_id: idOf('farah'), name: 'pruning', title: 'Pruning rota' }),
    );
    expect(collections('farah')).toContainEqual(['/farah/pruning/', 'Pruning rota']);
    expect(collections('dara')).not.toContainEqual(['/dara/pruning/', 'Pruning rota']);
  });

  it('a person created with a password, run with ANOTHER person: they exist and sign in with their own password', async () => {
    const har = await record('create', async (page, base) => {
      await page.goto(`${base}/admin.php?action=edit&t=principal`);
      await page.fill('input[name="xxxxusername"]', 'ivo');
      await page.fill('input[name="newpass1"]', 'Ivo-pass-77');
      await page.fill('input[name="newpass2"]', 'Ivo-pass-77');
      await page.fill('input[name="fullname"]', 'Ivo Petrov');
      await page.fill('input[name="email"]', 'ivo@orchard.test');
      await submit(page, 'input[name="submit"][value="Create"]');
    });
    expect(principal('ivo')).toEqual({ fullname: 'Ivo Petrov', email: 'ivo@orchard.test' });
    await flow(
      'dv-create',
      har,
      hinted({ username: 'ivo', password: 'Ivo-pass-77', fullname: 'Ivo Petrov', email: 'ivo@orchard.test' }),
      bound({ username: 'jun', password: 'Jun-pass-88', fullname: 'Jun Tanaka', email: 'jun@orchard.test' }),
    );
    expect(principal('jun')).toEqual({ fullname: 'Jun Tanaka', email: 'jun@orchard.test' });
    // (Their own password: DAViCal's sign-in takes it.)
    const signIn = await fetch(`${live.url}/`, {
      method: 'POST',
      body: new URLSearchParams({ username: 'jun', password: 'Jun-pass-88', submit: 'GO!' }),
      redirect: 'manual',
    });
    expect(await signIn.text()).not.toContain('Log On Please');
  });

  it('a principal deleted through the link that confirms it, run for ANOTHER principal: only they are gone', async () => {
    const gus = idOf('gus');
    const har = await record('delete', async (page, base) => {
      await openPrincipal(page, base, gus);
      await submit(page, 'a:has-text("Delete Principal")');
      await submit(page, 'a:has-text("Confirm Deletion of the Principal")');
    });
    expect(principal('gus')).toBeUndefined();
    const before = rows('SELECT username FROM usr ORDER BY 1').map((r) => r[0]);
    const { result } = await flow('dv-delete', har, hinted({ principal_id: gus }), bound({ principal_id: idOf('tractor') }));
    // (What the site said, not the menu above it.)
    expect(result).toEqual({ message: 'Principal deleted.' });
    expect(rows('SELECT username FROM usr ORDER BY 1').map((r) => r[0])).toEqual(before.filter((u) => u !== 'tractor'));
  });
});
