// Acceptance on a twenty-eighth real application we did not write: Nagios Core 4.4 (Debian's
// nagios4, C CGIs behind Apache; its own daemon and state per run, checks with fixed states). Each
// flow is recorded here and now in Chromium, then synthesized, replay-validated, published and RUN
// with NEW arguments; results are checked in the daemon's status.dat. What Nagios brings: HTTP
// Digest authentication on every page (Debian's realm, answered by the browser's dialog), classic
// nested layout tables whose host cell is left blank on a host's later rows, and cmd.cgi, which
// takes a command only with the CSRF cookie (NagFormId) it handed out on its own form page, and
// answers a refused one with 200 and an error in the page. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, NAGIOS_USER, nagiosAwait } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.nagios);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Nagios (%s)', (backend) => {
  // (Signed in through the browser's Digest dialog: the connector answers the challenge with the
  // hinted login, basic_auth.)
  const live = liveApp(APPS.nagios, backend, NAGIOS_USER.username, NAGIOS_USER.password, { httpCredentials: NAGIOS_USER });
  const { flow, bound } = live;
  const port = () => Number(new URL(live.url).port);
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  const cgi = (base: string, path: string) => `${base}/nagios4/cgi-bin/${path}`;
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (p, base) => {
      await refuseOtherHosts(p, base);
      await steps(p, base);
    });
  /** From a service's page: a command link, its form, and the page that says it was submitted. */
  const command = async (p: Page, link: string, fill: (p: Page) => Promise<void>) => {
    await Promise.all([p.waitForNavigation(), p.click(`a:has-text("${link}")`)]);
    await fill(p);
    await Promise.all([p.waitForNavigation(), p.click('input[type=submit][value=Commit], button:has-text("Commit")')]);
    await p.waitForSelector('text=successfully submitted');
  };

  it("a host group's services, run on ANOTHER group", async () => {
    const har = await record('group', async (p, base) => {
      await p.goto(cgi(base, 'status.cgi?hostgroup=all&style=summary'));
      await Promise.all([p.waitForNavigation(), p.click('a:has-text("Orchard servers")')]);
      await Promise.all([p.waitForNavigation(), p.click('a:has-text("View Service Status Detail For This Host Group")')]);
      await p.waitForSelector('text=Replication lag');
    });
    const { result } = await flow('ng-group', har, hinted({ hostgroup: 'orchard' }), bound({ hostgroup: 'cellar' }));
    const text = JSON.stringify(result);
    for (const s of ['Mail queue', 'SMTP', 'NTP', '212 messages in the queue']) expect(text).toContain(s);
    expect(text).not.toContain('Replication lag');
    // One record per service, each with its host (named once per host on the page: filled down).
    expect(result.items.map((r: any) => `${r.host} ${r.service} ${r.status}`)).toEqual([
      'cellar-dns DNS OK',
      'cellar-dns NTP UNKNOWN',
      'cellar-mail IMAP OK',
      'cellar-mail Mail queue WARNING',
      'cellar-mail SMTP CRITICAL',
    ]);
  });

  it("a service's details, run on ANOTHER service", async () => {
    const har = await record('service', async (p, base) => {
      await p.goto(cgi(base, 'status.cgi?host=orchard-db'));
      await Promise.all([p.waitForNavigation(), p.click('a:has-text("Replication lag")')]);
      await p.waitForSelector('text=340 seconds behind');
    });
    const { result } = await flow(
      'ng-service',
      har,
      hinted({ host: 'orchard-db', service: 'Replication lag' }),
      bound({ host: 'cellar-mail', service: 'Mail queue' }),
    );
    const text = JSON.stringify(result);
    expect(text).toContain('212 messages in the queue');
    expect(text).not.toContain('340 seconds');
  });

  it('a service problem acknowledged with a comment, run on ANOTHER service and comment', async () => {
    const har = await record('ack', async (p, base) => {
      await p.goto(cgi(base, 'extinfo.cgi?type=2&host=orchard-web&service=Disk+%2Fvar'));
      await command(p, 'Acknowledge this service problem', (f) => f.fill('input[name=com_data]', 'Cleaning old logs'));
    });
    const ack = (host: string, service: string) =>
      nagiosAwait(
        port(),
        'servicestatus',
        (f) => f.host_name === host && f.service_description === service && f.problem_has_been_acknowledged === '1',
      );
    expect(await ack('orchard-web', 'Disk /var')).toBeTruthy();
    await flow(
      'ng-ack',
      har,
      hinted({ host: 'orchard-web', service: 'Disk /var', comment: 'Cleaning old logs' }),
      bound({ host: 'cellar-mail', service: 'SMTP', comment: 'Relay moved to the new rack' }),
    );
    expect(await ack('cellar-mail', 'SMTP')).toBeTruthy();
    const comment = await nagiosAwait(port(), 'servicecomment', (f) => f.host_name === 'cellar-mail' && f.service_description === 'SMTP');
    // (The author is the contact's alias: cgi.cfg's lock_author_names.)
    expect(comment).toMatchObject({ author: 'Nagios Admin', comment_data: 'Relay moved to the new rack' });
    expect(
      await nagiosAwait(
        port(),
        'servicestatus',
        (f) => f.service_description === 'Replication lag' && f.problem_has_been_acknowledged === '0',
      ),
    ).toBeTruthy();
  });

  it("a service's active checks disabled, run on ANOTHER service", async () => {
    const har = await record('disable', async (p, base) => {
      await p.goto(cgi(base, 'extinfo.cgi?type=2&host=cellar-dns&service=NTP'));
      await command(p, 'Disable active checks of this service', async () => undefined);
    });
    const off = (host: string, service: string) =>
      nagiosAwait(
        port(),
        'servicestatus',
        (f) => f.host_name === host && f.service_description === service && f.active_checks_enabled === '0',
      );
    expect(await off('cellar-dns', 'NTP')).toBeTruthy();
    await flow('ng-disable', har, hinted({ host: 'cellar-dns', service: 'NTP' }), bound({ host: 'orchard-db', service: 'Disk /' }));
    expect(await off('orchard-db', 'Disk /')).toBeTruthy();
  });
});
