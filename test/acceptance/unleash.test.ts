// Acceptance on a thirty-fifth real application we did not write: Unleash 6.10 (npm
// `unleash-server`, a feature-flag service; a fresh PostgreSQL database copied from a seed per
// run). Each flow is recorded here and now in Chromium, then synthesized, replay-validated,
// published and RUN with NEW arguments; results are checked through Unleash's admin API. What
// Unleash brings: a React (MUI) admin app whose fields mostly have neither names nor placeholders,
// a JSON sign-in that leaves a session cookie, a create dialog that validates the name on every
// keystroke before it posts the flag, an environment switch that is a bare `POST …/on`, and a
// search box whose answer is a paged JSON list. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, UNLEASH_USER, unleashApi } from '../helpers/real-apps.js';
import { run } from '../helpers/runs.js';
import { synthesizeFrom } from '../helpers/synth.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.unleash);
type Flag = { name: string; description: string; type: string; environments: { name: string; enabled: boolean }[] };

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Unleash (%s)', (backend) => {
  const live = liveApp(APPS.unleash, backend, UNLEASH_USER.username, UNLEASH_USER.password);
  const { flow } = live;
  const hinted = (args: Record<string, unknown>) => ({
    hints: { arguments: args, secrets: { account: live.secret }, allow_side_effects: true },
  });
  const bound = (args: Record<string, unknown>) => ({ arguments: args, secret_bindings: { account: live.secret } });
  const flag = async (name: string): Promise<Flag> => unleashApi(live.url, `/api/admin/projects/default/features/${name}`);
  const enabledIn = (f: Flag, env: string) => f.environments.find((e) => e.name === env)?.enabled;

  /** Signs in through the login page and opens the default project's flag table. */
  const signIn = async (page: Page, base: string) => {
    await refuseOtherHosts(page, base);
    await page.goto(`${base}/login`);
    await page.fill('input[name=username]', UNLEASH_USER.username);
    await page.fill('input[name=password]', UNLEASH_USER.password);
    await Promise.all([page.waitForURL(/\/(personal|projects)/), page.click('button[type=submit]')]);
    await page.goto(`${base}/projects/default`);
    await page.waitForSelector('text=frost-alerts', { timeout: 30_000 });
  };
  /** Creates a flag through the project's "New feature flag" dialog. */
  const createFlag = async (page: Page, name: string, description: string) => {
    await page.click('text=New feature flag');
    await page.getByLabel('Feature flag name').fill(name);
    await page.getByLabel('Description (optional)').fill(description);
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/admin/projects/default/features') && r.request().method() === 'POST'),
      page.click('button:has-text("Create feature flag")'),
    ]);
    await page.waitForURL(new RegExp(`/features/${name}$`));
  };

  it('a flag created in the project dialog, run with a NEW name and description: the new flag exists', async () => {
    const har = await live.record('create', async (page, base) => {
      await signIn(page, base);
      await createFlag(page, 'apple-thinning', 'Thin the apple clusters in June');
    });
    expect((await flag('apple-thinning')).description).toBe('Thin the apple clusters in June');
    const description = 'Net the plums "before" the birds\\come';
    const { result } = await flow(
      'unl-create',
      har,
      hinted({ name: 'apple-thinning', description: 'Thin the apple clusters in June' }),
      bound({ name: 'plum-netting', description }),
    );
    expect(JSON.stringify(result)).toContain('plum-netting');
    expect(await flag('plum-netting')).toMatchObject({ name: 'plum-netting', description, type: 'release' });
  });

  it("a flag's development switch turned on in the table, run on ANOTHER flag: that flag is on there, production untouched", async () => {
    const har = await live.record('toggle', async (page, base) => {
      await signIn(page, base);
      await Promise.all([
        page.waitForResponse((r) => /\/frost-alerts\/environments\/development\/on/.test(r.url()) && r.ok()),
        page.locator('tr', { hasText: 'frost-alerts' }).getByLabel('development').click(),
      ]);
    });
    expect(enabledIn(await flag('frost-alerts'), 'development')).toBe(true);
    expect(enabledIn(await flag('harvest-calendar'), 'development')).toBe(false);
    await flow('unl-toggle', har, hinted({ flag: 'frost-alerts' }), bound({ flag: 'harvest-calendar' }));
    const after = await flag('harvest-calendar');
    expect(enabledIn(after, 'development')).toBe(true);
    expect(enabledIn(after, 'production')).toBe(false);
  });

  it("the flag table's search box, run with ANOTHER query: the flags that match it, and only those", async () => {
    const har = await live.record('search', async (page, base) => {
      await signIn(page, base);
      await Promise.all([
        page.waitForResponse((r) => /\/api\/admin\/search\/features\?.*query=pear/.test(r.url()) && r.ok()),
        page.getByPlaceholder('Search and Filter (Ctrl+Shift+K)').fill('pear'),
      ]);
      await page.waitForSelector('text=pear-grafting-guide');
    });
    const { result } = await flow('unl-search', har, hinted({ query: 'pear' }), bound({ query: 'frost' }));
    const text = JSON.stringify(result);
    expect(text).toContain('frost-alerts');
    expect(text).toContain('Warn growers before a frost night');
    expect(text).not.toContain('pear-grafting-guide');
    expect(text).not.toContain('orchard-irrigation');
  });

  it('recorded as a capture session records it, sign-in typed by hand and nothing hinted: a flag created with its own sign-in', async () => {
    const har = await live.recordCaptured('create-captured', async (page, base) => {
      await signIn(page, base);
      await createFlag(page, 'cherry-netting', 'Cover the cherries before they ripen');
    });
    const c = await synthesizeFrom(live.h, har, { hints: { allow_side_effects: true } });
    expect(c.status, c.text).toBe(200);
    const def = (await live.h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    // (The typed password is a secret slot of the connector, never a value in it.)
    expect(JSON.stringify(def)).not.toContain(UNLEASH_USER.password);
    expect(def.login.slot).toBe('account');
    // The two typed values are its arguments: the name and the description, whatever it calls them.
    const props = Object.keys(c.json.input_schema.properties);
    expect(props).toHaveLength(2);
    const nameArg = props.find((p) => /name|flag|feature/i.test(p) && !/desc/i.test(p))!;
    const descArg = props.find((p) => p !== nameArg)!;
    expect(nameArg, props.join()).toBeTruthy();
    const out = await run(live.h, {
      connector_id: c.json.id,
      arguments: { [nameArg]: 'quince-staking', [descArg]: 'Stake the young quince trees' },
      secret_bindings: { account: live.secret },
    });
    expect(out.status, JSON.stringify(out)).toBe('succeeded');
    expect(await flag('quince-staking')).toMatchObject({ description: 'Stake the young quince trees' });
  });
});
