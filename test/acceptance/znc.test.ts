// Acceptance on a twenty-fourth real application we did not write: ZNC 1.8's web admin (Debian's
// znc, an IRC bouncer; a fresh data dir per run with two networks that connect nowhere). Each flow
// is recorded here and now in Chromium, signing in through the login form, then synthesized,
// replay-validated, published and RUN with NEW arguments; results are checked on ZNC's own pages.
// What ZNC brings: a C++ server's templates, every form with a `_CSRF_Check` token, and long
// settings forms (every module a checkbox, every option a field) posted whole. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, ZNC_USER, zncPage } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.znc);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on ZNC (%s)', (backend) => {
  const live = liveApp(APPS.znc, backend, ZNC_USER.username, ZNC_USER.password);
  const { flow, bound } = live;
  const page = (path: string) => zncPage(live.url, path);
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  /** Records a flow after signing in through the login form, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (p, base) => {
      await refuseOtherHosts(p, base);
      await p.goto(`${base}/`);
      await p.fill('#user', ZNC_USER.username);
      await p.fill('#pass', ZNC_USER.password);
      await Promise.all([p.waitForNavigation(), p.click('input[value=Login]')]);
      await steps(p, base);
    });
  const submit = (p: Page, value: string) => Promise.all([p.waitForNavigation(), p.click(`input[type=submit][value="${value}"]`)]);
  const nickOf = async (network: string) =>
    /name="nick"[^>]*value="([^"]*)"|value="([^"]*)"[^>]*name="nick"/
      .exec(await page(`editnetwork?user=seed&network=${network}`))
      ?.slice(1)
      .find(Boolean);

  it('a network added to the user, run with ANOTHER network', async () => {
    const har = await record('network', async (p, base) => {
      await p.goto(`${base}/mods/global/webadmin/addnetwork?user=seed`);
      await p.fill('input[name=name]', 'pantry');
      await p.fill('input[name=nick]', 'pantry_seed');
      await submit(p, 'Add Network and return');
    });
    expect(await page('edituser?user=seed')).toContain('network=pantry');
    await flow('zn-network', har, hinted({ network: 'pantry', nick: 'pantry_seed' }), bound({ network: 'barn', nick: 'barn_owl' }));
    expect(await page('edituser?user=seed')).toContain('network=barn');
    expect(await nickOf('barn')).toBe('barn_owl');
  });

  it("a network's nick edited in its long settings form, run on ANOTHER network", async () => {
    const har = await record('nick', async (p, base) => {
      await p.goto(`${base}/mods/global/webadmin/editnetwork?user=seed&network=orchard`);
      await p.fill('input[name=nick]', 'orchard_keeper');
      await submit(p, 'Save and return');
    });
    expect(await nickOf('orchard')).toBe('orchard_keeper');
    await flow('zn-nick', har, hinted({ network: 'orchard', nick: 'orchard_keeper' }), bound({ network: 'cellar', nick: 'cellar_keeper' }));
    expect(await nickOf('cellar')).toBe('cellar_keeper');
    expect(await nickOf('orchard')).toBe('orchard_keeper');
  });

  it('a user created by the admin, run with ANOTHER user and password', async () => {
    const har = await record('user', async (p, base) => {
      await p.goto(`${base}/mods/global/webadmin/adduser`);
      await p.fill('input[name=user]', 'hazel');
      await p.fill('input[name=password]', 'hazel-pass-1');
      await p.fill('input[name=password2]', 'hazel-pass-1');
      await submit(p, 'Create and return');
    });
    expect(await page('listusers')).toContain('hazel');
    const { def } = await flow(
      'zn-user',
      har,
      hinted({ username: 'hazel', password: 'hazel-pass-1' }),
      bound({ username: 'rowan', password: 'rowan-pass-2' }),
    );
    expect(await page('listusers')).toContain('rowan');
    // The new user signs in with the password the run was given (and it is not in the connector).
    const login = await fetch(`${live.url}/mods/global/webadmin/`, {
      headers: { authorization: `Basic ${Buffer.from('rowan:rowan-pass-2').toString('base64')}` },
    });
    expect(login.status).not.toBe(401);
    expect(JSON.stringify(def)).not.toContain('hazel-pass-1');
  });
});
