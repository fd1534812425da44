// Acceptance on a twenty-first real application we did not write: Roundcube 1.6 webmail (Debian's
// roundcube-core, elastic skin) over a Dovecot IMAP server (a fresh one per run, with the mailboxes
// scripts/acceptance-setup.sh seeded). Each flow is recorded here and now in Chromium, signing in
// through the login form, then synthesized, replay-validated, published and RUN with NEW
// arguments; results are checked over IMAP or in Roundcube's own database. What Roundcube brings:
// a login form with a request token, AJAX calls that carry the page's token in an
// `X-Roundcube-Request` header, answers that are JSON wrapping JavaScript to run (the message list is
// a series of `this.add_message_row(uid, {...})` calls), forms inside iframes, and a compose screen
// whose id the server hands out in a redirect. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, ROUNDCUBE_USER, roundcubeImap, roundcubeRows } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.roundcube);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Roundcube (%s)', (backend) => {
  const live = liveApp(APPS.roundcube, backend, ROUNDCUBE_USER.username, ROUNDCUBE_USER.password);
  const { flow, bound } = live;
  const port = () => Number(new URL(live.url).port);
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  /** Records a flow after signing in through the login form, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(base);
      await page.fill('#rcmloginuser', ROUNDCUBE_USER.username);
      await page.fill('#rcmloginpwd', ROUNDCUBE_USER.password);
      await Promise.all([page.waitForNavigation(), page.click('#rcmloginsubmit')]);
      await page.waitForSelector('#messagelist tbody tr');
      await steps(page, base);
    });
  /** The answer to the request for `action` (named in its URL, or in its form body). */
  const answer = (page: Page, action: string) =>
    page.waitForResponse(
      (r) => (r.url().includes(`_action=${action}`) || (r.request().postData() ?? '').includes(`_action=${action}`)) && r.status() < 400,
    );
  /** The subjects IMAP holds in `mailbox`. */
  const subjects = async (mailbox: string) =>
    (await roundcubeImap(port(), [`SELECT "${mailbox}"`, 'FETCH 1:* (BODY.PEEK[HEADER.FIELDS (SUBJECT)])']))
      .split(/\r?\n/)
      .filter((l) => l.startsWith('Subject: '))
      .map((l) => l.slice('Subject: '.length));

  it('the messages a search finds, run with ANOTHER search', async () => {
    const har = await record('search', async (page) => {
      await page.fill('#mailsearchform', 'invoice');
      await Promise.all([answer(page, 'search'), page.press('#mailsearchform', 'Enter')]);
      await page.waitForSelector('#messagelist tbody tr:has-text("Invoice 2043")');
    });
    const { result, def } = await flow('rc-search', har, hinted({ query: 'invoice' }), bound({ query: 'plum' }));
    // The hits are records read from the answer's code, not the code as text.
    expect(def.steps.at(-1).extract.items).toMatchObject({ from: 'calls' });
    expect(result.items).toEqual([expect.objectContaining({ subject: 'Plum tree delivery', fromto: 'Ivy Jones' })]);
  });

  it('a message opened from the list, run on ANOTHER message', async () => {
    const har = await record('read', async (page) => {
      await Promise.all([answer(page, 'preview'), page.click('#messagelist tbody tr:has-text("Pear harvest schedule")')]);
      await page.frameLocator('#messagecontframe').locator('text=Conference pears').waitFor();
    });
    // (IMAP numbers the seeded messages in order: the quince recipe is the fifth.)
    const { result } = await flow('rc-read', har, hinted({ uid: '2' }), bound({ uid: 5 }));
    // The message's body is a field of its record, beside its headers.
    expect(result.content).toBe('Simmer the quinces whole for an hour before straining overnight.');
    expect(JSON.stringify(result)).toContain('Eve Fischer');
    expect(JSON.stringify(result)).not.toContain('Conference pears');
  });

  it('a folder created in Settings, run with ANOTHER name', async () => {
    const har = await record('folder', async (page, base) => {
      await page.goto(`${base}/?_task=settings&_action=folders`);
      await page.click('a.create');
      const form = page.frameLocator('#preferences-frame');
      await form.locator('input[name=_name]').fill('Invoices 2026');
      await Promise.all([answer(page, 'save-folder'), form.locator('button.submit').click()]);
      await page
        .waitForSelector('#subscription-table li:has-text("Invoices 2026"), #folder-list li:has-text("Invoices 2026")', {
          timeout: 5000,
        })
        .catch(() => undefined);
    });
    await flow('rc-folder', har, hinted({ name: 'Invoices 2026' }), bound({ name: 'Invoices 2027' }));
    const folders = await roundcubeImap(port(), ['LIST "" "*"']);
    expect(folders).toContain('Invoices 2027');
    expect(folders).toContain('Invoices 2026');
  });

  it('a contact added to the address book, run with ANOTHER person', async () => {
    const har = await record('contact', async (page, base) => {
      await page.goto(`${base}/?_task=addressbook`);
      await page.click('a.create');
      const form = page.frameLocator('#contact-frame');
      await form.locator('#ff_firstname').fill('Hazel');
      await form.locator('#ff_surname').fill('Nutley');
      await form.locator('#ff_email0').fill('hazel@orchard.test');
      await Promise.all([answer(page, 'save'), form.locator('button.submit').click()]);
    });
    await flow(
      'rc-contact',
      har,
      hinted({ first_name: 'Hazel', last_name: 'Nutley', email: 'hazel@orchard.test' }),
      bound({ first_name: 'Rowan', last_name: 'Ashby', email: 'rowan@orchard.test' }),
    );
    const rows = roundcubeRows(port(), 'SELECT firstname, surname, email FROM contacts WHERE del = 0');
    expect(rows).toContainEqual({ firstname: 'Rowan', surname: 'Ashby', email: 'rowan@orchard.test' });
  });

  it('a draft saved from the compose screen, run with ANOTHER recipient and subject', async () => {
    const har = await record('draft', async (page, base) => {
      await page.goto(`${base}/?_task=mail&_action=compose`);
      await page.waitForSelector('#compose-subject');
      await page.fill('.recipient-input input >> nth=0', 'bob@orchard.test');
      await page.fill('#compose-subject', 'Crates for Saturday');
      await page.fill('#composebody', 'Could you bring twelve crates on Saturday?');
      await Promise.all([answer(page, 'send'), page.click('a.save.draft:visible')]);
    });
    await flow(
      'rc-draft',
      har,
      hinted({ to: 'bob@orchard.test', subject: 'Crates for Saturday', body: 'Could you bring twelve crates on Saturday?' }),
      bound({ to: 'ivy@orchard.test', subject: 'Plum trees on Thursday', body: 'Please leave the plum trees by the gate.' }),
    );
    expect(await subjects('Drafts')).toContain('Plum trees on Thursday');
  });
});
