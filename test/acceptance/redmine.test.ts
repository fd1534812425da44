// Acceptance on a sixth real application we did not write: Redmine (Debian package; Rails, served
// with rackup/WEBrick; installed and seeded by scripts/acceptance-setup.sh). As for Fossil, each
// flow is recorded here and now with Playwright's recordHar in Chromium, then uploaded,
// synthesized, replay-validated, published and RUN with NEW arguments; results are checked against
// Redmine's own REST API. What Redmine brings: menus in plain <div>s (no <nav>), an attribute grid
// of label/value <div>s with empty values, Rails' CSRF token in a <meta> tag and the form, a
// multipart create form with an empty file input, an issue list over several pages, and search hits in
// a <dl>.
// Opt-in: ACCEPTANCE=1.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled } from '../helpers/real-apps.js';
import { liveApp } from '../helpers/acceptance.js';
import { run } from '../helpers/runs.js';
import { synthesizeFrom, uploadBytes } from '../helpers/synth.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.redmine);
const PASSWORD = 'rm-admin-pass-1';

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Redmine (%s)', (backend) => {
  const live = liveApp(APPS.redmine, backend, 'admin', PASSWORD);
  const { record, flow } = live;
  type Issue = {
    id: number;
    subject: string;
    description: string;
    status: { name: string };
    priority: { name: string };
    tracker: { name: string };
  };
  /** The project's issues, newest first, from Redmine's REST API (every page: each run adds two). */
  const issues = async (): Promise<Issue[]> => {
    const out: Issue[] = [];
    for (let total = 1; out.length < total; ) {
      const page = (await (
        await fetch(`${live.url}/issues.json?project_id=orchard&status_id=*&sort=id:desc&limit=100&offset=${out.length}`)
      ).json()) as { issues: Issue[]; total_count: number };
      out.push(...page.issues);
      total = page.total_count;
    }
    return out;
  };

  /** A new issue in the project, made through Redmine's REST API as the admin: its id. */
  const newIssue = async (subject: string): Promise<number> => {
    const r = await fetch(`${live.url}/issues.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` },
      body: JSON.stringify({ issue: { project_id: 'orchard', subject, description: `About: ${subject}` } }),
    });
    expect(r.status).toBe(201);
    return ((await r.json()) as { issue: Issue }).issue.id;
  };
  const issue = async (id: number) => {
    const r = await fetch(`${live.url}/issues/${id}.json?include=journals`);
    return r.status === 200 ? ((await r.json()) as { issue: Issue & { journals: { notes: string }[] } }).issue : null;
  };

  async function login(page: Page, base: string) {
    await page.goto(`${base}/login`);
    await page.fill('#username', 'admin');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('#login-submit')]);
  }

  it('an issue page: its subject and attribute grid, for ANOTHER issue', async () => {
    const all = await issues();
    const fence = all.find((i) => i.subject === 'Fix the fence by the gate')!;
    const other = all.find((i) => i.subject === 'Prune row 7 of the orchard')!;
    const har = await record('issue', async (page, base) => {
      // (Filtered by subject: each run of this suite adds issues, which push it off the first page.)
      await page.goto(`${base}/projects/orchard/issues?set_filter=1&f[]=subject&op[subject]=~&v[subject][]=fence`);
      await Promise.all([page.waitForURL(/\/issues\/\d+$/), page.click('text=Fix the fence by the gate')]);
    });
    const { result } = await flow('rm-issue', har, { hints: { arguments: { issue: fence.id } } }, { arguments: { issue: other.id } });
    const truth = ((await (await fetch(`${live.url}/issues/${other.id}.json`)).json()) as any).issue;
    expect(result).toMatchObject({ status: truth.status.name, priority: truth.priority.name });
    // (The subject is the title, or — where the page's heading "Bug #7" is taken as the title — the
    // subtitle under it: which one depends on the pages recorded beside it.)
    if (result.subtitle !== undefined)
      expect(result).toMatchObject({ title: `${truth.tracker.name} #${other.id}`, subtitle: truth.subject });
    else expect(result.title).toBe(truth.subject);
    expect(JSON.stringify(result)).not.toMatch(/Atom|PDF|Sign in|Projects/);
  });

  it('search: the hits (a <dl> of linked <dt>s and their <dd>s) for a NEW query', async () => {
    const har = await record('search', async (page, base) => {
      await page.goto(`${base}/projects/orchard`);
      await page.fill('#q', 'pruning');
      await Promise.all([page.waitForURL(/search/), page.press('#q', 'Enter')]);
    });
    const { result } = await flow('rm-search', har, { hints: { arguments: { query: 'pruning' } } }, { arguments: { query: 'broken' } });
    const truth = (await issues()).filter((i) => /broken/i.test(`${i.subject} ${i.description}`));
    expect(truth.length).toBeGreaterThan(0);
    expect(result.items).toHaveLength(truth.length);
    for (const t of truth) {
      const hit = result.items.find((i: any) => i.url === `/issues/${t.id}`);
      expect(hit.title).toContain(t.subject);
      expect(hit.description).toBe(t.description);
    }
  });

  it('a search that found ONE issue (a <dl> of one <dt>): the hits of a NEW query', async () => {
    const har = await record('search-one', async (page, base) => {
      await page.goto(`${base}/projects/orchard`);
      await page.fill('#q', 'gate');
      await Promise.all([page.waitForURL(/search/), page.press('#q', 'Enter')]);
    });
    const before = (await issues()).filter((i) => /\bgate\b/i.test(`${i.subject} ${i.description}`));
    expect(before).toHaveLength(1);
    const { result } = await flow('rm-search-one', har, { hints: { arguments: { query: 'gate' } } }, { arguments: { query: 'pruning' } });
    const truth = (await issues()).filter((i) => /pruning/i.test(`${i.subject} ${i.description}`));
    expect(truth.length).toBeGreaterThan(3);
    // (Redmine shows the first hits on a page of its own size; each is one of the truth.)
    expect(result.items.length).toBeGreaterThan(3);
    for (const hit of result.items) {
      const t = truth.find((i) => hit.url === `/issues/${i.id}`);
      expect(t, JSON.stringify(hit)).toBeTruthy();
      expect(hit.title).toContain(t!.subject);
    }
  });

  it('the issue list behind the login form, over every page', async () => {
    const newest = (await issues())[0]!;
    const har = await record('issues', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/projects/orchard/issues`);
      await Promise.all([page.waitForURL(/page=2/), page.click('text=Next »')]);
    });
    const { result } = await flow(
      'rm-issues',
      har,
      { hints: { result: [newest.subject], secrets: { account: live.secret } } },
      { secret_bindings: { account: live.secret } },
    );
    const truth = await issues();
    expect(truth.length).toBeGreaterThan(25);
    expect(result.items.map((i: any) => i.subject)).toEqual(truth.map((i) => i.subject));
  });

  it("the issue list grouped by priority: each issue carries its group's caption (not its count or the collapse link)", async () => {
    // (Three issues of another priority than the rest, set through the REST API: two groups.)
    const auth = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };
    const priorities = (
      (await (await fetch(`${live.url}/enumerations/issue_priorities.json`, { headers: auth })).json()) as {
        issue_priorities: { id: number }[];
      }
    ).issue_priorities;
    expect(priorities.length).toBeGreaterThan(1);
    for (const i of (await issues()).slice(0, 3)) {
      const r = await fetch(`${live.url}/issues/${i.id}.json`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ issue: { priority_id: priorities[1]!.id } }),
      });
      expect(r.status).toBeLessThan(300);
    }
    const truth = await issues();
    const har = await record('grouped', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/projects/orchard/issues?set_filter=1&status_id=*&group_by=priority&per_page=100`);
      await page.waitForSelector('tr.group');
    });
    const { result } = await flow(
      'rm-grouped',
      har,
      { hints: { result: [truth[0]!.subject], secrets: { account: live.secret } } },
      { secret_bindings: { account: live.secret } },
    );
    // (Checked by issue number against the API: every issue once, under its own priority.)
    const priority = new Map((await issues()).map((i) => [i.id, i.priority.name]));
    expect(result.items.map((i: any) => i.id).sort()).toEqual([...priority.keys()].sort());
    expect(new Set(result.items.map((i: any) => i.group)).size).toBeGreaterThan(1);
    for (const i of result.items) expect(i.group, `#${i.id}`).toBe(priority.get(i.id));
  });

  it('a NEW issue through the multipart form (Rails authenticity token, an empty file input)', async () => {
    const har = await record('new-issue', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/projects/orchard/issues/new`);
      await page.fill('#issue_subject', 'Water the pear trees');
      await page.fill('#issue_description', 'The pears need water every week');
      await Promise.all([page.waitForURL(/\/issues\/\d+$/), page.click('input[name=commit]')]);
    });
    const subject = `Mulch the plum beds ${Date.now()}`;
    const { result } = await flow(
      'rm-new-issue',
      har,
      {
        hints: {
          arguments: { subject: 'Water the pear trees', description: 'The pears need water every week' },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { subject, description: 'Plums want mulch' }, secret_bindings: { account: live.secret } },
    );
    expect((await issues()).filter((i) => i.subject === subject)).toMatchObject([{ description: 'Plums want mulch' }]);
    // The page the site answered with: the new issue, and no complaint about the empty file input.
    expect(JSON.stringify(result)).toContain(subject);
    expect(JSON.stringify(result)).not.toMatch(/could not be saved/);
  });

  it("a NEW issue with a file attached (the page's script posts the chosen file's bytes first, then the form names the token it got back): run with ANOTHER file", async () => {
    const plan = Buffer.concat([Buffer.from('%PDF-1.4\n'), crypto.randomBytes(6000)]);
    const har = await live.recordCaptured('attach', async (page, base, choose) => {
      await login(page, base);
      await page.goto(`${base}/projects/orchard/issues/new`);
      await page.fill('#issue_subject', 'Planting plan for the north rows');
      await choose(page, () => page.click('input.file_selector'), [{ name: 'north-rows.pdf', mimeType: 'application/pdf', buffer: plan }]);
      await page.waitForFunction(() => [...document.querySelectorAll<HTMLInputElement>('input.token')].some((i) => i.value));
      await Promise.all([page.waitForURL(/\/issues\/\d+$/), page.click('input[name=commit]')]);
    });
    const c = await synthesizeFrom(live.h, har, {
      purpose: 'open an issue with a file attached',
      hints: { arguments: { subject: 'Planting plan for the north rows' }, secrets: { account: live.secret }, allow_side_effects: true },
    });
    expect(c.status, c.text).toBe(200);
    expect(c.json.input_schema.properties.file).toMatchObject({ format: 'file-id' });
    const def = (await live.h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    expect(def.meta.validation).toMatchObject({ replayed: true });

    const subject = `Soil report ${Date.now()}`;
    const report = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(9000)]);
    const out = await run(live.h, {
      connector_id: c.json.id,
      arguments: { subject, file: await uploadBytes(live.h, 'soil.pdf', report, 'application/pdf') },
      secret_bindings: { account: live.secret },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    const [made] = (await issues()).filter((i) => i.subject === subject);
    const full = ((await (await fetch(`${live.url}/issues/${made.id}.json?include=attachments`)).json()) as any).issue;
    expect(full.attachments).toHaveLength(1);
    // The caller's file, under its own name and type (the page named the chosen one twice).
    expect(full.attachments[0]).toMatchObject({ filename: 'soil.pdf', content_type: 'application/pdf', filesize: report.length });
    const stored = Buffer.from(await (await fetch(full.attachments[0].content_url)).arrayBuffer());
    expect(stored.equals(report)).toBe(true);
    expect(JSON.stringify(out.result)).toContain(subject);
  });

  it("an issue updated from its page — a note and a status from the update form (Rails' PATCH, a lock version) — run on ANOTHER issue with ANOTHER status", async () => {
    const stamp = Date.now();
    const [a, b] = [await newIssue(`Stake the young trees ${stamp}`), await newIssue(`Net the cherries ${stamp}`)];
    const har = await record('update', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/issues/${a}`);
      await page.click('#content > .contextual a.icon-edit');
      await page.selectOption('#issue_status_id', { label: 'In Progress' });
      await page.fill('#issue_notes', 'Stakes are in');
      await Promise.all([page.waitForURL(new RegExp(`/issues/${a}$`)), page.click('#issue-form input[name=commit]')]);
    });
    await flow(
      'rm-update',
      har,
      live.hinted({ issue: a, status: 'In Progress', notes: 'Stakes are in' }, { allow_side_effects: true }),
      live.bound({ issue: b, status: 'Resolved', notes: 'Nets are up' }),
    );
    const [was, now] = [await issue(a), await issue(b)];
    expect(now).toMatchObject({ status: { name: 'Resolved' } });
    expect(now!.journals.map((j) => j.notes)).toEqual(['Nets are up']);
    // (The recorded issue has only the recorded change.)
    expect(was).toMatchObject({ status: { name: 'In Progress' } });
    expect(was!.journals.map((j) => j.notes)).toEqual(['Stakes are in']);
  });

  it("an issue deleted from its page (a Rails link that posts DELETE with the page's token after a confirm): run on ANOTHER issue", async () => {
    const stamp = Date.now();
    const [a, b, c] = [
      await newIssue(`Burn the prunings ${stamp}`),
      await newIssue(`Sweep the barn ${stamp}`),
      await newIssue(`Oil the hinges ${stamp}`),
    ];
    const har = await record('delete', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/issues/${a}`);
      page.once('dialog', (d) => d.accept());
      await page.click('#content > .contextual .drdn-trigger');
      await Promise.all([page.waitForURL(/\/projects\/orchard\/issues/), page.click('#content > .contextual a.icon-del')]);
    });
    expect(await issue(a)).toBeNull();
    await flow('rm-delete', har, live.hinted({ issue: a }, { allow_side_effects: true }), live.bound({ issue: b }));
    expect(await issue(b)).toBeNull();
    expect(await issue(c)).toMatchObject({ subject: `Oil the hinges ${stamp}` });
  });

  it("the issues of the status chosen in the list's filter (chosen by its name, sent as its id): run with ANOTHER status", async () => {
    const auth = { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
    const statuses = ((await (await fetch(`${live.url}/issue_statuses.json`)).json()) as { issue_statuses: { id: number; name: string }[] })
      .issue_statuses;
    const id = (name: string) => statuses.find((s) => s.name === name)!.id;
    const stamp = Date.now();
    for (const [subject, status] of [
      [`Label the seedlings ${stamp}`, 'Feedback'],
      [`Count the hives ${stamp}`, 'Feedback'],
      [`Repair the ladder ${stamp}`, 'In Progress'],
    ] as const) {
      const made = await newIssue(subject);
      const r = await fetch(`${live.url}/issues/${made}.json`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ issue: { status_id: id(status) } }),
      });
      expect(r.status).toBe(204);
    }
    const withStatus = async (name: string) => (await issues()).filter((i) => i.status.name === name).map((i) => i.subject);
    const har = await record('status', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/projects/orchard/issues`);
      await page.selectOption('#operators_status_id', '=');
      await page.selectOption('#values_status_id_1', { label: 'In Progress' });
      await Promise.all([
        page.waitForURL(/v%5Bstatus_id%5D|v\[status_id\]/),
        page.click('#query_form_with_buttons p.buttons a.icon-checked'),
      ]);
    });
    const { result } = await flow('rm-status', har, live.hinted({ status: 'In Progress' }), live.bound({ status: 'Feedback' }));
    const want = await withStatus('Feedback');
    expect(want.length).toBeGreaterThanOrEqual(2);
    const items = (Object.values(result).find(Array.isArray) ?? []) as Record<string, unknown>[];
    expect(items.map((i) => i.subject)).toEqual(want);
  });

  it("a user's account, opened from the admin's user list by the login the person clicked: read for ANOTHER user", async () => {
    const auth = { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
    const stamp = Date.now() % 1_000_000;
    const made = [];
    for (const [login, firstname, lastname] of [
      [`pruner${stamp}`, 'Pia', 'Pruner'],
      [`picker${stamp}`, 'Kai', 'Picker'],
    ]) {
      const r = await fetch(`${live.url}/users.json`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ user: { login, firstname, lastname, mail: `${login}@orchard.test`, password: 'rm-user-pass-1' } }),
      });
      expect(r.status).toBe(201);
      made.push(login);
    }
    const [a, b] = made as [string, string];
    const har = await record('user', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/users?name=${stamp}`);
      await Promise.all([page.waitForURL(/\/users\/\d+\/edit/), page.getByRole('link', { name: a, exact: true }).click()]);
    });
    const { result } = await flow('rm-user', har, live.hinted({ login: a }), live.bound({ login: b }));
    const flat = JSON.stringify(result);
    expect(flat).toContain('Kai');
    expect(flat).toContain(`${b}@orchard.test`);
    expect(flat).not.toContain('Pia');
  });
});
