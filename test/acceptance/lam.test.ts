// Acceptance on a forty-sixth real application we did not write: LDAP Account Manager 8.3 (Debian's
// ldap-account-manager, PHP) over an OpenLDAP directory of its own per start (scripts/acceptance-
// setup.sh: twelve people in four teams). Each flow is recorded here and now in Chromium, then
// synthesized, replay-validated, published and RUN with NEW arguments; results are checked
// against the directory itself (`ldapsearch` on the run's slapd socket). What LAM brings: a
// sign-in whose user is chosen from a menu of DNs, a list whose filters are text boxes in a row of
// the table itself, posted with the session's `sec_token`, records addressed by DN
// (`edit.php?type=user&DN='uid=ada,ou=People,…'`), and an editor that keeps the account being
// edited in the session under a key of its own (`editKey=editContainer…`), its tabs posted as
// multipart forms one after another before the save — with a user name the server derived from
// the names typed on the first tab. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { clickThrough, fieldHolding, liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, LAM_USER, lamLdap } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.lam);
type Item = Record<string, unknown>;

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])(
  'synthesis on LDAP Account Manager (%s)',
  (backend) => {
    const live = liveApp(APPS.lam, backend, LAM_USER.username, LAM_USER.password);
    const { flow, hinted, bound } = live;
    /** Records a flow from the user list, after signing in through the login form. */
    const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
      live.record(name, async (page, base) => {
        await refuseOtherHosts(page, base);
        await page.goto(`${base}/templates/login.php`);
        await page.selectOption('#username', LAM_USER.username);
        await page.fill('#passwd', LAM_USER.password);
        await Promise.all([page.waitForURL(/lists\/list\.php\?type=user/), page.click('#btn_checklogin')]);
        await page.waitForSelector('table.accountlist');
        await steps(page, base);
      });
    const submit = clickThrough;
    const uidsOf = (filter: string) => lamLdap(live.url, filter, 'uid').map((e) => e.uid![0]!);

    it("users filtered by their group's number, run with ANOTHER number: that team's people", async () => {
      const har = await record('filter', async (page) => {
        await page.fill('#filtergidnumber', '10002');
        await Promise.all([page.waitForNavigation(), page.press('#filtergidnumber', 'Enter')]);
        await page.waitForSelector('table.accountlist');
      });
      const { result } = await flow('lam-filter', har, hinted({ filtergidnumber: '10002' }), bound({ filtergidnumber: 10004 }));
      const items = result.items as Item[];
      const want = uidsOf('(&(objectClass=posixAccount)(gidNumber=10004))');
      expect(want.sort()).toEqual(['hana', 'ivan', 'kai']);
      expect(items).toHaveLength(3);
      fieldHolding(items, want, true);
      fieldHolding(items, ['Hana', 'Ivan', 'Kai'], true);
      expect(JSON.stringify(items)).not.toContain('Dara');
    });

    it("a person's record, run for ANOTHER person: their names, mail and telephone", async () => {
      const har = await record('person', async (page) => {
        await submit(page, 'table.accountlist tr:has(td:text-is("ada")) a[title="Edit"]');
        await page.waitForSelector('#givenName');
      });
      const { result } = await flow('lam-person', har, hinted({ uid: 'ada' }), bound({ uid: 'hana' }));
      const text = JSON.stringify(result);
      expect(text).toContain('Hana');
      expect(text).toContain('Sato');
      expect(text).toContain('hana@northwind.test');
      expect(text).toContain(lamLdap(live.url, '(uid=hana)', 'telephoneNumber')[0]!.telephoneNumber![0]);
      expect(text).not.toContain('Moreno');
    });

    it('a new person, their team chosen on the Unix tab, run with ANOTHER name, telephone and team', async () => {
      const har = await record('create', async (page) => {
        await submit(page, '#btn_new');
        await page.fill('#givenName', 'Mia');
        await page.fill('#sn', 'Torres');
        await page.fill('#telephoneNumber_0', '+44 20 7946 0200');
        await submit(page, 'button[name="form_main_posixAccount"]');
        await page.waitForSelector('#uid');
        await page.selectOption('#gidNumber', '10002');
        await submit(page, '#btn_accountContainerSaveAccount');
        await page.waitForSelector('text=Account was created successfully');
      });
      expect(uidsOf('(sn=Torres)')).toEqual(['mtorres']);
      await flow(
        'lam-create',
        har,
        hinted({ givenName: 'Mia', sn: 'Torres', telephoneNumber_0: '+44 20 7946 0200', gidNumber: '10002' }),
        bound({ givenName: 'Noor', sn: 'Rahman', telephoneNumber_0: '+44 20 7946 0300', gidNumber: 10004 }),
      );
      const [made] = lamLdap(live.url, '(sn=Rahman)', 'uid', 'givenName', 'telephoneNumber', 'gidNumber');
      // (Its user name the one the server derived from the new names, not the recorded person's.)
      expect(made).toEqual({ uid: ['nrahman'], givenName: ['Noor'], telephoneNumber: ['+44 20 7946 0300'], gidNumber: ['10004'] });
    });

    it("a person's telephone changed, run for ANOTHER person: only theirs changes", async () => {
      const har = await record('edit', async (page) => {
        await submit(page, 'table.accountlist tr:has(td:text-is("chidi")) a[title="Edit"]');
        await page.fill('#telephoneNumber_0', '+44 20 7946 0999');
        await submit(page, '#btn_accountContainerSaveAccount');
        await page.waitForSelector('text=successful');
      });
      expect(lamLdap(live.url, '(uid=chidi)', 'telephoneNumber')[0]!.telephoneNumber).toEqual(['+44 20 7946 0999']);
      await flow(
        'lam-edit',
        har,
        hinted({ uid: 'chidi', telephoneNumber_0: '+44 20 7946 0999' }),
        bound({ uid: 'eli', telephoneNumber_0: '+44 20 7946 0555' }),
      );
      const [eli] = lamLdap(live.url, '(uid=eli)', 'telephoneNumber', 'givenName', 'sn', 'mail');
      expect(eli).toEqual({ givenName: ['Eli'], sn: ['Novak'], mail: ['eli@northwind.test'], telephoneNumber: ['+44 20 7946 0555'] });
      expect(lamLdap(live.url, '(uid=chidi)', 'telephoneNumber')[0]!.telephoneNumber).toEqual(['+44 20 7946 0999']);
    });

    it('a person deleted after confirming, run for ANOTHER person: only they are gone', async () => {
      const har = await record('delete', async (page) => {
        await submit(page, 'table.accountlist tr:has(td:text-is("gus")) a[title="Delete"]');
        await submit(page, 'button[name="delete"], input[name="delete"]');
        await page.waitForSelector('text=Deletion was successful');
      });
      expect(uidsOf('(uid=gus)')).toEqual([]);
      const before = uidsOf('(objectClass=posixAccount)');
      await flow('lam-delete', har, hinted({ uid: 'gus' }), bound({ uid: 'lena' }));
      expect(uidsOf('(objectClass=posixAccount)').sort()).toEqual(before.filter((u) => u !== 'lena').sort());
    });
  },
);
