// Acceptance on a thirty-fourth real application we did not write: Node-RED 4.1 (npm `node-red`, a
// flow editor; a fresh copy of a seeded user directory per run). Each flow is recorded here and now
// in Chromium, then synthesized, replay-validated, published and RUN with NEW arguments; results
// are checked through Node-RED's admin API and the seeded flow's own HTTP endpoint. What Node-RED
// brings: a sign-in dialog whose fields have no names, posted as an OAuth password grant, whose JSON
// answer holds a base64 bearer token (`…=`) the page keeps and sends in `Authorization` on every
// call; a button that is a bare `POST /inject/<node id>` answered with a plain "OK"; and a deploy
// that sends the whole flow document back. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, NODERED_USER, noderedApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.nodered);
type Node = { id: string; type: string; name?: string; z?: string; payload?: string; wires?: unknown };

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Node-RED (%s)', (backend) => {
  const live = liveApp(APPS.nodered, backend, NODERED_USER.username, NODERED_USER.password);
  const { flow, bound } = live;
  const hinted = (args: Record<string, unknown>) => ({
    hints: { arguments: args, secrets: { account: live.secret }, allow_side_effects: true },
  });
  /** The log the seeded flow keeps of every inject it was given (its own HTTP endpoint). */
  const tasks = async (): Promise<{ topic: string; payload: unknown }[]> => (await fetch(`${live.url}/orchard/tasks`)).json();
  const nodes = async (): Promise<Node[]> =>
    (await noderedApi(live.url, '/flows', { headers: { 'node-red-api-version': 'v1' } })) as Node[];
  /** Signs in through the editor's dialog and waits for the workspace to show the Orchard tab. */
  const signIn = async (page: Page, base: string) => {
    await refuseOtherHosts(page, base);
    await page.goto(`${base}/`);
    await page.fill('#node-dialog-login-username', NODERED_USER.username);
    await page.fill('#node-dialog-login-password', NODERED_USER.password);
    await page.click('#node-dialog-login-submit');
    await page.waitForSelector('text=Water the orchard', { timeout: 30_000 });
  };
  /** Presses the button on the left of an inject node and waits for Node-RED's answer. */
  const press = async (page: Page, id: string) => {
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/inject/${id}`) && r.status() === 200),
      page.locator(`[id$="${id}"] .red-ui-flow-node-button`).first().click(),
    ]);
  };

  it("an inject node's button pressed after signing in, run on ANOTHER node: the site's answer returned", async () => {
    const har = await live.record('inject', async (page, base) => {
      await signIn(page, base);
      await press(page, 'inj_water');
    });
    expect(await tasks()).toEqual([{ topic: 'irrigation', payload: { litres: 40, rows: 'north' } }]);
    const { result, def } = await flow('nr-inject', har, hinted({ node: 'inj_water' }), bound({ node: 'inj_press' }));
    // (The bearer token comes from the run's own sign-in, never from the recording.)
    expect(JSON.stringify(def)).toContain('Bearer {{vars.access_token}}');
    expect(JSON.stringify(def)).not.toMatch(/Bearer [A-Za-z0-9+/]{20}/);
    expect(result).toMatchObject({ message: 'OK', status: 200 });
    expect((await tasks()).at(-1)).toEqual({ topic: 'cider', payload: 'Kingston Black' });
  });

  it('an inject pressed with nothing typed and no hints (a plain recording): the press is the connector', async () => {
    const har = await live.record('inject-plain', async (page, base) => {
      await signIn(page, base);
      await press(page, 'inj_pick');
    });
    const before = (await tasks()).length;
    const { result } = await flow(
      'nr-inject-plain',
      har,
      { hints: { secrets: { account: live.secret }, allow_side_effects: true } },
      bound({}),
    );
    expect(result).toMatchObject({ message: 'OK', status: 200 });
    const now = await tasks();
    expect(now).toHaveLength(before + 2); // the validation replay's press and the run's
    expect(now.at(-1)).toEqual({ topic: 'harvest', payload: 'Bramley' });
  });

  it('recorded as a capture session records it, sign-in typed by hand and nothing hinted: the press, with its own sign-in', async () => {
    const har = await live.recordCaptured('inject-captured', async (page, base) => {
      await signIn(page, base);
      await press(page, 'inj_prune');
    });
    const before = (await tasks()).length;
    const { result, def } = await flow('nr-inject-captured', har, { hints: { allow_side_effects: true } }, bound({}));
    expect(result).toMatchObject({ message: 'OK', status: 200 });
    // (The typed password is a secret slot of the connector, never a value in it.)
    expect(JSON.stringify(def)).not.toContain(NODERED_USER.password);
    expect(def.login.slot).toBe('account');
    const now = await tasks();
    expect(now).toHaveLength(before + 2); // the validation replay's press and the run's
    expect(now.at(-1)).toEqual({ topic: 'pruning', payload: 'Conference' });
  });

  it('a node renamed in its edit dialog and deployed (the whole flow document sent back), run on ANOTHER node', async () => {
    const har = await live.record('rename', async (page, base) => {
      await signIn(page, base);
      await page.locator('text=Pick apples').dblclick({ force: true });
      await page.waitForSelector('#node-input-name');
      await page.fill('#node-input-name', 'Pick pears');
      await page.click('#node-dialog-ok');
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/flows') && r.request().method() === 'POST' && r.status() === 200),
        page.click('#red-ui-header-button-deploy'),
      ]);
    });
    const seeded = await nodes();
    expect(seeded.find((n) => n.id === 'inj_pick')?.name).toBe('Pick pears');
    await flow('nr-rename', har, hinted({ node: 'inj_pick', name: 'Pick pears' }), bound({ node: 'inj_prune', name: 'Prune the plums' }));
    const after = await nodes();
    expect(after.find((n) => n.id === 'inj_prune')).toMatchObject({ name: 'Prune the plums', payload: 'Conference' });
    // Every other node as it was, nothing lost. (The recorded node is the validation replay's: its
    // name with a fresh suffix, so that a replay never meets what its recording made.)
    expect(after.find((n) => n.id === 'inj_pick')?.name).toMatch(/^Pick pears \w{4}$/);
    expect(after.map((n) => n.id).sort()).toEqual(seeded.map((n) => n.id).sort());
    for (const n of seeded.filter((n) => n.id !== 'inj_prune' && n.id !== 'inj_pick'))
      expect(
        after.find((a) => a.id === n.id),
        n.id,
      ).toEqual(n);
    // Deployed: pressing the renamed node runs it.
    await noderedApi(live.url, '/inject/inj_prune', { method: 'POST' });
    expect((await tasks()).at(-1)).toEqual({ topic: 'pruning', payload: 'Conference' });
  });
});
