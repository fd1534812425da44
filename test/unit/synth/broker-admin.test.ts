// The shapes a message broker's admin UI showed (RabbitMQ: test/acceptance/rabbitmq.test.ts): a
// record's page that fetches the record and then a list under it (`…/pickers` and
// `…/pickers/bindings`), both addressed by the typed values; and an admin form that sets a NEW
// user's password while the person is signed in with their own.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { normalize } from '../../../src/synth/normalize.js';
import { scoreTargets } from '../../../src/synth/target.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://broker.test';
const AUTH = { authorization: `Basic ${Buffer.from('seed:Sentinel-Pw-9').toString('base64')}` };
const facts = (argValues: string[]) => ({ argValues, resultValues: [], secretCarriers: new Set<string>(), lastActionTime: null });
const login = { account: { type: 'login' as const, username: 'seed', password: 'Sentinel-Pw-9', totp_secret: null } };

describe("a record's page: the record, then a list under it", () => {
  const page = har(
    {
      url: `${O}/api/queues/orchard/pickers?lengths_age=60`,
      headers: AUTH,
      body: { name: 'pickers', vhost: 'orchard', durable: true, messages: 1 },
    },
    { url: `${O}/api/queues/orchard/pickers/bindings`, headers: AUTH, body: [{ source: '', vhost: 'orchard', destination: 'pickers' }] },
  );

  it('the answer whose `name` is the typed value is the record the page shows', () => {
    const c = scoreTargets(normalize(page).exchanges, facts(['orchard', 'pickers']));
    expect(c[0]!.exchange.url).toContain('/pickers?');
    expect(c[0]!.reasons.join(' ')).toMatch(/the answer is the record typed value\(s\) "pickers"/);
  });

  it('a list that merely holds the value in its records is not that record', () => {
    const c = scoreTargets(normalize(page).exchanges, facts(['orchard', 'pickers']));
    expect(c.find((k) => k.exchange.url.endsWith('/bindings'))!.reasons.join(' ')).not.toMatch(/the answer is the record/);
  });

  it('synthesized: the record read with both path values as arguments, the login as a Basic slot', () => {
    const r = synthesize({
      recording: page,
      hints: { arguments: { vhost: 'orchard', queue: 'pickers' }, secrets: { account: 's1' } },
      secretValues: login,
    });
    const text = JSON.stringify(r.definition);
    expect(text).toContain('/api/queues/{{args.vhost | urlencode}}/{{args.queue | urlencode}}');
    expect(text).not.toContain('/bindings');
    expect(text).toContain('Basic {{secrets.account.basic}}');
  });
});

describe("a NEW user's password set in an admin form", () => {
  const form = har(
    { url: `${O}/api/users`, headers: AUTH, body: [{ name: 'seed', tags: ['administrator'] }] },
    {
      method: 'PUT',
      url: `${O}/api/users/picker1`,
      headers: AUTH,
      json: { username: 'picker1', password: 'Pk-pass-1!', tags: 'management' },
      status: 201,
      body: '',
      mime: 'text/plain',
    },
  );

  it('given as an argument, it is an input (written only), not a login typed by hand', () => {
    const r = synthesize({
      recording: form,
      hints: { arguments: { username: 'picker1', password: 'Pk-pass-1!', tags: 'management' }, secrets: { account: 's1' } },
      secretValues: login,
    });
    expect(JSON.stringify(r.definition)).toContain('"password":"{{args.password}}"');
    expect(r.input_schema.properties.password).toEqual({
      type: 'string',
      format: 'password',
      writeOnly: true,
      description: 'password (a password, sent as json "password")',
    });
    // (the schema never echoes the recorded password; the signed-in one is the only slot)
    expect(JSON.stringify(r.input_schema)).not.toContain('Pk-pass-1!');
    expect(r.required_secrets.map((s) => s.name)).toEqual(['account']);
    expect(JSON.stringify(r)).not.toContain('Sentinel-Pw-9');
  });

  it('not given as an argument, it stays a credential typed by hand: kept out of the definition', () => {
    const r = synthesize({
      recording: form,
      hints: { arguments: { username: 'picker1' }, secrets: { account: 's1' } },
      secretValues: login,
    });
    expect(JSON.stringify(r.definition)).not.toContain('Pk-pass-1!');
  });
});
