// Acceptance on a twenty-sixth real application we did not write: Vendure 3.7, an e-commerce
// framework (npm; PostgreSQL, a fresh database per run made from its own sample shop). Its Angular
// admin app speaks only GraphQL: one endpoint, each read or write a named operation whose JSON
// variables carry what was typed, signed in by a `login` mutation whose token (an answer header) goes
// back as a Bearer header. Each flow is recorded here and now in Chromium, then synthesized,
// replay-validated, published and RUN with NEW arguments; results are checked through Vendure's
// Admin API. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, VENDURE_USER, vendureApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.vendure);
type Product = { id: string; name: string; slug: string; enabled: boolean; description: string };

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Vendure (%s)', (backend) => {
  const live = liveApp(APPS.vendure, backend, VENDURE_USER.username, VENDURE_USER.password);
  const { flow, bound } = live;
  const api = (query: string, variables?: Record<string, unknown>) => vendureApi(live.url, query, variables);
  const products = async (term: string): Promise<Product[]> =>
    (
      await api(
        'query ($t: String!) { products(options: { filter: { name: { contains: $t } }, take: 100 }) { items { id name slug enabled description } } }',
        { t: term },
      )
    ).products.items;
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  /** Records a flow after signing in through the admin app's login form (other hosts refused). */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (p, base) => {
      await refuseOtherHosts(p, base);
      await p.goto(`${base}/admin/login`);
      await p.fill('#login_username', VENDURE_USER.username);
      await p.fill('#login_password', VENDURE_USER.password);
      await p.click('button[type=submit]');
      await p.waitForURL(/\/admin\/?$/);
      await steps(p, base);
    });

  it('the products a search finds, run with ANOTHER search', async () => {
    const har = await record('search', async (p, base) => {
      await p.goto(`${base}/admin/catalog/products`);
      await p.locator('input[placeholder^="Search by product name"]').pressSequentially('laptop', { delay: 30 });
      await p.waitForResponse((r) => r.url().includes('/admin-api') && (r.request().postData() ?? '').includes('"laptop"'));
      await p.waitForSelector('text=Laptop');
    });
    const { result } = await flow('vn-search', har, hinted({ term: 'laptop' }), bound({ term: 'camera' }));
    const truth = (await products('camera')).map((x) => x.name);
    expect(truth.length).toBeGreaterThan(0);
    const text = JSON.stringify(result);
    for (const name of truth) expect(text).toContain(name);
    expect(text).not.toContain('Laptop');
  });

  it('a customer created in the form, run with ANOTHER customer', async () => {
    const har = await record('customer', async (p, base) => {
      await p.goto(`${base}/admin/customer/customers/create`);
      await p.fill('#firstName', 'Hazel');
      await p.fill('#lastName', 'Grove');
      await p.fill('#emailAddress', 'hazel.grove@orchard.test');
      await p.click('button.btn-primary:has-text("Create")');
      await p.waitForURL(/customers\/\d+/);
    });
    const customer = async (email: string) =>
      (
        await api(
          'query ($e: String!) { customers(options: { filter: { emailAddress: { eq: $e } } }) { items { id firstName lastName } } }',
          { e: email },
        )
      ).customers.items[0];
    expect(await customer('hazel.grove@orchard.test')).toMatchObject({ firstName: 'Hazel' });
    const { result } = await flow(
      'vn-customer',
      har,
      hinted({ first_name: 'Hazel', last_name: 'Grove', email: 'hazel.grove@orchard.test' }),
      bound({ first_name: 'Rowan', last_name: 'Ash', email: 'rowan.ash@orchard.test' }),
    );
    const made = await customer('rowan.ash@orchard.test');
    expect(made).toMatchObject({ firstName: 'Rowan', lastName: 'Ash' });
    // (The created record's id comes back.)
    expect(JSON.stringify(result)).toContain(`"${made.id}"`);
  });

  it('a product disabled on its page, run on ANOTHER product (whose name and text stay its own)', async () => {
    const [laptop] = await products('Laptop');
    const [tent] = await products('Tent');
    const har = await record('disable', async (p, base) => {
      await p.goto(`${base}/admin/catalog/products/${laptop!.id}`);
      await p
        .locator('clr-toggle-wrapper:has-text("Enabled") input, input#enabled, vdr-form-field:has-text("Enabled") input[type=checkbox]')
        .first()
        .uncheck({ force: true });
      await p.click('button.btn-primary:has-text("Update")');
      await p.waitForResponse((r) => r.url().includes('/admin-api') && (r.request().postData() ?? '').includes('UpdateProduct'));
    });
    expect((await products('Laptop'))[0]).toMatchObject({ enabled: false });
    await flow('vn-disable', har, hinted({ id: laptop!.id }), bound({ id: Number(tent!.id) }));
    const after = (await products('Tent'))[0]!;
    expect(after).toMatchObject({ enabled: false, name: tent!.name, slug: tent!.slug, description: tent!.description });
    expect((await products('Laptop'))[0]!.name).toBe(laptop!.name);
  });

  it('a product renamed on its page, run on ANOTHER product with another name (its slug, text and state stay its own)', async () => {
    const [tripod] = await products('Tripod');
    const [ball] = await products('Football');
    const har = await record('rename', async (p, base) => {
      await p.goto(`${base}/admin/catalog/products/${tripod!.id}`);
      const name = p.locator('input#name, vdr-form-field:has-text("Product name") input').first();
      await name.fill('Travel Tripod');
      await p.click('button.btn-primary:has-text("Update")');
      await p.waitForResponse((r) => r.url().includes('/admin-api') && (r.request().postData() ?? '').includes('UpdateProduct'));
    });
    expect((await products('Travel Tripod'))[0]?.id).toBe(tripod!.id);
    // (The product the run renames is disabled: it stays so, as the recorded one stayed enabled.)
    await api('mutation ($id: ID!) { updateProduct(input: { id: $id, enabled: false }) { id } }', { id: ball!.id });
    await flow(
      'vn-rename',
      har,
      hinted({ id: tripod!.id, name: 'Travel Tripod' }),
      bound({ id: Number(ball!.id), name: 'Leather Football' }),
    );
    const after = (await products('Leather Football'))[0]!;
    expect(after).toMatchObject({ id: ball!.id, slug: ball!.slug, description: ball!.description, enabled: false });
    expect((await products('Travel Tripod'))[0]?.slug).toBe(tripod!.slug);
  });
});
