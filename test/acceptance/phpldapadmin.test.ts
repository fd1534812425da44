// Acceptance on a forty-seventh real application we did not write: phpLDAPadmin 1.2.6 (Debian's
// phpldapadmin, PHP), a generic LDAP browser and editor, over a directory of its own per start
// (scripts/acceptance-setup.sh: LAM's seed, twelve people in four teams). Each flow is recorded
// here and now in Chromium, then synthesized, replay-validated, published and RUN with NEW
// arguments; results are checked against the directory itself (`ldapsearch` on the run's slapd
// socket). What phpLDAPadmin brings: a sign-in form whose user DN is already filled in, a search
// form of raw LDAP filters whose hits are each a small table of attributes under its DN, entries
// addressed by DN in the query string, an editor whose fields are named `new_values[attr][n]`
// beside `old_values[attr][n]`, and changes and deletes that go through a page confirming them.
// Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { clickThrough, fieldHolding, liveApp } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, LAM_USER, plaLdap } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.phpldapadmin);
type Item = Record<string, unknown>;
const dnOf = (uid: string) => encodeURIComponent(`uid=${uid},ou=People,dc=northwind,dc=test`);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on phpLDAPadmin (%s)', (backend) => {
  const live = liveApp(APPS.phpldapadmin, backend, LAM_USER.username, LAM_USER.password);
  const { flow, hinted, bound } = live;
  /** Records a flow after signing in through the login form. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.recordSignedIn(
      name,
      { path: '/cmd.php?cmd=login_form&server_id=1', user: '#login', password: '#password', submit: 'input[name="submit"]' },
      steps,
    );
  const submit = clickThrough;
  /** An entry's page, opened as a bookmark would open it. */
  const openEntry = async (page: Page, base: string, uid: string) => {
    await page.goto(`${base}/cmd.php?cmd=template_engine&server_id=1&dn=${dnOf(uid)}`);
    await page.waitForSelector('#entry_form');
  };
  const uidsOf = (filter: string) => plaLdap(live.url, filter, 'uid').map((e) => e.uid![0]!);

  it('a search by an LDAP filter, run with ANOTHER filter: every entry it matches', async () => {
    const har = await record('search', async (page, base) => {
      await page.goto(`${base}/cmd.php?cmd=query_engine&server_id=1`);
      await page.fill('#filter', 'gidNumber=10002');
      await submit(page, 'input[name="search"]');
      await page.waitForSelector('text=uid=dara');
    });
    const { result } = await flow('pla-search', har, hinted({ filter: 'gidNumber=10002' }), bound({ filter: 'gidNumber=10004' }));
    // (Every entry with that number: the team's three people and their group.)
    const items = result.items as Item[];
    const want = plaLdap(live.url, '(gidNumber=10004)', 'cn').map((e) => e.cn![0]!);
    expect(want.sort()).toEqual(['Hana Sato', 'Ivan Petrov', 'Kai Laine', 'support']);
    expect(items).toHaveLength(4);
    fieldHolding(items, want, true);
    for (const uid of ['hana', 'ivan', 'kai']) expect(JSON.stringify(items)).toContain(`"${uid}"`);
    expect(JSON.stringify(items)).not.toContain('Dara');
  });

  it("a person's entry, run for ANOTHER person: their names, mail and telephone", async () => {
    const har = await record('entry', async (page, base) => openEntry(page, base, 'ada'));
    const { result } = await flow('pla-entry', har, hinted({ uid: 'ada' }), bound({ uid: 'hana' }));
    const text = JSON.stringify(result);
    expect(text).toContain('Hana');
    expect(text).toContain('Sato');
    expect(text).toContain('hana@northwind.test');
    expect(text).toContain(plaLdap(live.url, '(uid=hana)', 'telephoneNumber')[0]!.telephoneNumber![0]);
    expect(text).not.toContain('Moreno');
  });

  it("a person's telephone changed through the confirming page, run for ANOTHER person: only theirs changes", async () => {
    const har = await record('edit', async (page, base) => {
      await openEntry(page, base, 'chidi');
      await page.fill('#new_values_telephonenumber_0', '+44 20 7946 0999');
      await page.click('#create_button');
      await page.waitForSelector('text=+44 20 7946 0999');
      await page.click('input[type="submit"][value="Update Object"]');
      await page.waitForURL(/modified_attrs/);
    });
    expect(plaLdap(live.url, '(uid=chidi)', 'telephoneNumber')[0]!.telephoneNumber).toEqual(['+44 20 7946 0999']);
    await flow(
      'pla-edit',
      har,
      hinted({ uid: 'chidi', telephone: '+44 20 7946 0999' }),
      bound({ uid: 'eli', telephone: '+44 20 7946 0555' }),
    );
    const [eli] = plaLdap(live.url, '(uid=eli)', 'telephoneNumber', 'givenName', 'sn', 'mail');
    expect(eli).toEqual({ givenName: ['Eli'], sn: ['Novak'], mail: ['eli@northwind.test'], telephoneNumber: ['+44 20 7946 0555'] });
    expect(plaLdap(live.url, '(uid=chidi)', 'telephoneNumber')[0]!.telephoneNumber).toEqual(['+44 20 7946 0999']);
  });

  it('a person deleted after confirming, run for ANOTHER person: only they are gone', async () => {
    const har = await record('delete', async (page, base) => {
      await openEntry(page, base, 'gus');
      await page.click('a:has-text("Delete this entry")');
      await page.waitForSelector('text=Are you sure');
      await page.click('input[type="submit"][value="Delete"]');
      await page.waitForSelector('text=Successfully deleted');
    });
    expect(uidsOf('(uid=gus)')).toEqual([]);
    const before = uidsOf('(objectClass=posixAccount)');
    await flow('pla-delete', har, hinted({ uid: 'gus' }), bound({ uid: 'lena' }));
    expect(uidsOf('(objectClass=posixAccount)').sort()).toEqual(before.filter((u) => u !== 'lena').sort());
  });
});
