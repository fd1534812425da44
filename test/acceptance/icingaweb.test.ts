// Acceptance on a thirtieth real application we did not write: Icinga Web 2.11's user and group
// administration (Debian's icingaweb2, PHP over PostgreSQL; a fresh database per run from the seed).
// Each flow is recorded here and now in Chromium, signing in through its form, then synthesized,
// replay-validated, published and RUN with NEW arguments; results are checked in its database. What
// Icinga Web brings: its own JavaScript loads every link and form answer into a column by XHR
// (`X-Icinga-Container`, `X-Icinga-WindowId` headers, HTML fragments), answers a saved form with
// an `X-Icinga-Redirect` header, and every form carries a CSRF token and a form UID. Opt-in:
// ACCEPTANCE=1.
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, ICINGAWEB_USER, pgRows } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.icingaweb);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Icinga Web 2 (%s)', (backend) => {
  const live = liveApp(APPS.icingaweb, backend, ICINGAWEB_USER.username, ICINGAWEB_USER.password);
  const { flow, bound } = live;
  const rows = (sql: string) => pgRows(`icingaweb_run_${new URL(live.url).port}`, sql);
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  /** Records a flow after signing in through the login form, from `start`, with every request to another host refused. */
  const record = (name: string, start: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (p, base) => {
      await refuseOtherHosts(p, base);
      await p.goto(`${base}/authentication/login`);
      await p.fill('input[name=username]', ICINGAWEB_USER.username);
      await p.fill('input[name=password]', ICINGAWEB_USER.password);
      await Promise.all([p.waitForNavigation(), p.press('input[name=password]', 'Enter')]);
      await p.waitForSelector('#menu');
      await p.goto(`${base}${start}`);
      await p.waitForSelector('#col1 .content');
      await steps(p);
    });
  const xhr = (p: Page, part: string, method = 'GET') =>
    p.waitForResponse((r) => r.url().includes(part) && r.request().method() === method && r.request().resourceType() === 'xhr');

  it('the users a search finds, run with ANOTHER search', async () => {
    const har = await record('search', '/user/list?backend=icingaweb2', async (p) => {
      await p.fill('#col1 input[name=q]', 'an');
      // (The search posts `q`, and the list it answers with is addressed by a filter: `?(user=*an*)&…`.)
      await Promise.all([xhr(p, '(user='), p.press('#col1 input[name=q]', 'Enter')]);
      await p.waitForSelector('#col1 a:has-text("dan")');
    });
    const { result } = await flow('iw-search', har, hinted({ query: 'an' }), bound({ query: 'co' }));
    const text = JSON.stringify(result);
    expect(text).toContain('cora');
    expect(text).not.toContain('"ann"');
    expect(text).not.toContain('bob');
  });

  it('a user created with a password, run with ANOTHER user and password', async () => {
    const har = await record('user', '/user/list?backend=icingaweb2', async (p) => {
      await Promise.all([xhr(p, '/user/add'), p.click('#col1 a:has-text("Add a New User")')]);
      await p.fill('#col2 input[name=user_name]', 'erin');
      await p.fill('#col2 input[name=password]', 'Erin-pass-73');
      await Promise.all([xhr(p, '/user/add', 'POST'), p.click('#col2 input[type=submit]')]);
    });
    const user = (name: string) => rows(`SELECT active, convert_from(password_hash, 'UTF8') FROM icingaweb_user WHERE name = '${name}'`)[0];
    expect(user('erin')?.[0]).toBe('1');
    const { def } = await flow(
      'iw-user',
      har,
      hinted({ user: 'erin', password: 'Erin-pass-73' }),
      bound({ user: 'fern', password: 'Fern-pass-89' }),
    );
    const made = user('fern');
    expect(made?.[0]).toBe('1');
    const verify = execFileSync('php', ['-r', 'echo password_verify($argv[1], $argv[2]) ? "yes" : "no";', 'Fern-pass-89', made![1]!], {
      encoding: 'utf8',
    });
    expect(verify).toBe('yes');
    expect(JSON.stringify(def)).not.toContain('Erin-pass-73');
  });

  it('a user added to a group, run with ANOTHER user and group', async () => {
    const har = await record('member', '/group/show?backend=icingaweb2&group=Orchard%20operators', async (p) => {
      await Promise.all([xhr(p, '/group/addmember'), p.click('#col1 a[href*="/group/addmember"]')]);
      await p.selectOption('select[name="user_name[]"]', 'cora');
      await Promise.all([xhr(p, '/group/addmember', 'POST'), p.click('input[type=submit][value=Add]')]);
    });
    const members = (group: string) =>
      rows(
        `SELECT m.username FROM icingaweb_group_membership m JOIN icingaweb_group g ON g.id = m.group_id WHERE g.name = '${group}' ORDER BY 1`,
      ).map((r) => r[0]);
    expect(members('Orchard operators')).toEqual(['ann', 'bob', 'cora']);
    await flow('iw-member', har, hinted({ group: 'Orchard operators', user: 'cora' }), bound({ group: 'Cellar viewers', user: 'dan' }));
    expect(members('Cellar viewers')).toEqual(['cora', 'dan']);
    expect(members('Orchard operators')).toEqual(['ann', 'bob', 'cora']);
  });

  it('a user removed after its confirmation form, run on ANOTHER user', async () => {
    const har = await record('remove', '/user/list?backend=icingaweb2', async (p) => {
      await Promise.all([xhr(p, '/user/remove'), p.click('#col1 a[href*="/user/remove"][href*="user=dan"]')]);
      await Promise.all([xhr(p, '/user/remove', 'POST'), p.click('#col2 input[type=submit][value=Yes]')]);
    });
    const names = () => rows('SELECT name FROM icingaweb_user ORDER BY 1').map((r) => r[0]);
    expect(names()).not.toContain('dan');
    await flow('iw-remove', har, hinted({ user: 'dan' }), bound({ user: 'bob' }));
    expect(names()).toEqual(expect.arrayContaining(['admin', 'ann', 'cora']));
    expect(names()).not.toContain('bob');
  });
});
