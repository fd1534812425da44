// Acceptance on a twenty-seventh real application we did not write: PostfixAdmin 3.3, the admin UI
// of a mail server's virtual domains (Debian's postfixadmin, PHP over SQLite; a fresh copy of the
// seed per run). Each flow is recorded here and now in Chromium, signing in through its form, then
// synthesized, replay-validated, published and RUN with NEW arguments; results are checked in its
// database. What PostfixAdmin brings: a `token` in every form and action link, a search posted as
// `search[_]`, a mailbox's password typed twice, a goto list in a textarea. Opt-in: ACCEPTANCE=1.
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, POSTFIXADMIN_USER, postfixadminRows } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.postfixadmin);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on PostfixAdmin (%s)', (backend) => {
  const live = liveApp(APPS.postfixadmin, backend, POSTFIXADMIN_USER.username, POSTFIXADMIN_USER.password);
  const { flow, bound } = live;
  const rows = (sql: string) => postfixadminRows(Number(new URL(live.url).port), sql);
  const mailbox = (username: string) =>
    rows(`SELECT username, name, active, password FROM mailbox WHERE username = '${username}'`)[0] as any;
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  /** Records a flow after signing in through the login form, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (p, base) => {
      await refuseOtherHosts(p, base);
      await p.goto(`${base}/login.php`);
      await p.fill('#fUsername', POSTFIXADMIN_USER.username);
      await p.fill('#fPassword', POSTFIXADMIN_USER.password);
      await Promise.all([p.waitForNavigation(), p.click('button[name=submit]')]);
      await steps(p, base);
    });

  it("the mailboxes a domain's search finds, run with ANOTHER search", async () => {
    const har = await record('search', async (p, base) => {
      await p.goto(`${base}/list-virtual.php?domain=orchard.test`);
      await p.fill('input[name="search[_]"]', 'baker');
      await Promise.all([p.waitForNavigation(), p.press('input[name="search[_]"]', 'Enter')]);
      await p.waitForSelector('text=ann@orchard.test');
    });
    const { result } = await flow('pf-search', har, hinted({ query: 'baker' }), bound({ query: 'reed' }));
    const text = JSON.stringify(result);
    expect(text).toContain('cora@orchard.test');
    expect(text).not.toContain('ann@orchard.test');
  });

  it('a mailbox created with a password, run with ANOTHER mailbox and password', async () => {
    const har = await record('mailbox', async (p, base) => {
      await p.goto(`${base}/edit.php?table=mailbox&domain=orchard.test`);
      await p.fill('input[name="value[local_part]"]', 'fern');
      await p.fill('input[name="value[name]"]', 'Fern Hill');
      await p.fill('input[name="value[password]"]', 'Fern-pass-31');
      await p.fill('input[name="value[password2]"]', 'Fern-pass-31');
      await Promise.all([p.waitForNavigation(), p.click('input[type=submit][name=submit]')]);
    });
    expect(mailbox('fern@orchard.test')).toMatchObject({ name: 'Fern Hill' });
    const { def } = await flow(
      'pf-mailbox',
      har,
      hinted({ local_part: 'fern', name: 'Fern Hill', password: 'Fern-pass-31' }),
      bound({ local_part: 'gale', name: 'Gale Wood', password: 'Gale-pass-47' }),
    );
    const made = mailbox('gale@orchard.test');
    expect(made).toMatchObject({ name: 'Gale Wood', active: 1 });
    // The password the run was given is the one stored (its crypt hash), and it is not in the connector.
    const check = execFileSync(
      'php',
      [
        '-r',
        'echo crypt($argv[1], $argv[2]) === $argv[2] ? "yes" : "no";',
        'Gale-pass-47',
        String(made.password).replace(/^\{[A-Z0-9-]+\}/, ''),
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(check).toBe('yes');
    expect(JSON.stringify(def)).not.toContain('Fern-pass-31');
  });

  it('an alias created with its targets, run with ANOTHER alias and targets', async () => {
    const har = await record('alias', async (p, base) => {
      await p.goto(`${base}/edit.php?table=alias&domain=orchard.test`);
      await p.fill('input[name="value[localpart]"]', 'harvest');
      await p.fill('textarea[name="value[goto]"]', 'cora@orchard.test\ndan@orchard.test');
      await Promise.all([p.waitForNavigation(), p.click('input[type=submit][name=submit]')]);
    });
    const goto = (address: string) => (rows(`SELECT goto FROM alias WHERE address = '${address}'`)[0] as any)?.goto;
    expect(goto('harvest@orchard.test')).toBe('cora@orchard.test,dan@orchard.test');
    await flow(
      'pf-alias',
      har,
      hinted({ alias: 'harvest', targets: 'cora@orchard.test\ndan@orchard.test' }),
      bound({ alias: 'cider', targets: 'ann@orchard.test\neve@cellar.test' }),
    );
    expect(goto('cider@orchard.test')).toBe('ann@orchard.test,eve@cellar.test');
  });

  it('a mailbox deactivated from the list (a link with the token), run on ANOTHER mailbox', async () => {
    const har = await record('deactivate', async (p, base) => {
      await p.goto(`${base}/list-virtual.php?domain=orchard.test`);
      const row = p.locator('tr', { has: p.locator('td', { hasText: 'bob@orchard.test' }) }).last();
      await Promise.all([p.waitForNavigation(), row.locator('a[href*="editactive.php"][href*="table=mailbox"]').first().click()]);
    });
    expect(mailbox('bob@orchard.test').active).toBe(0);
    await flow('pf-deactivate', har, hinted({ mailbox: 'bob@orchard.test' }), bound({ mailbox: 'dan@orchard.test' }));
    expect(mailbox('dan@orchard.test').active).toBe(0);
    expect(mailbox('cora@orchard.test').active).toBe(1);
  });

  it("a mailbox's name and quota changed in its edit form, opened from the list by its address: run on ANOTHER mailbox", async () => {
    const quota = (username: string) => rows(`SELECT quota FROM mailbox WHERE username = '${username}'`)[0] as any;
    const har = await record('edit', async (p, base) => {
      await p.goto(`${base}/list-virtual.php?domain=orchard.test`);
      const row = p.locator('tr', { has: p.locator('td', { hasText: 'ann@orchard.test' }) }).last();
      await Promise.all([p.waitForNavigation(), row.locator('a[href*="edit.php"][href*="table=mailbox"]').first().click()]);
      await p.fill('input[name="value[name]"]', 'Ann Baker-Hill');
      await p.fill('input[name="value[quota]"]', '20');
      await Promise.all([p.waitForNavigation(), p.click('input[type=submit][name=submit]')]);
    });
    expect(mailbox('ann@orchard.test')).toMatchObject({ name: 'Ann Baker-Hill' });
    const dan = mailbox('dan@orchard.test').name;
    await flow(
      'pf-edit',
      har,
      live.hinted({ mailbox: 'ann@orchard.test', name: 'Ann Baker-Hill', quota: 20 }, { allow_side_effects: true }),
      bound({ mailbox: 'cora@orchard.test', name: 'Cora Reed-Vale', quota: 35 }),
    );
    expect(mailbox('cora@orchard.test')).toMatchObject({ name: 'Cora Reed-Vale', active: 1 });
    // (PostfixAdmin keeps a quota in bytes: 35 MB.)
    expect(Number(quota('cora@orchard.test').quota)).toBe(35 * 1024000);
    // (Only the mailbox asked for: the publish-time replay rewrote the recorded one with a fresh
    // name, as a replay of a write does; the others keep theirs.)
    expect(mailbox('dan@orchard.test').name).toBe(dan);
  });
});
