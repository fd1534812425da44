// Acceptance: synthesis on REAL open-source web applications we did not write (DokuWiki,
// phpMyAdmin over MariaDB; installed and seeded by scripts/acceptance-setup.sh). Each flow was
// recorded with Playwright's recordHar (test/fixtures/real/record.ts); here it is uploaded through
// the files API, synthesized, replay-validated and published by the real server, then RUN with
// NEW arguments, and the result is checked against the application's own data (its page files,
// its user file, its database). Opt-in: ACCEPTANCE=1 (needs root-installed apps and php).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.js';
import { APPS, appInstalled, rebaseHar, serveApp } from '../helpers/real-apps.js';
import { loginSecret, run } from '../helpers/runs.js';
import { synthesizeFrom } from '../helpers/synth.js';

const enabled = process.env.ACCEPTANCE === '1';
const ready = enabled && appInstalled(APPS.dokuwiki) && appInstalled(APPS.phpmyadmin);
if (!enabled)
  console.log('[acceptance] skipped: set ACCEPTANCE=1 (after `sudo bash scripts/acceptance-setup.sh`) to run synthesis against real apps');
else if (!ready) console.log('[acceptance] skipped: DokuWiki/phpMyAdmin/php not installed; run scripts/acceptance-setup.sh');

const FIX = path.join(__dirname, '../fixtures/real');
const DW_PAGES = '/var/lib/dokuwiki/data/pages';
const fixture = (app: 'dokuwiki' | 'phpmyadmin', name: string, port: number) =>
  rebaseHar(fs.readFileSync(path.join(FIX, app, `${name}.har`), 'utf8'), APPS[app].recordedPort, port);
/** A value of a seeded fruit page's Property/Value table, read from the wiki's own page file. */
const pageValue = (id: string, label: string) =>
  new RegExp(`\\| ${label} \\| ([^|]+) \\|`).exec(fs.readFileSync(`${path.join(DW_PAGES, ...id.split(':'))}.txt`, 'utf8'))![1].trim();
const mysql = (sql: string) => execFileSync('mysql', ['-h127.0.0.1', '-uroot', '-N', '-B', '-e', sql], { encoding: 'utf8' });

const figures: { flow: string; synthMs: number; runMs: number }[] = [];
async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = Date.now();
  const r = await f();
  return [r, Date.now() - t];
}

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on real apps (%s)', (backend) => {
  let h: Harness;
  let dw: Awaited<ReturnType<typeof serveApp>>;
  let pma: Awaited<ReturnType<typeof serveApp>>;
  beforeAll(async () => {
    dw = await serveApp(APPS.dokuwiki);
    pma = await serveApp(APPS.phpmyadmin);
    h = await startHarness(backend);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await dw?.close();
    await pma?.close();
    if (figures.length) console.log('[acceptance] figures', JSON.stringify(figures));
  });

  async function flow(name: string, app: 'dokuwiki' | 'phpmyadmin', body: Record<string, unknown>, runBody: Record<string, unknown>) {
    const port = app === 'dokuwiki' ? dw.port : pma.port;
    const [r, synthMs] = await timed(() => synthesizeFrom(h, fixture(app, name, port), body));
    expect(r.status, r.text).toBe(200);
    const [out, runMs] = await timed(() => run(h, { connector_id: r.json.id, ...runBody }));
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    figures.push({ flow: name, synthMs, runMs });
    return out.result;
  }

  it('DokuWiki full-text search: the hits of a NEW query, as records', async () => {
    const result = await flow('dw-search', 'dokuwiki', { hints: { arguments: { query: 'orchard' } } }, { arguments: { query: 'yellow' } });
    // The wiki's truth: which seeded fruit pages mention "yellow".
    const expected = fs
      .readdirSync(path.join(DW_PAGES, 'fruit'))
      .filter((f) => /yellow/i.test(fs.readFileSync(path.join(DW_PAGES, 'fruit', f), 'utf8')))
      .map((f) => f.replace(/\.txt$/, ''));
    expect(result.items.map((i: any) => i.title).sort()).toEqual(expected.sort());
    expect(result.items[0].url).toMatch(/id=fruit:banana/);
  });

  it('DokuWiki search that found ONE page (the person searched "malus"): every hit of a NEW query, as records', async () => {
    const result = await flow(
      'dw-search-one',
      'dokuwiki',
      { hints: { arguments: { query: 'malus' } } },
      { arguments: { query: 'orchard' } },
    );
    const expected = fs
      .readdirSync(path.join(DW_PAGES, 'fruit'))
      .filter((f) => /orchard/i.test(fs.readFileSync(path.join(DW_PAGES, 'fruit', f), 'utf8')))
      .map((f) => f.replace(/\.txt$/, ''));
    expect(expected.length).toBeGreaterThan(3);
    expect(result.items.map((i: any) => i.title).sort()).toEqual(expected.sort());
    expect(result.items.find((i: any) => i.title === 'banana').url).toMatch(/id=fruit:banana/);
  });

  it('DokuWiki detail page: label/value fields of ANOTHER page', async () => {
    const result = await flow(
      'dw-page',
      'dokuwiki',
      { hints: { arguments: { fruit: 'cherry' }, result: ['Dark red'] } },
      { arguments: { fruit: 'damson' } },
    );
    expect(result).toMatchObject({
      title: 'Damson',
      colour: pageValue('fruit:damson', 'Colour'),
      latin_name: pageValue('fruit:damson', 'Latin name'),
      price_per_kg: Number(pageValue('fruit:damson', 'Price per kg')),
    });
  });

  it('DokuWiki table page: every row, columns keyed by the header cells, typed', async () => {
    const result = await flow('dw-catalogue', 'dokuwiki', { hints: { result: ['Banana', '900'] } }, {});
    const rows = fs
      .readFileSync(path.join(DW_PAGES, 'fruit/catalogue.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('| [['));
    expect(result.items).toHaveLength(rows.length);
    const banana = result.items.find((i: any) => i.fruit === 'Banana');
    expect(banana).toMatchObject({ colour: 'Yellow', price_per_kg: 0.35, stock: 900, fruit_url: expect.stringContaining('fruit:banana') });
  });

  it('DokuWiki admin user table behind a CSRF login form (password field named "p")', async () => {
    const secret = await loginSecret(h, 'admin', 'dw-admin-pass-1');
    const result = await flow(
      'dw-users',
      'dokuwiki',
      { hints: { result: ['editor@example.test'], secrets: { account: secret } } },
      { secret_bindings: { account: secret } },
    );
    const users = fs
      .readFileSync('/etc/dokuwiki/users.auth.php', 'utf8')
      .split('\n')
      .filter((l) => /^[a-z]/.test(l))
      .map((l) => l.split(':'));
    expect(result.items.map((i: any) => i.email).sort()).toEqual(users.map((u) => u[3]).sort());
    expect(result.items.map((i: any) => i.user).sort()).toEqual(users.map((u) => u[0]).sort());
  });

  it('DokuWiki create/edit a page with hidden fields and CSRF: the run saves NEW text', async () => {
    const secret = await loginSecret(h, 'editor', 'dw-admin-pass-1');
    const text = `Buy cherries ${Date.now()}`;
    await flow(
      'dw-create',
      'dokuwiki',
      {
        hints: {
          arguments: { text: 'Buy apples and pears', summary: 'first list' },
          secrets: { account: secret },
          allow_side_effects: true,
        },
      },
      { arguments: { text, summary: 'second list' }, secret_bindings: { account: secret } },
    );
    expect(fs.readFileSync(path.join(DW_PAGES, 'notes/shopping_list.txt'), 'utf8').trim()).toBe(text);
  });

  it('phpMyAdmin: login (token + session), browse a table: the rows equal the database', async () => {
    const secret = await loginSecret(h, 'pma', 'pma-pass-1');
    const result = await flow(
      'pma-browse',
      'phpmyadmin',
      { hints: { result: ['Elderberry'], secrets: { account: secret } } },
      { secret_bindings: { account: secret } },
    );
    const db = mysql('SELECT id, name, colour, price, stock FROM acme.products ORDER BY id')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(result.items.map((i: any) => [i.id, i.name, i.colour, i.price, i.stock])).toEqual(
      db.map(([id, n, c, p, s]) => [Number(id), n, c, Number(p), Number(s)]),
    );
  });

  it('phpMyAdmin CSV export (a POST form of 60 fields with a token): the run saves the file and returns its rows, equal to the database', async () => {
    const secret = await loginSecret(h, 'pma', 'pma-pass-1');
    const result = await flow(
      'pma-export',
      'phpmyadmin',
      { hints: { secrets: { account: secret } } },
      { secret_bindings: { account: secret } },
    );
    expect(result).toMatchObject({ filename: 'products.csv', file_id: expect.any(String) });
    const db = mysql('SELECT id, name, colour, price, stock FROM acme.products ORDER BY id')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(result.rows.map((r: any) => [r.id, r.name, r.colour, r.price, r.stock])).toEqual(
      db.map(([id, n, c, p, s]) => [Number(id), n, c, Number(p), Number(s)]),
    );
  });
});
