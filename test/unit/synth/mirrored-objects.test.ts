// A GraphQL admin's update (Vendure's, test/acceptance/vendure.test.ts): the mutation's input repeats
// the product's translation the page read just before — its id, language, name, slug, text — beside
// the one field the person changed. Those leaves are read from the record the run reads, not
// replayed: run on another product, the recorded one's name and text would overwrite its own.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://shop.test';
const detailQuery =
  'query GetProductDetail($id: ID!) { product(id: $id) { id enabled name slug translations { id languageCode name slug description } } }';
const update = 'mutation UpdateProduct($input: UpdateProductInput!) { updateProduct(input: $input) { id enabled } }';
const product = (id: string, trId: string) => ({
  id,
  enabled: true,
  name: 'Laptop',
  slug: 'laptop',
  translations: [{ id: trId, languageCode: 'en', name: 'Laptop', slug: 'laptop', description: 'Seventh-generation processors.' }],
});
const recording = (trId: string) =>
  har(
    {
      method: 'POST',
      url: `${O}/admin-api`,
      at: 100,
      json: { operationName: 'GetProductDetail', variables: { id: '1' }, query: detailQuery },
      body: { data: { product: product('1', trId) } },
    },
    {
      method: 'POST',
      url: `${O}/admin-api`,
      at: 200,
      json: {
        operationName: 'UpdateProduct',
        variables: {
          input: {
            id: '1',
            enabled: false,
            translations: [
              {
                id: trId,
                languageCode: 'en',
                name: 'Laptop',
                slug: 'laptop',
                description: 'Seventh-generation processors.',
                customFields: {},
              },
            ],
          },
        },
        query: update,
      },
      body: { data: { updateProduct: { id: '1', enabled: false } } },
    },
  );

describe("a write's object copied from a record read before", () => {
  for (const [trId, why] of [
    ['7', 'its own id'],
    ['1', "an id equal to the product's (the argument's example)"],
  ] as const)
    it(`each copied leaf is read from the record's same place (a translation with ${why})`, () => {
      const r = synthesize({ recording: recording(trId), hints: { arguments: { id: '1' } } });
      const steps = (r.definition as any).steps;
      const write = steps.at(-1).body.json.variables.input;
      expect(write.id).toBe('{{args.id}}');
      expect(write.enabled).toBe(false);
      const tr = write.translations[0];
      for (const k of ['id', 'languageCode', 'name', 'slug', 'description']) expect(tr[k]).toMatch(/^\{\{vars\.\w+\}\}$/);
      const read = steps.at(-2);
      expect(read.body.json.variables.id).toBe('{{args.id}}');
      const paths = Object.values(read.extract).map((x: any) => x.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          '$.data.product.translations[0].id',
          '$.data.product.translations[0].name',
          '$.data.product.translations[0].slug',
        ]),
      );
      expect(JSON.stringify(steps.at(-1).body)).not.toContain('Laptop');
    });

  it("a rename: the typed name is the argument, the rest of the translation and the product's untouched state are read", () => {
    const rec = recording('7');
    const write = JSON.parse((rec.log.entries[1] as any).request.postData.text);
    write.variables.input.enabled = true;
    write.variables.input.translations[0].name = 'Travel Laptop';
    (rec.log.entries[1] as any).request.postData.text = JSON.stringify(write);
    const r = synthesize({ recording: rec, hints: { arguments: { id: '1', name: 'Travel Laptop' } } });
    const input = (r.definition as any).steps.at(-1).body.json.variables.input;
    expect(input.id).toBe('{{args.id}}');
    expect(input.translations[0].name).toBe('{{args.name}}');
    expect(input.translations[0].slug).toMatch(/^\{\{vars\.\w+\}\}$/);
    // (The product's own `enabled`, equal to the record's: read, so a disabled product stays so.)
    expect(input.enabled).toMatch(/^\{\{vars\.\w+\}\}$/);
    const read = (r.definition as any).steps.at(-2);
    expect(Object.values(read.extract).some((x: any) => x.path === '$.data.product.enabled' && x.type === 'json')).toBe(true);
  });

  it('a create whose typed values no read holds copies nothing', () => {
    const r = synthesize({
      recording: har(
        {
          method: 'POST',
          url: `${O}/admin-api`,
          at: 100,
          json: { operationName: 'GetProductDetail', variables: { id: '1' }, query: detailQuery },
          body: { data: { product: product('1', '7') } },
        },
        {
          method: 'POST',
          url: `${O}/admin-api`,
          at: 200,
          json: {
            operationName: 'CreateCustomer',
            variables: { input: { firstName: 'Hazel', lastName: 'Grove', emailAddress: 'hazel@orchard.test', title: 'Dr' } },
            query: 'mutation CreateCustomer($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }',
          },
          body: { data: { createCustomer: { id: '9' } } },
        },
      ),
      hints: { arguments: { first_name: 'Hazel', last_name: 'Grove', email: 'hazel@orchard.test' } },
    });
    const input = (r.definition as any).steps.at(-1).body.json.variables.input;
    expect(input).toEqual({
      firstName: '{{args.first_name}}',
      lastName: '{{args.last_name}}',
      emailAddress: '{{args.email}}',
      title: 'Dr',
    });
  });
});
