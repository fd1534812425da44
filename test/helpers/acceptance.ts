// The acceptance suites' two moves on a real application: record a flow as a user does (Playwright
// recordHar in Chromium), and synthesize a HAR into a connector that is then run with new
// arguments, keeping the figures (synthesis and run time, engine) the suite prints at the end.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { openChromium } from '../../src/browser/chromium.js';
import { ACTION_SCRIPT, RECORD_BINDING } from '../../src/browser/recording/action-script.js';
import { SessionRecorder } from '../../src/browser/recording/recorder.js';
import { type Backend, type Harness, startHarness } from './harness.js';
import { type RealApp, serveApp } from './real-apps.js';
import { loginSecret } from './runs.js';
import { run } from './runs.js';
import { synthesizeFrom } from './synth.js';

export interface Figure {
  flow: string;
  synthMs: number;
  runMs: number;
  engine: string;
}

/** Records `flow` in a fresh browser context into `dir`; the HAR's text. */
export async function recordLive(
  browser: Browser,
  dir: string,
  name: string,
  base: string,
  flow: (page: Page, base: string) => Promise<void>,
  context: BrowserContextOptions = {},
): Promise<string> {
  const file = path.join(dir, `${name}.har`);
  // (Service workers blocked, as a capture session blocks them: LAM's PWA worker would answer the
  // page's navigations itself, and the HAR would hold its replies at the wrong requests.)
  const ctx = await browser.newContext({ serviceWorkers: 'block', ...context, recordHar: { path: file, content: 'embed' } });
  // A response whose body has not arrived when the context closes is in the HAR without it (a
  // save's answer, the last XHR): the recording ends once the requests open when the flow ended
  // have finished (not later ones: an app polling its server would keep it open).
  const open = new Set<unknown>();
  ctx.on('request', (r) => open.add(r));
  ctx.on('requestfinished', (r) => open.delete(r));
  ctx.on('requestfailed', (r) => open.delete(r));
  try {
    const page = await ctx.newPage();
    await flow(page, base);
    // (A document that just loaded may not be in the HAR yet when the context closes. An app that
    // long-polls its server — Syncthing's event stream — is never idle: a few seconds then.)
    await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => undefined);
    const pending = [...open];
    for (const until = Date.now() + 5000; pending.some((r) => open.has(r)) && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 50));
  } finally {
    await ctx.close();
  }
  // ACCEPTANCE_HAR_DIR=<dir> keeps every recording there, to look into a flow that failed.
  if (process.env.ACCEPTANCE_HAR_DIR) fs.copyFileSync(file, path.join(keptIn(process.env.ACCEPTANCE_HAR_DIR), `${name}.har`));
  return fs.readFileSync(file, 'utf8');
}

/** Answers the page's file chooser (opened by `open`) with `files`, as the live view does for a person. */
export type ChooseFiles = (
  page: Page,
  open: () => Promise<unknown>,
  files: { name: string; mimeType: string; buffer: Buffer }[],
) => Promise<void>;

/**
 * Records `flow` as a capture session records it (the service's own recorder over CDP: form parts
 * without a file's content, files chosen through the chooser as an `upload` action) into `dir`;
 * the HAR's text. The flow's `choose` answers a file chooser the way the live view does.
 */
export async function recordCaptured(
  browser: Browser,
  dir: string,
  name: string,
  base: string,
  flow: (page: Page, base: string, choose: ChooseFiles) => Promise<void>,
): Promise<string> {
  const spoolDir = fs.mkdtempSync(path.join(dir, `${name}-`));
  const recorder = new SessionRecorder({
    sessionId: name,
    spoolDir,
    maxBodyBytes: 2 << 20,
    browserVersion: browser.version(),
    extension: {} as never,
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  recorder.watchContext(ctx);
  // The page's actions (typed values, clicks, a form's submitted fields), as the pool reports them.
  await ctx.exposeBinding(RECORD_BINDING, (src, json: string) => recorder.pageAction(src.page, String(json)));
  await ctx.addInitScript(ACTION_SCRIPT);

  const choose: ChooseFiles = async (page, open, files) => {
    const [fc] = await Promise.all([page.waitForEvent('filechooser'), open()]);
    await fc.setFiles(files);
    recorder.upload(
      page,
      files.map((f) => ({ name: f.name, type: f.mimeType, data: f.buffer })),
    );
  };
  try {
    const page = await ctx.newPage();
    await recorder.attachPage(page, null);
    ctx.on('page', (p) => void recorder.attachPage(p, page).catch(() => {}));
    await flow(page, base, choose);
    await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => undefined);
    await recorder.stop();
    const har = JSON.stringify(await recorder.finalize('acceptance'));
    if (process.env.ACCEPTANCE_HAR_DIR) fs.writeFileSync(path.join(keptIn(process.env.ACCEPTANCE_HAR_DIR), `${name}.har`), har);
    return har;
  } finally {
    await ctx.close();
  }
}

/** Refuses every request of the page's context to a host other than the app's (an admin's web
 * fonts, news feeds, update checks: Chromium waits ~5 s for each external DNS lookup here). */
export async function refuseOtherHosts(page: Page, base: string): Promise<void> {
  const host = new URL(base).host;
  await page.context().route(
    (u) => u.host !== host,
    (r) => r.abort(),
  );
}

/** Clicks `what` and waits until the page it opens has loaded (a form's submit, a link). */
export async function clickThrough(page: Page, what: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(what)]);
  await page.waitForLoadState('load');
}

/** A sign-in form: its page (a path on the app), its user and password boxes and its submit button. */
export interface SignInForm {
  path: string;
  user: string;
  password: string;
  submit: string;
}

/** Synthesizes `har` (200 expected), runs the connector with `runBody` (success expected). */
export async function synthesizeAndRun(
  h: Harness,
  figures: Figure[],
  name: string,
  har: string,
  body: Record<string, unknown>,
  runBody: Record<string, unknown>,
): Promise<{ result: any; def: any }> {
  let t = Date.now();
  const r = await synthesizeFrom(h, har, body);
  const synthMs = Date.now() - t;
  expect(r.status, r.text).toBe(200);
  const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
  t = Date.now();
  const out = await run(h, { connector_id: r.json.id, ...runBody });
  figures.push({ flow: name, synthMs, runMs: Date.now() - t, engine: def.engine });
  // ACCEPTANCE_RESULT_DIR=<dir> keeps each flow's definition and run there, to read what synthesis made.
  if (process.env.ACCEPTANCE_RESULT_DIR)
    fs.writeFileSync(
      path.join(keptIn(process.env.ACCEPTANCE_RESULT_DIR), `${name}.json`),
      JSON.stringify({ definition: def, run: out }, null, 1),
    );
  expect(out.status, JSON.stringify(out.error)).toBe('success');
  return { result: out.result, def };
}

/**
 * A capture-style recording published with nothing hinted but `body`: exactly one argument is
 * expected, whatever synthesis called it, and the connector runs with `value` (success expected).
 */
export async function synthesizeAndRunOne(
  h: Harness,
  har: string,
  body: Record<string, unknown>,
  value: unknown,
  account: string,
): Promise<{ connector: any; def: any; result: any; argument: string }> {
  const c = await synthesizeFrom(h, har, body);
  expect(c.status, c.text).toBe(200);
  const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
  const props = Object.keys(c.json.input_schema.properties);
  expect(props).toHaveLength(1);
  const out = await run(h, { connector_id: c.json.id, arguments: { [props[0]!]: value }, secret_bindings: { account } });
  expect(out.status, JSON.stringify(out)).toBe('success');
  return { connector: c.json, def, result: out.result, argument: props[0]! };
}

/**
 * A suite on a live app whose flows are recorded during the test: starts the app, a harness, a
 * browser and the app's login secret before the suite, stops them after, and prints the figures.
 * Its fields are set once `beforeAll` ran.
 */
export function liveApp(app: RealApp, backend: Backend, user: string, password: string, context: BrowserContextOptions = {}) {
  const figures: Figure[] = [];
  let served: Awaited<ReturnType<typeof serveApp>> | undefined;
  let browser: Browser | undefined;
  const live = {
    h: undefined as unknown as Harness,
    url: '',
    secret: '',
    record: (name: string, flow: (page: Page, base: string) => Promise<void>) =>
      recordLive(browser!, live.h.dataDir, `${app.name}-${name}`, live.url, flow, context),
    /** Recorded after signing in through `form` with the app's login (refusing other hosts). */
    recordSignedIn: (name: string, form: SignInForm, flow: (page: Page, base: string) => Promise<void>) =>
      live.record(name, async (page, base) => {
        await refuseOtherHosts(page, base);
        await page.goto(`${base}${form.path}`);
        await page.fill(form.user, user);
        await page.fill(form.password, password);
        await clickThrough(page, form.submit);
        await flow(page, base);
      }),
    /** Recorded as a capture session records it (see recordCaptured): for flows that choose a file. */
    recordCaptured: (name: string, flow: (page: Page, base: string, choose: ChooseFiles) => Promise<void>) =>
      recordCaptured(browser!, live.h.dataDir, `${app.name}-${name}`, live.url, flow),
    flow: (name: string, har: string, body: Record<string, unknown>, runBody: Record<string, unknown>) =>
      synthesizeAndRun(live.h, figures, name, har, body, runBody),
    /** A synthesis body: these arguments hinted, the app's login as the `account` slot, and `more` hints. */
    hinted: (args: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
      hints: { arguments: args, secrets: { account: live.secret }, ...more },
    }),
    /** A run body: these arguments, the app's login bound to the `account` slot. */
    bound: (args: Record<string, unknown>) => ({ arguments: args, secret_bindings: { account: live.secret } }),
    /** synthesizeAndRunOne with the app's login secret bound. */
    flowOne: (har: string, body: Record<string, unknown>, value: unknown) => synthesizeAndRunOne(live.h, har, body, value, live.secret),
  };
  beforeAll(
    async () => {
      served = await serveApp(app);
      live.url = served.url;
      live.h = await startHarness(backend);
      browser = await openChromium();
      live.secret = await loginSecret(live.h, user, password);
    },
    60_000 + (app.bootMs ?? 0),
  );
  afterAll(async () => {
    await browser?.close();
    await live.h?.close();
    await served?.close();
    if (figures.length) console.log(`[acceptance] ${app.name} figures`, JSON.stringify(figures));
  });
  return live;
}

/**
 * The field of a list's records whose values are exactly `want`, in order unless `anyOrder` (a run checked against
 * the application's own list, whatever synthesis named the field); fails naming the fields there are.
 */
export function fieldHolding(items: Record<string, unknown>[], want: string[], anyOrder = false): string {
  const keys = Object.keys(items[0] ?? {});
  const ordered = (v: string[]) => (anyOrder ? [...v].sort() : v);
  const key = keys.find((k) => JSON.stringify(ordered(items.map((i) => String(i[k] ?? '').trim()))) === JSON.stringify(ordered(want)));
  expect(key, `a field holding ${JSON.stringify(want.slice(0, 3))}… in ${JSON.stringify(items.slice(0, 2))}`).toBeDefined();
  return key!;
}

/** A directory to keep recordings or results in (ACCEPTANCE_HAR_DIR, ACCEPTANCE_RESULT_DIR), made when missing. */
function keptIn(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
