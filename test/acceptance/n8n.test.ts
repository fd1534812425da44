// Acceptance on a thirty-sixth real application we did not write: n8n 1.123 (npm `n8n`, a
// workflow-automation tool; a fresh copy of a seeded user folder per run). Each flow is recorded
// here and now in Chromium, then synthesized, replay-validated, published and RUN with NEW
// arguments; results are checked through n8n's REST API. What n8n brings: a Vue (Element Plus)
// editor whose fields have generated names, a JSON sign-in whose session cookie is bound to a
// `browser-id` header the page sends on every call, a workflow list whose search is a JSON
// `filter` inside the query string, and workflows written back with the version the page holds (a
// switch is a `PATCH` of `{versionId, active}`). Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, N8N_OWNER, n8nApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.n8n);
type Workflow = { id: string; name: string; active: boolean; versionId: string; isArchived?: boolean; tags?: { name: string }[] };

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on n8n (%s)', (backend) => {
  const live = liveApp(APPS.n8n, backend, N8N_OWNER.email, N8N_OWNER.password);
  const { flow, bound } = live;
  const hinted = (args: Record<string, unknown>) => ({
    hints: { arguments: args, secrets: { account: live.secret }, allow_side_effects: true },
  });
  const workflows = async (): Promise<Workflow[]> => n8nApi(live.url, 'GET', '/rest/workflows?filter=%7B%7D');
  const workflow = async (name: string): Promise<Workflow | undefined> => (await workflows()).find((w) => w.name === name);

  /** Signs in through the sign-in page and waits for the workflow list. */
  const signIn = async (page: Page, base: string) => {
    await refuseOtherHosts(page, base);
    await page.goto(`${base}/signin`);
    await page.fill('input[name=emailOrLdapLoginId]', N8N_OWNER.email);
    await page.fill('input[name=password]', N8N_OWNER.password);
    await Promise.all([page.waitForURL(/\/home\/workflows/), page.click('button:has-text("Sign in")')]);
    await page.waitForSelector('text=Frost alerts', { timeout: 30_000 });
  };
  /** Types a workflow's new name into the editor's inline name field (Enter saves it). */
  const typeName = async (page: Page, name: string) => {
    await page.locator('[data-test-id="inline-edit-preview"]').first().click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type(name);
    await page.keyboard.press('Enter');
  };

  it("the workflow list's search box, run with ANOTHER query: the workflows that match it, and only those", async () => {
    const har = await live.record('search', async (page, base) => {
      await signIn(page, base);
      await Promise.all([
        page.waitForResponse((r) => /\/rest\/workflows\?.*pear/.test(r.url()) && r.ok()),
        page.locator('[data-test-id="resources-list-search"]').fill('pear'),
      ]);
      await page.waitForTimeout(500);
    });
    const { result } = await flow('n8n-search', har, hinted({ query: 'pear' }), bound({ query: 'frost' }));
    const text = JSON.stringify(result);
    expect(text).toContain('Frost alerts');
    expect(text).not.toContain('Pear grafting guide');
    expect(text).not.toContain('Orchard irrigation');
  });

  it('a workflow created in the editor (named inline, Enter saves it), run with a NEW name: the new workflow exists', async () => {
    const har = await live.record('create', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/workflow/new`);
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/rest/workflows') && r.request().method() === 'POST' && r.ok()),
        typeName(page, 'Apple thinning'),
      ]);
      await page.waitForURL(/\/workflow\/[A-Za-z0-9]{8,}/);
    });
    expect(await workflow('Apple thinning')).toBeDefined();
    const name = 'Plum "netting" \\ rota';
    const { result } = await flow('n8n-create', har, hinted({ name: 'Apple thinning' }), bound({ name }));
    expect(JSON.stringify(result)).toContain('netting');
    expect(await workflow(name)).toMatchObject({ name, active: false });
  });

  it("a workflow's switch turned on in the list, run on ANOTHER workflow: that one is active, the first untouched by the run", async () => {
    const har = await live.record('activate', async (page, base) => {
      await signIn(page, base);
      await Promise.all([
        page.waitForResponse((r) => /\/rest\/workflows\/\w+$/.test(r.url()) && r.request().method() === 'PATCH' && r.ok()),
        page.locator('[data-test-id="resources-list-item-workflow"]', { hasText: 'Frost alerts' }).locator('.el-switch').click(),
      ]);
    });
    expect((await workflow('Frost alerts'))?.active).toBe(true);
    expect((await workflow('Harvest calendar'))?.active).toBe(false);
    await flow('n8n-activate', har, hinted({ workflow: 'Frost alerts' }), bound({ workflow: 'Harvest calendar' }));
    expect((await workflow('Harvest calendar'))?.active).toBe(true);
    expect((await workflow('Packing shed rota'))?.active).toBe(false);
  });

  it('a workflow renamed in the editor, run on ANOTHER workflow with a NEW name: that one renamed, its version moved on', async () => {
    const before = await workflow('Orchard irrigation');
    const har = await live.record('rename', async (page, base) => {
      await signIn(page, base);
      const id = (await workflow('Pear grafting guide'))!.id;
      await page.goto(`${base}/workflow/${id}`);
      await page.waitForSelector('text=Send the guide', { timeout: 30_000 });
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/rest/workflows/${id}`) && r.request().method() === 'PATCH' && r.ok()),
        typeName(page, 'Pear grafting handbook'),
      ]);
    });
    expect(await workflow('Pear grafting handbook')).toBeDefined();
    await flow(
      'n8n-rename',
      har,
      hinted({ workflow: 'Pear grafting guide', name: 'Pear grafting handbook' }),
      bound({ workflow: 'Orchard irrigation', name: 'Orchard irrigation plan' }),
    );
    const after = (await workflows()).find((w) => w.id === before!.id);
    expect(after).toMatchObject({ name: 'Orchard irrigation plan' });
    expect(after!.versionId).not.toBe(before!.versionId);
  });

  it("a workflow archived from the list's card menu, run on ANOTHER workflow: that one archived, the rest kept", async () => {
    const har = await live.record('archive', async (page, base) => {
      await signIn(page, base);
      const card = page.locator('[data-test-id="resources-list-item-workflow"]', { hasText: 'Packing shed rota' });
      await card.locator('[data-test-id="workflow-card-actions"]').click();
      await Promise.all([
        page.waitForResponse((r) => /\/archive$/.test(r.url()) && r.request().method() === 'POST' && r.ok()),
        page.locator('[data-test-id="action-archive"]:visible').click(),
      ]);
    });
    expect((await workflow('Packing shed rota'))?.isArchived).toBe(true);
    await flow('n8n-archive', har, hinted({ workflow: 'Packing shed rota' }), bound({ workflow: 'Cider press checks' }));
    expect((await workflow('Cider press checks'))?.isArchived).toBe(true);
    expect((await workflow('Bee hive visits'))?.isArchived).toBe(false);
  });

  it("the owner's first and last name changed in personal settings, run with NEW names: the account carries them", async () => {
    const har = await live.record('me', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/settings/personal`);
      await page.fill('input[name=firstName]', 'Rowan');
      await page.fill('input[name=lastName]', 'Ashdown');
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/rest/me') && r.request().method() === 'PATCH' && r.ok()),
        page.click('button:has-text("Save")'),
      ]);
    });
    await flow('n8n-me', har, hinted({ first: 'Rowan', last: 'Ashdown' }), bound({ first: "Marta O'Neill", last: 'Birch-Vale' }));
    const me = await n8nApi(live.url, 'GET', '/rest/login');
    expect(me).toMatchObject({ firstName: "Marta O'Neill", lastName: 'Birch-Vale', email: N8N_OWNER.email });
  });

  it('a search typed in a capture-style recording (sign-in typed by hand), nothing hinted: the query is the argument, the hits the result', async () => {
    const har = await live.recordCaptured('search-captured', async (page, base) => {
      await signIn(page, base);
      await Promise.all([
        page.waitForResponse((r) => /\/rest\/workflows\?.*harvest/.test(r.url()) && r.ok()),
        page.locator('[data-test-id="resources-list-search"]').pressSequentially('harvest', { delay: 60 }),
      ]);
      await page.waitForTimeout(500);
    });
    const { def, result, argument } = await live.flowOne(har, {}, 'irrigation');
    expect(JSON.stringify(def)).not.toContain(N8N_OWNER.password);
    expect(def.login.slot).toBe('account');
    // (The box's name is generated per page load, `input-jsb3ul2nd`: no name to give the argument.)
    expect(argument).not.toMatch(/\d/);
    const text = JSON.stringify(result);
    expect(text).toContain('Orchard irrigation');
    expect(text).not.toContain('Harvest calendar');
  });

  it('a workflow created in a capture-style recording, nothing hinted: a new workflow under the name the run gives', async () => {
    const har = await live.recordCaptured('create-captured', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/workflow/new`);
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/rest/workflows') && r.request().method() === 'POST' && r.ok()),
        typeName(page, 'Cherry netting'),
      ]);
      await page.waitForURL(/\/workflow\/[A-Za-z0-9]{8,}/);
    });
    await live.flowOne(har, { hints: { allow_side_effects: true } }, 'Quince staking');
    expect(await workflow('Quince staking')).toMatchObject({ active: false });
  });
});
