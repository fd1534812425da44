// Acceptance on a thirty-third real application we did not write: Cacti 1.2 (Debian's cacti, a PHP
// network-graphing console over MariaDB; installed and seeded by scripts/acceptance-setup.sh with
// eight devices that are never polled). Each flow is recorded here and now in Chromium, signed in
// through Cacti's login form, then synthesized, replay-validated, published and RUN with NEW
// arguments; results are checked against Cacti's own database. What Cacti brings: jQuery loads each
// page's content by XHR as an HTML fragment (`header=false`) and submits its forms by XHR; every POST
// carries csrf-magic's `__csrf_magic` token; a filter's matches are highlighted inside the cell
// (`Packing <span class="filteredValue">Shed</span> Switch`); a device's edit form posts every field
// back; and a list's row actions are checkboxes whose NAME holds the id (`chk_4`), confirmed on a
// second form that carries the picked ids PHP-serialized. Opt-in: ACCEPTANCE=1.
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, cactiQuery } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.cacti);
const PASSWORD = 'cacti-admin-pass-1';

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Cacti (%s)', (backend) => {
  const live = liveApp(APPS.cacti, backend, 'admin', PASSWORD);
  const { flow } = live;
  type Device = { id: string; description: string; hostname: string; notes: string };
  const devices = (where = '1=1'): Device[] =>
    cactiQuery(live.url, `SELECT id, description, hostname, notes FROM host WHERE ${where} ORDER BY id`).map(
      ([id, description, hostname, notes]) => ({ id: id!, description: description!, hostname: hostname!, notes: notes! }),
    );
  const byName = (d: string) => devices(`description = '${d.replace(/'/g, "''")}'`)[0]!;
  /** Records a flow after signing in through the login form, on the device list. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await page.goto(`${base}/`);
      await page.fill('#login_username', 'admin');
      await page.fill('#login_password', PASSWORD);
      await Promise.all([page.waitForURL(/index\.php/), page.click('#login_submit, input[type=submit]')]);
      await page.goto(`${base}/host.php`);
      await page.waitForSelector('tr[id^=line]');
      await steps(page);
    });
  const xhr = (page: Page, part: RegExp, method = 'GET') =>
    page.waitForResponse((r) => part.test(r.url()) && r.request().method() === method && r.status() < 400);
  const secrets = () => ({ account: live.secret });

  it('the device list filtered by a search: every matching device as a record, for a NEW search', async () => {
    const har = await record('search', async (page) => {
      await page.fill('#filter', 'Shed');
      await Promise.all([xhr(page, /filter=Shed/), page.keyboard.press('Enter')]);
    });
    const { result } = await flow(
      'ct-search',
      har,
      { hints: { arguments: { search: 'Shed' }, result: ['Packing Shed Switch', '127.0.0.14'], secrets: secrets() } },
      { arguments: { search: 'er' }, secret_bindings: secrets() },
    );
    const truth = devices(`description LIKE '%er%' OR hostname LIKE '%er%'`);
    expect(truth.length).toBeGreaterThan(1);
    const items: any[] = Array.isArray(result) ? result : Object.values(result).find(Array.isArray)!;
    expect(items.length).toBe(truth.length);
    const text = JSON.stringify(items);
    // (The match is highlighted inside the cell: the record's text is whole, not "Packing  Switch".)
    for (const d of truth) {
      expect(text).toContain(JSON.stringify(d.description));
      expect(text).toContain(JSON.stringify(d.hostname));
    }
    expect(text).not.toContain('Packing Shed Switch');
  });

  it('every device of the list page (its content hidden until its script shows it), as records', async () => {
    const har = await record('list', async () => {});
    const { result } = await flow(
      'ct-list',
      har,
      { hints: { result: ['Cider Press Controller', '127.0.0.12'], secrets: secrets() } },
      { secret_bindings: secrets() },
    );
    const items: any[] = Array.isArray(result) ? result : Object.values(result).find(Array.isArray)!;
    const truth = devices();
    expect(items.length).toBe(truth.length);
    const text = JSON.stringify(items);
    for (const d of truth) expect(text).toContain(JSON.stringify(d.hostname));
  });

  it("a device's settings, opened from the list by its description: ANOTHER device's hostname and notes", async () => {
    const rec = byName('Barn Access Point');
    const har = await record('details', async (page) => {
      await Promise.all([xhr(page, /action=edit&id=\d+/), page.click('a.linkEditMain:text-is("Barn Access Point")')]);
      await page.waitForSelector('#hostname');
    });
    const { result } = await flow(
      'ct-details',
      har,
      { hints: { arguments: { device: 'Barn Access Point' }, result: [rec.hostname, rec.notes], secrets: secrets() } },
      { arguments: { device: 'Cider Press Controller' }, secret_bindings: secrets() },
    );
    const other = byName('Cider Press Controller');
    const text = JSON.stringify(result);
    expect(text).toContain(JSON.stringify(other.hostname));
    expect(text).toContain(JSON.stringify(other.notes));
    expect(text).not.toContain(rec.hostname);
    // Without result hints too: the form the person opened, not the status fragment its page then fetched.
    const bare = await flow(
      'ct-details-bare',
      har,
      { hints: { arguments: { device: 'Barn Access Point' }, secrets: secrets() } },
      { arguments: { device: 'Irrigation Pump' }, secret_bindings: secrets() },
    );
    expect(bare.result).toMatchObject({ hostname: byName('Irrigation Pump').hostname, notes: byName('Irrigation Pump').notes });
  });

  it('a device renamed in its edit form, opened from the list by its description: run on ANOTHER device', async () => {
    const [rec, other] = [byName('Weather Mast'), byName('Irrigation Pump')];
    const har = await record('rename', async (page) => {
      await Promise.all([xhr(page, /action=edit&id=\d+/), page.click('a.linkEditMain:text-is("Weather Mast")')]);
      await page.fill('#description', 'Weather Mast North');
      await Promise.all([xhr(page, /host\.php/, 'POST'), page.click('#submit')]);
      await xhr(page, /action=edit&id=\d+/);
    });
    await flow(
      'ct-rename',
      har,
      {
        hints: {
          arguments: { device: 'Weather Mast', description: 'Weather Mast North' },
          secrets: secrets(),
          allow_side_effects: true,
        },
      },
      { arguments: { device: 'Irrigation Pump', description: 'Irrigation Pump East' }, secret_bindings: secrets() },
    );
    // Only the description changed, on the device named; its hostname and notes are its own.
    expect(devices(`id = ${other.id}`)).toEqual([{ ...other, description: 'Irrigation Pump East' }]);
    expect(devices(`id = ${rec.id}`)).toEqual([{ ...rec, description: 'Weather Mast North' }]);
  });

  it('a NEW device added through the device form, run with ANOTHER description and hostname', async () => {
    const har = await record('add', async (page) => {
      await page.goto(`${live.url}/host.php?action=edit`);
      await page.waitForSelector('#description');
      await page.fill('#description', 'Cellar Thermometer');
      await page.fill('#hostname', '127.0.0.31');
      await Promise.all([xhr(page, /host\.php/, 'POST'), page.click('#submit')]);
      await xhr(page, /action=edit&id=\d+/);
    });
    await flow(
      'ct-add',
      har,
      {
        hints: {
          arguments: { description: 'Cellar Thermometer', hostname: '127.0.0.31' },
          secrets: secrets(),
          allow_side_effects: true,
        },
      },
      { arguments: { description: 'Hive Scale', hostname: '127.0.0.32' }, secret_bindings: secrets() },
    );
    expect(devices(`hostname = '127.0.0.32'`).map((d) => d.description)).toEqual(['Hive Scale']);
  });

  it("a device's template chosen by its NAME in the edit form's drop-down, run on ANOTHER device with ANOTHER template", async () => {
    const templates = Object.fromEntries(cactiQuery(live.url, 'SELECT name, id FROM host_template').map(([n, id]) => [n!, id!]));
    const [rec, other] = [byName('Orchard Gateway'), byName('Packing Shed Switch')];
    const har = await record('template', async (page) => {
      await Promise.all([xhr(page, /action=edit&id=\d+/), page.click('a.linkEditMain:text-is("Orchard Gateway")')]);
      await page.click('#host_template_id-button');
      await page.click('#host_template_id-menu li:has-text("Net-SNMP Device")');
      await Promise.all([xhr(page, /host\.php/, 'POST'), page.click('#submit')]);
      await xhr(page, /action=edit&id=\d+/);
    });
    await flow(
      'ct-template',
      har,
      {
        hints: {
          arguments: { device: 'Orchard Gateway', template: 'Net-SNMP Device' },
          secrets: secrets(),
          allow_side_effects: true,
        },
      },
      { arguments: { device: 'Packing Shed Switch', template: 'Windows Device' }, secret_bindings: secrets() },
    );
    const templateOf = (id: string) => cactiQuery(live.url, `SELECT host_template_id FROM host WHERE id = ${id}`)[0]![0];
    expect(templateOf(other.id)).toBe(templates['Windows Device']);
    expect(templateOf(rec.id)).toBe(templates['Net-SNMP Device']);
    expect(devices(`id = ${other.id}`)).toEqual([other]);
  });

  it('a NEW user added with a password in the user form, run with ANOTHER user name and password', async () => {
    const har = await record('user', async (page) => {
      await page.goto(`${live.url}/user_admin.php?action=user_edit`);
      await page.waitForSelector('#username');
      await page.fill('#username', 'cellar-keeper');
      await page.fill('#full_name', 'Cellar Keeper');
      await page.fill('#password', 'Keeper-pass-41');
      await page.fill('#password_confirm', 'Keeper-pass-41');
      await Promise.all([xhr(page, /user_admin\.php/, 'POST'), page.click('#submit')]);
      await xhr(page, /user_admin\.php/);
    });
    const { def } = await flow(
      'ct-user',
      har,
      {
        hints: {
          arguments: { username: 'cellar-keeper', full_name: 'Cellar Keeper', password: 'Keeper-pass-41' },
          secrets: secrets(),
          allow_side_effects: true,
        },
      },
      { arguments: { username: 'hive-keeper', full_name: 'Hive Keeper', password: 'Hive-pass-73' }, secret_bindings: secrets() },
    );
    // (The typed password is an argument of the run, not a recorded constant.)
    expect(JSON.stringify(def)).not.toContain('Keeper-pass-41');
    const [row] = cactiQuery(live.url, "SELECT username, full_name, password FROM user_auth WHERE username = 'hive-keeper'");
    expect(row?.slice(0, 2)).toEqual(['hive-keeper', 'Hive Keeper']);
    const verify = `<?php echo password_verify('Hive-pass-73', '${row![2]}') ? 'yes' : 'no';`;
    expect(execFileSync('php', ['-r', verify.slice(6)], { encoding: 'utf8' })).toBe('yes');
  });

  it('a device deleted by its checkbox, the Delete action and the confirmation: run on ANOTHER device named by its description', async () => {
    const har = await record('delete', async (page) => {
      await page.check('input[title="Cold Store Monitor"]', { force: true });
      await page.click('#drp_action-button');
      await page.click('#drp_action-menu li:has-text("Delete")');
      await Promise.all([xhr(page, /host\.php/, 'POST'), page.click('#submit')]);
      await page.waitForSelector('input[value=Continue]');
      await Promise.all([xhr(page, /host\.php/, 'POST'), page.click('input[value=Continue]')]);
      await page.waitForSelector('tr[id^=line]');
    });
    const before = devices().filter((d) => d.description !== 'Cold Store Monitor');
    await flow(
      'ct-delete',
      har,
      { hints: { arguments: { device: 'Cold Store Monitor' }, secrets: secrets(), allow_side_effects: true } },
      { arguments: { device: 'Greenhouse Sensor Hub' }, secret_bindings: secrets() },
    );
    expect(devices()).toEqual(before.filter((d) => d.description !== 'Greenhouse Sensor Hub'));
  });
});
