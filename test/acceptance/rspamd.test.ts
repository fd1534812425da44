// Acceptance on a thirty-seventh real application we did not write: Rspamd 3.4 (Debian's rspamd,
// a spam filter; its controller serves the web UI, with a private Redis per run). Each flow is
// recorded here and now in Chromium, then synthesized, replay-validated, published and RUN with
// NEW arguments; results are checked through Rspamd's own controller API. What Rspamd brings: a
// jQuery single-page app whose sign-in is a password only, kept in the page's session storage and
// sent as a `Password` header with every call; a message to scan or learn posted raw — an email's
// text — under jQuery's form content type; thresholds saved as a JSON array by position; a list
// (a map file) read and written whole, named by a `Map` header. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { run } from '../helpers/runs.js';
import { synthesizeFrom } from '../helpers/synth.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, RSPAMD_PASSWORD, rspamdApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.rspamd);

/** An email as a person pastes it into the scan box. */
const email = (from: string, subject: string, body: string) =>
  `From: ${from}\nTo: grower@orchard.example\nSubject: ${subject}\nMessage-ID: <${subject.replace(/\W+/g, '.')}@${from.split('@')[1]}>\n\n${body}\n`;
const PEST = email(
  'pest@aphid.example',
  'Fire blight warning',
  'Your pear trees are at risk this spring. Cut every infected shoot well below the canker and burn the prunings.',
);
const GROWER = email(
  'warden@cider.example',
  'Codling moth traps',
  'The traps in the north rows caught forty moths this week, so the first spray is due before the petals fall.',
);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Rspamd (%s)', (backend) => {
  // (Rspamd's controller has a password and no user name; the login's username is never sent.)
  const live = liveApp(APPS.rspamd, backend, 'admin', RSPAMD_PASSWORD);
  const { flow, bound } = live;
  const hinted = (args: Record<string, unknown>) => ({
    hints: { arguments: args, secrets: { account: live.secret }, allow_side_effects: true },
  });
  const api = (method: string, path: string, body?: string, headers?: Record<string, string>) =>
    rspamdApi(live.url, method, path, body, headers);

  /** Types the password into the connect dialog and waits for the status page. */
  const signIn = async (page: Page, base: string) => {
    await refuseOtherHosts(page, base);
    await page.goto(base);
    await page.fill('#connectPassword', RSPAMD_PASSWORD);
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/stat') && r.ok()), page.click('#connectButton')]);
    await page.waitForSelector('#mainUI', { state: 'visible' });
  };
  /** Pastes a message into the scan tab's box. */
  const paste = async (page: Page, message: string) => {
    await page.click('#scan_nav');
    await page.fill('#scanMsgSource', message);
  };
  const scanned = (page: Page) => page.waitForResponse((r) => r.url().endsWith('/checkv2') && r.ok());

  it('a message pasted and scanned, run with ANOTHER message: the symbols that message hits, and only those', async () => {
    const har = await live.record('scan', async (page, base) => {
      await signIn(page, base);
      await paste(page, PEST);
      await Promise.all([scanned(page), page.click('button[data-upload="scan"]')]);
    });
    const { result } = await flow('rspamd-scan', har, hinted({ message: PEST }), bound({ message: GROWER }));
    const text = JSON.stringify(result);
    expect(text).toContain('ORCHARD_SUBJECT_WORD');
    expect(text).toContain('Codling moth traps');
    expect(text).not.toContain('ORCHARD_BLOCKED_SENDER');
    expect(text).not.toContain('Fire blight');
  });

  it("a scan whose argument is the message's subject alone, run with ANOTHER subject: the recorded message sent under it", async () => {
    const har = await live.record('scan-subject', async (page, base) => {
      await signIn(page, base);
      await paste(page, PEST);
      await Promise.all([scanned(page), page.click('button[data-upload="scan"]')]);
    });
    const { result } = await flow(
      'rspamd-scan-subject',
      har,
      hinted({ subject: 'Fire blight warning' }),
      bound({ subject: 'Pear & "quince" notes' }),
    );
    const text = JSON.stringify(result);
    // (The sender is still the blocked one; no subject word of the list is in the new subject.)
    expect(text).toContain('ORCHARD_BLOCKED_SENDER');
    expect(text).not.toContain('ORCHARD_SUBJECT_WORD');
  });

  it('a message learned as spam, run with ANOTHER message: Rspamd learned one more', async () => {
    const har = await live.record('learn', async (page, base) => {
      await signIn(page, base);
      await paste(page, PEST);
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/learnspam') && r.ok()), page.click('button[data-upload="spam"]')]);
    });
    const before = (await api('GET', '/stat')).learned as number;
    expect(before).toBeGreaterThanOrEqual(1);
    await flow('rspamd-learn', har, hinted({ message: PEST }), bound({ message: GROWER }));
    expect((await api('GET', '/stat')).learned).toBeGreaterThan(before);
    // (Learned once: learning the same message again is answered "already learned" (208).)
    expect(JSON.stringify(await api('POST', '/learnspam', GROWER))).toMatch(/already learned/);
  });

  it("the reject threshold changed in the configuration tab, run with ANOTHER threshold: Rspamd's actions carry it", async () => {
    const har = await live.record('actions', async (page, base) => {
      await signIn(page, base);
      await page.click('#configuration_nav');
      const reject = page.locator('#actionsForm input[data-id="action"]').nth(3);
      await reject.fill('17.5');
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/saveactions') && r.ok()), page.click('#saveActionsBtn')]);
    });
    const threshold = async (name: string) =>
      ((await api('GET', '/actions')) as { action: string; value: number }[]).find((a) => a.action === name)?.value;
    expect(await threshold('reject')).toBe(17.5);
    await flow('rspamd-actions', har, hinted({ reject: 17.5 }), bound({ reject: 22 }));
    expect(await threshold('reject')).toBe(22);
    expect(await threshold('add header')).toBe(6);
  });

  it('a sender added to the blocked-senders list, run with ANOTHER sender: the list holds it and a scan hits it', async () => {
    const list = async () => {
      const maps = (await api('GET', '/maps')) as { map: number; uri: string }[];
      const id = maps.find((m) => m.uri.endsWith('/blocked_senders.map'))!.map;
      return String(await api('GET', '/getmap', undefined, { Map: String(id) }));
    };
    const har = await live.record('map', async (page, base) => {
      await signIn(page, base);
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/maps') && r.ok()), page.click('#configuration_nav')]);
      // (The plain editor, a textarea: the highlighting one re-renders as it is typed into.)
      await page.locator('#btnGroupEditor label', { hasText: 'Basic' }).click();
      await page.locator('.map-link', { hasText: 'blocked_senders' }).click();
      const editor = page.locator('textarea#editor');
      await editor.waitFor();
      await expect.poll(() => editor.inputValue()).toContain('pest@aphid.example');
      await editor.click();
      await page.keyboard.press('Control+End');
      // (Pasted in one go: the page's timer reloads the configuration tab now and then, and with it
      // the editor, which would lose what a slow typist had typed by then.)
      await page.keyboard.insertText('\nslug@snail.example');
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/savemap') && r.ok()), page.click('#modalSave')]);
    });
    expect(await list()).toContain('slug@snail.example');
    await flow('rspamd-map', har, hinted({ sender: 'slug@snail.example' }), bound({ sender: 'warden@cider.example' }));
    const after = await list();
    expect(after).toContain('warden@cider.example');
    expect(after).toContain('pest@aphid.example');
    // (Rspamd reads the list again at once: the new sender's mail is hit.)
    await expect
      .poll(async () => JSON.stringify(await api('POST', '/checkv2', GROWER)), { timeout: 10_000 })
      .toContain('ORCHARD_BLOCKED_SENDER');
  });

  it('a selector checked against a pasted message, run with ANOTHER selector and message: what that selector picks from it', async () => {
    const har = await live.record('selector', async (page, base) => {
      await signIn(page, base);
      await page.click('#selectors_nav');
      await page.fill('#selectorsMsgArea', PEST);
      await Promise.all([
        page.waitForResponse((r) => r.url().includes('/check_selector') && r.ok()),
        page.fill('#selectorsSelArea', "header('Subject')"),
      ]);
      await page.waitForSelector('#selectorsChkMsgBtn:enabled');
      await Promise.all([page.waitForResponse((r) => r.url().includes('/check_message') && r.ok()), page.click('#selectorsChkMsgBtn')]);
      await expect.poll(() => page.inputValue('#selectorsResArea')).toContain('Fire blight warning');
    });
    const { result } = await flow(
      'rspamd-selector',
      har,
      hinted({ selector: "header('Subject')", message: PEST }),
      bound({ selector: "header('From')", message: GROWER }),
    );
    const text = JSON.stringify(result);
    expect(text).toContain('warden@cider.example');
    expect(text).not.toContain('Codling moth traps');
  });

  it('a selector typed and a message pasted in a capture-style recording, nothing hinted: both are arguments', async () => {
    const har = await live.recordCaptured('selector-captured', async (page, base) => {
      await signIn(page, base);
      await page.click('#selectors_nav');
      await page.fill('#selectorsMsgArea', GROWER);
      // (Checked as it is typed: a GET of each prefix of the selector, most of them refused.)
      await page.locator('#selectorsSelArea').pressSequentially("header('Subject')", { delay: 40 });
      await page.waitForSelector('#selectorsChkMsgBtn:enabled');
      await Promise.all([page.waitForResponse((r) => r.url().includes('/check_message') && r.ok()), page.click('#selectorsChkMsgBtn')]);
    });
    const c = await synthesizeFrom(live.h, har, {});
    expect(c.status, c.text).toBe(200);
    const props = c.json.input_schema.properties as Record<string, { examples?: unknown[] }>;
    const named = (v: string) => Object.keys(props).find((k) => props[k]!.examples?.[0] === v);
    const selector = named("header('Subject')");
    const message = Object.keys(props).find((k) => String(props[k]!.examples?.[0]).startsWith('From: warden@cider.example'));
    expect([selector, message].every(Boolean), JSON.stringify(props)).toBe(true);
    expect(Object.keys(props)).toHaveLength(2);
    const out = await run(live.h, {
      connector_id: c.json.id,
      arguments: { [selector!]: "header('From')", [message!]: PEST },
      secret_bindings: { account: live.secret },
    });
    expect(out.status, JSON.stringify(out)).toBe('success');
    expect(JSON.stringify(out.result)).toContain('pest@aphid.example');
  });

  it("the History tab's recent scans, recorded plainly (nothing typed): the run lists the scans made since", async () => {
    await api('POST', '/checkv2', PEST);
    const har = await live.record('history', async (page, base) => {
      await signIn(page, base);
      await Promise.all([page.waitForResponse((r) => /\/history(\?|$)/.test(r.url()) && r.ok()), page.click('#history_nav')]);
      await page.waitForSelector('#historyTable_history tbody tr');
    });
    const late = email(
      'moth@codling.example',
      'Quince rust sighting',
      'Orange spots on the quince leaves along the east hedge this morning.',
    );
    await api('POST', '/checkv2', late);
    const { result } = await flow('rspamd-history', har, { hints: { secrets: { account: live.secret } } }, bound({}));
    const text = JSON.stringify(result);
    expect(text).toContain('Quince rust sighting');
    expect(text).toContain('Fire blight warning');
  });

  it('the reject threshold typed in a capture-style recording, nothing hinted: the threshold is the argument', async () => {
    const har = await live.recordCaptured('actions-captured', async (page, base) => {
      await signIn(page, base);
      await page.click('#configuration_nav');
      const reject = page.locator('#actionsForm input[data-id="action"]').nth(3);
      await reject.click();
      await reject.press('Control+a');
      await reject.pressSequentially('19', { delay: 60 });
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/saveactions') && r.ok()), page.click('#saveActionsBtn')]);
    });
    await live.flowOne(har, { hints: { allow_side_effects: true } }, 24);
    const actions = (await api('GET', '/actions')) as { action: string; value: number }[];
    expect(actions.find((a) => a.action === 'reject')?.value).toBe(24);
  });

  it('a message scanned in a capture-style recording (password typed by hand), nothing hinted: the message is the argument', async () => {
    const har = await live.recordCaptured('scan-captured', async (page, base) => {
      await signIn(page, base);
      await paste(page, GROWER);
      await Promise.all([scanned(page), page.click('button[data-upload="scan"]')]);
    });
    const { def, result } = await live.flowOne(har, {}, PEST);
    expect(JSON.stringify(def)).not.toContain(RSPAMD_PASSWORD);
    const text = JSON.stringify(result);
    expect(text).toContain('ORCHARD_BLOCKED_SENDER');
    expect(text).toContain('Fire blight warning');
  });
});
