// Acceptance on a thirty-ninth real application we did not write: hledger-web 1.25 (Debian's
// hledger-web: the web UI of a plain-text double-entry accounting journal, a Haskell/Yesod app; a
// fresh copy of the seeded journal per run). Each flow is recorded here and now in Chromium,
// synthesized, replay-validated, published and RUN with NEW arguments; results are checked against
// hledger-web's own JSON API. What hledger brings: no sign-in; an account's register reached by a
// search query that wraps the account (`q=inacct:assets:cash `); every link absolute; the journal
// as one table where each transaction is a title row followed by its postings' rows; and an "add a
// transaction" form in a modal whose postings are REPEATED fields (`account`, `amount`, four of
// each, blanks sent too), guarded by a `_token` tied to the session cookie. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { run } from '../helpers/runs.js';
import { synthesizeFrom } from '../helpers/synth.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, hledgerTransactions } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.hledger);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on hledger-web (%s)', (backend) => {
  // (No sign-in: the login secret of the harness is unused.)
  const live = liveApp(APPS.hledger, backend, 'nobody', 'no-password');
  const { flow } = live;
  /** Records a flow from the journal page, with every request to another host refused. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/journal`);
      await page.waitForSelector('table.transactionsreport');
      await steps(page);
    });
  /** Adds a transaction through the modal form: postings as [account, amount] ('' leaves it blank). */
  const addTransaction = async (page: Page, date: string, description: string, postings: [string, string][]) => {
    await page.click('#addformlink');
    await page.waitForSelector('#addform input[name=date]', { state: 'visible' });
    await page.fill('#addform input[name=date]', date);
    await page.fill('#addform input[name=description]', description);
    for (const [i, [account, amount]] of postings.entries()) {
      await page.locator('#addform input[name=account]').nth(i).fill(account);
      if (amount) await page.locator('#addform input.amount-input').nth(i).fill(amount);
    }
    await Promise.all([page.waitForEvent('load'), page.click('#addform button[type=submit]')]);
  };
  const added = async (description: string) => (await hledgerTransactions(live.url)).find((t) => t.description === description);
  /** Adds a transaction through hledger-web's JSON API (PUT /add), as another client would. */
  const putTransaction = async (date: string, description: string, postings: [string, number, string][]) => {
    const amount = (q: number, c: string) => [
      {
        acommodity: c,
        aprice: null,
        aquantity: { decimalMantissa: Math.round(q * 100), decimalPlaces: 2, floatingPoint: q },
        aismultiplier: false,
        astyle: { ascommodityside: 'R', ascommodityspaced: true, asdecimalpoint: '.', asdigitgroups: null, asprecision: 2 },
      },
    ];
    const posting = ([account, q, c]: [string, number, string]) => ({
      paccount: account,
      pamount: amount(q, c),
      pbalanceassertion: null,
      pcomment: '',
      pdate: null,
      pdate2: null,
      poriginal: null,
      pstatus: 'Unmarked',
      ptags: [],
      ptransaction_: '0',
      ptype: 'RegularPosting',
    });
    const r = await fetch(`${live.url}/add`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tcode: '',
        tcomment: '',
        tdate: date,
        tdate2: null,
        tdescription: description,
        tindex: 0,
        tpostings: postings.map(posting),
        tprecedingcomment: '',
        tsourcepos: [
          { sourceColumn: 1, sourceLine: 1, sourceName: '' },
          { sourceColumn: 1, sourceLine: 1, sourceName: '' },
        ],
        tstatus: 'Unmarked',
        ttags: [],
      }),
    });
    expect(r.status, await r.text()).toBeLessThan(300);
  };

  it('the general journal, recorded plainly: the run lists the transactions added since', async () => {
    const har = await record('journal', async () => {});
    await putTransaction('2026-11-24', 'Quince jelly jars', [
      ['expenses:food', 12.4, 'EUR'],
      ['assets:cash', -12.4, 'EUR'],
    ]);
    const { result } = await flow('hl-journal', har, { hints: { result: ['Farmers market', 'Tractor diesel'] } }, { arguments: {} });
    const text = JSON.stringify(result);
    expect(text).toContain('Quince jelly jars');
    expect(text).toContain('Farmers market');
    expect(text).toContain('Cider sales to the pub');
  });

  it("an account's register opened from the sidebar, run on ANOTHER account: only that account's transactions", async () => {
    const har = await record('register', async (page) => {
      await Promise.all([page.waitForURL(/register\?q=inacct/), page.click('a.acct-name[title][href*="assets%3Acash"]')]);
      await page.waitForSelector('table');
    });
    const { result } = await flow(
      'hl-register',
      har,
      { hints: { arguments: { account: 'assets:cash' } } },
      { arguments: { account: 'income:cider' } },
    );
    const text = JSON.stringify(result);
    expect(text).toContain('Cider sales at the gate');
    expect(text).toContain('Cider sales to the pub');
    expect(text).not.toContain('Farmers market');
    expect(text).not.toContain('Rent November');
  });

  it('the journal searched, run with ANOTHER query: only the transactions that match', async () => {
    const har = await record('search', async (page) => {
      await page.fill('#searchform input[name=q]', 'cider');
      await Promise.all([page.waitForURL(/q=cider/), page.press('#searchform input[name=q]', 'Enter')]);
    });
    const { result } = await flow('hl-search', har, { hints: { arguments: { query: 'cider' } } }, { arguments: { query: 'food' } });
    const text = JSON.stringify(result);
    expect(text).toContain('Farmers market');
    expect(text).toContain('Bakery and cheese');
    expect(text).not.toContain('Cider sales');
  });

  it('a transaction added through the modal form, run with a NEW date, description, accounts and amount', async () => {
    const har = await record('add', (page) =>
      addTransaction(page, '2026-11-25', 'Apple crates', [
        ['expenses:tools', '30.00 EUR'],
        ['assets:cash', ''],
      ]),
    );
    expect(await added('Apple crates')).toBeTruthy();
    await flow(
      'hl-add',
      har,
      {
        hints: {
          arguments: {
            date: '2026-11-25',
            description: 'Apple crates',
            account: 'expenses:tools',
            amount: '30.00 EUR',
            from_account: 'assets:cash',
          },
          allow_side_effects: true,
        },
      },
      {
        arguments: {
          date: '2026-11-27',
          description: 'Ladder repair',
          account: 'expenses:fuel',
          amount: '55.00 EUR',
          from_account: 'liabilities:card',
        },
      },
    );
    const t = await added('Ladder repair');
    expect(t, JSON.stringify(await hledgerTransactions(live.url))).toBeTruthy();
    expect(t!.date).toBe('2026-11-27');
    expect(t!.postings).toEqual([
      { account: 'expenses:fuel', amount: '55.00 EUR' },
      { account: 'liabilities:card', amount: '-55.00 EUR' },
    ]);
  });

  it('a transaction split over three postings, run with NEW accounts and amounts', async () => {
    const har = await record('split', (page) =>
      addTransaction(page, '2026-11-26', 'Market stall supplies', [
        ['expenses:food', '20.00 EUR'],
        ['expenses:tools', '15.50 EUR'],
        ['assets:cash', ''],
      ]),
    );
    await flow(
      'hl-split',
      har,
      {
        hints: {
          arguments: {
            date: '2026-11-26',
            description: 'Market stall supplies',
            first_account: 'expenses:food',
            first_amount: '20.00 EUR',
            second_account: 'expenses:tools',
            second_amount: '15.50 EUR',
            from_account: 'assets:cash',
          },
          allow_side_effects: true,
        },
      },
      {
        arguments: {
          date: '2026-11-28',
          description: 'Cellar restock',
          first_account: 'expenses:fuel',
          first_amount: '8.00 EUR',
          second_account: 'expenses:rent',
          second_amount: '100.00 EUR',
          from_account: 'assets:bank:checking',
        },
      },
    );
    const t = await added('Cellar restock');
    expect(t, JSON.stringify(await hledgerTransactions(live.url))).toBeTruthy();
    expect(t!.postings).toEqual([
      { account: 'expenses:fuel', amount: '8.00 EUR' },
      { account: 'expenses:rent', amount: '100.00 EUR' },
      { account: 'assets:bank:checking', amount: '-108.00 EUR' },
    ]);
  });

  it('a transaction added in a capture-style recording, nothing hinted: the typed values are the arguments', async () => {
    const har = await live.recordCaptured('add-captured', async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/journal`);
      await page.click('#addformlink');
      await page.waitForSelector('#addform input[name=date]', { state: 'visible' });
      await page.locator('#addform input[name=date]').pressSequentially('2026-11-29', { delay: 30 });
      await page.locator('#addform input[name=description]').pressSequentially('Hedge trimmer hire', { delay: 30 });
      await page.locator('#addform input[name=account]').nth(0).pressSequentially('expenses:tools', { delay: 30 });
      await page.locator('#addform input.amount-input').nth(0).pressSequentially('40.00 EUR', { delay: 30 });
      await page.locator('#addform input[name=account]').nth(1).pressSequentially('liabilities:card', { delay: 30 });
      await Promise.all([page.waitForEvent('load'), page.click('#addform button[type=submit]')]);
    });
    expect(await added('Hedge trimmer hire')).toBeTruthy();
    const c = await synthesizeFrom(live.h, har, { hints: { allow_side_effects: true } });
    expect(c.status, c.text).toBe(200);
    const props = c.json.input_schema.properties as Record<string, { examples?: unknown[] }>;
    const named = (v: string) => Object.keys(props).find((k) => props[k]!.examples?.[0] === v);
    const names = ['2026-11-29', 'Hedge trimmer hire', 'expenses:tools', '40.00 EUR', 'liabilities:card'].map(named);
    expect(names.every(Boolean), JSON.stringify(props)).toBe(true);
    const values = ['2026-11-30', 'Mower blades', 'expenses:fuel', '12.75 EUR', 'assets:cash'];
    const out = await run(live.h, { connector_id: c.json.id, arguments: Object.fromEntries(names.map((n, i) => [n!, values[i]])) });
    expect(out.status, JSON.stringify(out)).toBe('success');
    const t = await added('Mower blades');
    expect(t, JSON.stringify(await hledgerTransactions(live.url))).toBeTruthy();
    expect(t!.date).toBe('2026-11-30');
    expect(t!.postings).toEqual([
      { account: 'expenses:fuel', amount: '12.75 EUR' },
      { account: 'assets:cash', amount: '-12.75 EUR' },
    ]);
  });
});

describe.skipIf(!ready)('hledger-web refusing a run (sqlite)', () => {
  const live = liveApp(APPS.hledger, 'sqlite', 'nobody', 'no-password');
  it('a transaction the site refuses (an amount it cannot read): the run fails with its message, nothing added', async () => {
    const har = await live.record('add-refused', async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/journal`);
      await page.click('#addformlink');
      await page.waitForSelector('#addform input[name=date]', { state: 'visible' });
      await page.fill('#addform input[name=date]', '2026-11-25');
      await page.fill('#addform input[name=description]', 'Apple crates');
      await page.locator('#addform input[name=account]').nth(0).fill('expenses:tools');
      await page.locator('#addform input.amount-input').nth(0).fill('30.00 EUR');
      await page.locator('#addform input[name=account]').nth(1).fill('assets:cash');
      await Promise.all([page.waitForEvent('load'), page.click('#addform button[type=submit]')]);
    });
    const c = await synthesizeFrom(live.h, har, {
      hints: {
        arguments: {
          date: '2026-11-25',
          description: 'Apple crates',
          account: 'expenses:tools',
          amount: '30.00 EUR',
          from_account: 'assets:cash',
        },
        allow_side_effects: true,
      },
    });
    expect(c.status, c.text).toBe(200);
    const before = (await hledgerTransactions(live.url)).length;
    const out = await run(live.h, {
      connector_id: c.json.id,
      arguments: {
        date: '2026-11-28',
        description: 'Never added',
        account: 'expenses:fuel',
        amount: 'lots of EUR',
        from_account: 'assets:cash',
      },
    });
    // (Before, the site's form page again was read as a success: {"message": "Postings validation failed"}.)
    expect(out.status, JSON.stringify(out)).toBe('connector_error');
    expect(out.error).toMatchObject({ type: 'invalid_input', details: { refused: true } });
    expect(out.error.message).toContain('Postings validation failed');
    expect((await hledgerTransactions(live.url)).length).toBe(before);
  });
});
