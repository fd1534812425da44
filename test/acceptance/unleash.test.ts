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
  const { flow, bound } = live;
  const hinted = (args: Record<string, unknown>) => ({
    hints: { arguments: args, secrets: { account: live.secret }, allow_side_effects: true },
  });
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

  it("a gradual rollout added to a flag's development environment (title typed, slider moved), run on ANOTHER flag", async () => {
    const har = await live.record('strategy', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/projects/default/features/pear-grafting-guide`);
      await page.locator('button:has-text("Add strategy")').first().click();
      await page.waitForURL(/strategies\/create/);
      await page.fill('#title-input', 'Orchard staff');
      await page.locator('input[type=range]').focus();
      for (let i = 0; i < 60; i++) await page.keyboard.press('ArrowLeft');
      await Promise.all([
        page.waitForResponse((r) => /\/environments\/development\/strategies$/.test(r.url()) && r.request().method() === 'POST' && r.ok()),
        page.click('button:has-text("Save strategy")'),
      ]);
    });
    type Strategy = { name: string; title: string; parameters: Record<string, string> };
    const strategies = async (f: string): Promise<Strategy[]> =>
      unleashApi(live.url, `/api/admin/projects/default/features/${f}/environments/development/strategies`);
    expect((await strategies('pear-grafting-guide')).at(-1)).toMatchObject({
      title: 'Orchard staff',
      parameters: { rollout: '40', groupId: 'pear-grafting-guide' },
    });
    await flow(
      'unl-strategy',
      har,
      hinted({ flag: 'pear-grafting-guide', title: 'Orchard staff', rollout: '40' }),
      bound({ flag: 'frost-alerts', title: 'Frost team', rollout: 25 }),
    );
    // (The rollout's group is the flag's own name: a run on another flag groups by that one. The
    // flag may hold Unleash's default strategy already, from being switched on.)
    expect((await strategies('frost-alerts')).filter((x) => x.title === 'Frost team')).toEqual([
      expect.objectContaining({
        name: 'flexibleRollout',
        parameters: { rollout: '25', stickiness: 'default', groupId: 'frost-alerts' },
      }),
    ]);
  });

  it('a flag archived from its page (confirmed in a dialog), run on ANOTHER flag: that one archived, the rest kept', async () => {
    const har = await live.record('archive', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/projects/default/features/cider-press-v2`);
      await page.locator('button:visible:has(svg[data-testid="ArchiveOutlinedIcon"])').click();
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/features/cider-press-v2') && r.request().method() === 'DELETE' && r.ok()),
        page.locator('[role=dialog] button:has-text("Archive flag")').click(),
      ]);
    });
    const active = async () =>
      ((await unleashApi(live.url, '/api/admin/projects/default/features')) as { features: Flag[] }).features.map((f) => f.name).sort();
    const before = await active();
    expect(before).not.toContain('cider-press-v2');
    await flow('unl-archive', har, hinted({ flag: 'cider-press-v2' }), bound({ flag: 'orchard-irrigation' }));
    expect(await active()).toEqual(before.filter((n) => n !== 'orchard-irrigation'));
  });

  it("a tag made up in the tag dialog and put on a flag (two writes: the tag, then the flag's tags), run with a NEW tag on ANOTHER flag", async () => {
    const har = await live.record('tag', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/projects/default/features/harvest-calendar`);
      await page.click('text=Add tag');
      await page.fill('#checkboxes-tag', 'orchard-team');
      await page.click('text=Create new value "orchard-team"');
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/features/harvest-calendar/tags') && r.request().method() === 'PUT' && r.ok()),
        page.click('button:has-text("Save tags")'),
      ]);
    });
    const tags = async (f: string) => ((await unleashApi(live.url, `/api/admin/features/${f}/tags`)) as { tags: { value: string }[] }).tags;
    expect(await tags('harvest-calendar')).toEqual([expect.objectContaining({ type: 'simple', value: 'orchard-team' })]);
    await flow(
      'unl-tag',
      har,
      hinted({ flag: 'harvest-calendar', tag: 'orchard-team' }),
      bound({ flag: 'frost-alerts', tag: 'frost-watch' }),
    );
    expect(await tags('frost-alerts')).toEqual([expect.objectContaining({ type: 'simple', value: 'frost-watch' })]);
  });

  it("a flag's description edited on its edit page (a JSON Patch), run on ANOTHER flag: only that description changed", async () => {
    const har = await live.record('edit', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/projects/default/features/harvest-calendar/edit`);
      // (The form fills in the flag's own description once it has loaded it: typed before, the
      // person's text would be replaced.)
      const box = page.getByPlaceholder('A short description of the feature flag');
      await expect.poll(() => box.inputValue(), { timeout: 15_000 }).toBe('Show picking dates per variety');
      await box.fill('Picking dates for every apple variety');
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/features/harvest-calendar') && r.request().method() === 'PATCH' && r.ok()),
        page.click('main button:has-text("Save")'),
      ]);
    });
    expect((await flag('harvest-calendar')).description).toBe('Picking dates for every apple variety');
    const before = await flag('frost-alerts');
    await flow(
      'unl-edit',
      har,
      hinted({ flag: 'harvest-calendar', description: 'Picking dates for every apple variety' }),
      bound({ flag: 'frost-alerts', description: 'Alert growers an hour before a frost' }),
    );
    const after = await flag('frost-alerts');
    expect(after).toMatchObject({ description: 'Alert growers an hour before a frost', type: before.type, name: 'frost-alerts' });
  });

  it("the playground's evaluation for a user (a POST that only reads), run for ANOTHER user: that user's answers", async () => {
    // harvest-calendar is on in development for ben only (a strategy constrained to his user id).
    const dev = '/api/admin/projects/default/features/harvest-calendar/environments/development';
    await unleashApi(live.url, `${dev}/strategies`, {
      method: 'POST',
      body: JSON.stringify({ name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['ben'] }] }),
    });
    await unleashApi(live.url, `${dev}/on`, { method: 'POST' });
    const har = await live.record('playground', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/playground`);
      await page.locator('[role=combobox]:visible').filter({ hasNotText: 'development' }).last().click();
      await page.locator('[role=option]', { hasText: 'userId' }).click();
      await page.fill('#context-value', 'anna');
      await page.click('button:has-text("Add")');
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/admin/playground/advanced') && r.ok()),
        page.click('button:has-text("Try configuration")'),
      ]);
    });
    type Evaluated = { name: string; environments: { development: { isEnabled: boolean }[] } };
    const enabled = (result: unknown, name: string) => {
      const text = JSON.stringify(result);
      expect(text).toContain(name);
      const found: Evaluated[] = [];
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) return v.forEach(walk);
        if (!v || typeof v !== 'object') return;
        if ((v as Evaluated).name === name && (v as Evaluated).environments) found.push(v as Evaluated);
        Object.values(v).forEach(walk);
      };
      walk(result);
      return found[0]?.environments.development[0]?.isEnabled;
    };
    const { result } = await flow(
      'unl-playground',
      har,
      { hints: { arguments: { user: 'anna' }, secrets: { account: live.secret } } },
      bound({ user: 'ben' }),
    );
    // (For anna, in the recording, it was off: the answer is the run's user's.)
    expect(enabled(result, 'harvest-calendar')).toBe(true);
  });

  /** Creates a client API token through Admin settings → API access (its name field is `username`). */
  const createToken = async (page: Page, base: string, name: string) => {
    await page.goto(`${base}/admin/api/create-token`);
    await page.fill('input[name=username]', name);
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/admin/api-tokens') && r.request().method() === 'POST' && r.ok()),
      page.click('main button:has-text("Create token")'),
    ]);
  };
  const tokens = async () =>
    ((await unleashApi(live.url, '/api/admin/api-tokens')) as { tokens: { tokenName: string; secret: string }[] }).tokens;

  it("an API token created in the admin settings (its name in a field named `username`), run with a NEW name: the new token's secret", async () => {
    const har = await live.record('token', async (page, base) => {
      await signIn(page, base);
      await createToken(page, base, 'orchard-app');
    });
    const { result } = await flow('unl-token', har, hinted({ name: 'orchard-app' }), bound({ name: 'cellar-app' }));
    const made = (await tokens()).find((t) => t.tokenName === 'cellar-app');
    expect(made?.secret).toMatch(/^\*:development\./);
    expect(JSON.stringify(result)).toContain(made!.secret);
  });

  it('the same token form from a capture-style recording, sign-in typed by hand and nothing hinted', async () => {
    const har = await live.recordCaptured('token-captured', async (page, base) => {
      await signIn(page, base);
      await createToken(page, base, 'press-app');
    });
    // (The token's name is the task's argument, though its field is called `username`; the
    // sign-in's username is a secret slot's, never an argument.)
    await live.flowOne(har, { hints: { allow_side_effects: true } }, 'barrel-app');
    expect((await tokens()).map((t) => t.tokenName)).toContain('barrel-app');
  });

  it('a context field with two allowed values added one by one through the same box, from a capture-style recording, nothing hinted', async () => {
    const har = await live.recordCaptured('context-captured', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/context/create`);
      await page.getByLabel('Context name').fill('orchard-row');
      await page.getByLabel('Context description (optional)').fill('The row a picker works in');
      for (const v of ['north', 'south']) {
        await page.getByLabel('Legal value (optional)').fill(v);
        await page.click('button:has-text("Add")');
        await page.getByText(v, { exact: true }).waitFor();
      }
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/admin/context') && r.request().method() === 'POST' && r.ok()),
        page.click('button:has-text("Create context")'),
      ]);
    });
    const c = await synthesizeFrom(live.h, har, { hints: { allow_side_effects: true } });
    expect(c.status, c.text).toBe(200);
    const schema = c.json.input_schema;
    const byExample = (v: string) => Object.entries<any>(schema.properties).find(([, p]) => p.examples?.includes(v))?.[0];
    const args: Record<string, string> = {};
    for (const [recorded, now] of [
      ['orchard-row', 'cellar-rack'],
      ['The row a picker works in', 'The rack a barrel rests on'],
      ['north', 'upper'],
      ['south', 'lower'],
    ] as const) {
      const name = byExample(recorded);
      expect(name, `an argument for ${recorded}`).toBeTruthy();
      args[name!] = now;
    }
    expect(Object.keys(schema.properties)).toHaveLength(4);
    const out = await run(live.h, { connector_id: c.json.id, arguments: args, secret_bindings: { account: live.secret } });
    expect(out.status, JSON.stringify(out)).toBe('success');
    const made = (await unleashApi(live.url, '/api/admin/context/cellar-rack')) as {
      description: string;
      legalValues: { value: string }[];
    };
    expect(made.description).toBe('The rack a barrel rests on');
    expect(made.legalValues.map((v) => v.value)).toEqual(['upper', 'lower']);
  });

  it('a switch turned on with nothing typed and no hints (a plain recording): the same switch, turned on by the run', async () => {
    const har = await live.record('toggle-plain', async (page, base) => {
      await signIn(page, base);
      await Promise.all([
        page.waitForResponse((r) => /\/pear-pruning-tips\/environments\/development\/on/.test(r.url()) && r.ok()),
        page.locator('tr', { hasText: 'pear-pruning-tips' }).getByLabel('development').click(),
      ]);
    });
    // Switched off again by hand: the run must be what turns it on.
    await unleashApi(live.url, '/api/admin/projects/default/features/pear-pruning-tips/environments/development/off', { method: 'POST' });
    expect(enabledIn(await flag('pear-pruning-tips'), 'development')).toBe(false);
    await flow('unl-toggle-plain', har, { hints: { secrets: { account: live.secret }, allow_side_effects: true } }, bound({}));
    expect(enabledIn(await flag('pear-pruning-tips'), 'development')).toBe(true);
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
    expect(out.status, JSON.stringify(out)).toBe('success');
    expect(await flag('quince-staking')).toMatchObject({ description: 'Stake the young quince trees' });
  });

  it('a search typed in a capture-style recording, nothing hinted: the query is the argument, the hits the result', async () => {
    const har = await live.recordCaptured('search-captured', async (page, base) => {
      await signIn(page, base);
      await Promise.all([
        page.waitForResponse((r) => /\/api\/admin\/search\/features\?.*query=pear/.test(r.url()) && r.ok()),
        page.getByPlaceholder('Search and Filter (Ctrl+Shift+K)').pressSequentially('pear', { delay: 60 }),
      ]);
      await page.waitForSelector('text=pear-grafting-guide');
    });
    const { result } = await live.flowOne(har, {}, 'frost');
    const text = JSON.stringify(result);
    expect(text).toContain('frost-alerts');
    expect(text).not.toContain('pear-grafting-guide');
  });
});
