// An editor that sends a record back whole (Ghost's PUT of a post): every field it did not change
// is read at run time from the record's own GET (the whole answer, with only the changed field
// set), so the run on ANOTHER record sends that record's body and its own `updated_at` (a stale
// one is refused); the
// signed-in person's email inside the record (its author) does not make the write login traffic.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { changedValue, chosenArgs, freshValues, pathNamingArgs, recordNamingArgs } from '../../../src/modules/connectors/replay.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'https://blog.test';
const ID = '6b0af91c11503d4dc666b50f';
const T = '2026-01-05T12:00:00.000Z';
const post = (id: string, title: string, at: string) => ({
  id,
  title,
  lexical: `{"root":{"children":[{"text":"Body of ${title} with enough words"}]}}`,
  created_at: at,
  updated_at: at,
  published_at: at,
  authors: [{ id: 'a1b2c3d4e5f6a7b8c9d0e1f2', email: 'owner@example.com' }],
});

function recording() {
  const mine = post(ID, 'Orchard diary 5', T);
  return har(
    {
      method: 'POST',
      url: `${O}/api/session`,
      json: { username: 'owner@example.com', password: 'S3ntinel-pw-1' },
      status: 201,
      setCookies: { sid: 's-0f9e8d7c6b5a' },
    },
    // A list where another post carries the same timestamps (an index of every post).
    {
      url: `${O}/api/posts/?limit=all`,
      cookies: { sid: 's-0f9e8d7c6b5a' },
      body: { posts: [post('ffffffffffffffffffffffff', 'Other', T), mine] },
    },
    { url: `${O}/api/posts/${ID}/?formats=lexical`, cookies: { sid: 's-0f9e8d7c6b5a' }, body: { posts: [mine] } },
    {
      url: `${O}/api/search-index/posts/`,
      cookies: { sid: 's-0f9e8d7c6b5a' },
      body: {
        posts: [
          { id: 'aaaaaaaaaaaaaaaaaaaaaaaa', published_at: T },
          { id: ID, published_at: T },
        ],
      },
    },
    {
      method: 'PUT',
      url: `${O}/api/posts/${ID}/?formats=lexical`,
      cookies: { sid: 's-0f9e8d7c6b5a' },
      json: { posts: [{ ...mine, title: 'Orchard diary 5 (new)' }] },
      body: { posts: [{ ...mine, title: 'Orchard diary 5 (new)', updated_at: '2026-11-28T16:00:00.000Z' }] },
    },
  );
}

describe('a record sent back whole', () => {
  const r = synthesize({
    recording: recording(),
    hints: { arguments: { post: ID, title: 'Orchard diary 5 (new)' }, secrets: { account: 'sec_1' }, allow_side_effects: true },
    secretValues: { account: { type: 'login', username: 'owner@example.com', password: 'S3ntinel-pw-1', totp_secret: null } },
  });
  const d = r.definition as HttpDefinition;
  const put = d.steps.at(-1)!;
  const get = d.steps.find((s) => s.url.includes('{{args.post') && (s.method ?? 'GET') === 'GET')!;

  it("is the target (the author's email in it is no login), with the record's GET before it", () => {
    expect(put.method).toBe('PUT');
    expect(put.url).toContain('{{args.post');
    expect(get).toBeDefined();
    expect(Object.keys(r.input_schema.properties as object).sort()).toEqual(['post', 'title']);
  });

  it('reads the record again at run time and sets only the changed field: its own updated_at, body and dates go back as the site holds them', () => {
    // (read-modify-write: the whole answer of the record's GET, not one var per field)
    expect(put.body).toEqual({
      json: { $patch: '{{vars.posts}}', set: [{ at: ['posts', { id: '{{args.post}}' }, 'title'], value: '{{args.title}}' }] },
    });
    expect((get.extract as any).posts.path).toBe('$');
    expect(JSON.stringify(d)).not.toContain('S3ntinel-pw-1');
  });
});

describe('the made-up value of the "one argument changed" replay keeps the form of an id', () => {
  it('numbers count up, hex ids and UUIDs change their last digit, other text gets a suffix', () => {
    expect(changedValue(41)).toBe(42);
    expect(changedValue('41')).toBe('42');
    expect(changedValue(ID)).toBe('6b0af91c11503d4dc666b500');
    expect(changedValue('123e4567-e89b-12d3-a456-426614174009')).toBe('123e4567-e89b-12d3-a456-42661417400a');
    expect(changedValue('ABCDEF0123456789')).toBe('ABCDEF012345678A');
    expect(changedValue('plum')).toBe('plumzq');
  });
});

describe('fresh values for a replay that writes', () => {
  it('are given to text a person wrote, never to an id (a fresh one would address nothing)', () => {
    const schema = { properties: { post: { type: 'string' }, title: { type: 'string' }, token: { type: 'string' } } };
    const fresh = freshValues(schema, { post: ID, title: 'Orchard diary 5', token: 'k3j4h5g6f7d8s9a0q1w2' });
    expect(fresh.map((f) => f.name)).toEqual(['title']);
  });

  it("nor to a drop-down's choice (a made-up label is no option) or an argument naming the record to act on", () => {
    const def = {
      steps: [
        { id: 'list', extract: { id: { from: 'css', selector: 'tr', fields: { name: {} }, where: { name: '{{args.device}}' } } } },
        {
          id: 'save',
          body: { form: { description: '{{args.label}}', host_template_id: '{{args.template | choose:[["Net-SNMP Device","8"]]}}' } },
        },
      ],
    };
    expect([...chosenArgs(def)]).toEqual(['template']);
    const schema = { properties: { device: { type: 'string' }, label: { type: 'string' }, template: { type: 'string' } } };
    const args = { device: 'Orchard Gateway', label: 'Orchard Gateway North', template: 'Net-SNMP Device' };
    const keep = new Set([...recordNamingArgs(def), ...chosenArgs(def)]);
    expect(freshValues(schema, args, false, keep).map((f) => f.name)).toEqual(['label']);
  });

  it("nor to an argument a read-modify-write's `$patch` selects its record by (Node-RED's node id in the flow document)", () => {
    const def = {
      steps: [
        {
          id: 'post_flows',
          body: {
            json: {
              $patch: '{{vars.flows}}',
              set: [{ at: ['flows', { id: '{{args.node}}' }, 'name'], value: '{{args.name}}' }],
            },
          },
        },
      ],
    };
    expect([...recordNamingArgs(def)]).toEqual(['node']);
    const schema = { properties: { node: { type: 'string' }, name: { type: 'string' } } };
    const keep = recordNamingArgs(def);
    expect(freshValues(schema, { node: 'inj_pick', name: 'Pick pears' }, false, keep).map((f) => f.name)).toEqual(['name']);
  });

  it("nor to an argument a POST the site reads as a DELETE addresses (Rails' `_method=delete`, a method-override header)", () => {
    const step = (extra: Record<string, unknown>) => ({
      steps: [{ id: 'post_issue', method: 'POST', url: '/issues/{{args.issue | urlencode}}', ...extra }],
    });
    const token = { authenticity_token: '{{vars.authenticity_token}}' };
    expect([...recordNamingArgs(step({ body: { form: { _method: 'delete', ...token } } }))]).toEqual(['issue']);
    expect([...recordNamingArgs(step({ body: { json: { _method: 'DELETE' } } }))]).toEqual(['issue']);
    expect([...recordNamingArgs(step({ headers: { 'X-HTTP-Method-Override': 'delete' } }))]).toEqual(['issue']);
    // (An edit through the same override, or a plain POST, names no record a replay must keep.)
    expect([...recordNamingArgs(step({ body: { form: { _method: 'patch', ...token } } }))]).toEqual([]);
    expect([...recordNamingArgs(step({ body: { form: token } }))]).toEqual([]);
  });

  it("names the page a read step's path addresses by an argument (GET /printers/{{args.printer}}), not a query's or a write's", () => {
    const def = {
      steps: [
        { id: 'list', url: '/printers/' },
        { id: 'page', url: '/printers/{{args.printer | urlencode}}?which={{args.which}}' },
        { id: 'save', method: 'POST', url: '/admin/{{args.section}}', body: { form: { printer_name: '{{args.printer}}' } } },
        { action: 'navigate', url: '/wiki/{{args.page}}' },
      ],
    };
    expect([...pathNamingArgs(def)]).toEqual(['printer']);
  });
});
