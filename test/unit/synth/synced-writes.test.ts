// A single-page app that syncs what the person edits as they go (the shapes TiddlyWiki showed:
// test/acceptance/tiddlywiki.test.ts): drafts saved and deleted under a name that embeds the
// record's title, writes that carry the person's account name as data (`creator: seed`), media
// types sent back as the list of records held them, and a sign-in the browser made out of the
// recording's sight (HTTP Basic). Each case fails on the code before this file.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://wiki.test';
const LOGIN = { account: { type: 'login' as const, username: 'seed', password: 'tw-pass-1', totp_secret: null } };
const hints = (args: Record<string, string>) => ({ arguments: args, secrets: { account: 'sec_1' }, allow_side_effects: true });
const list = [
  { title: 'Apple Scab', creator: 'seed', type: 'text/vnd.tiddlywiki', tags: 'Diseases', revision: 0 },
  { title: 'Codling Moth', creator: 'seed', type: 'text/vnd.tiddlywiki', tags: 'Pests', revision: 0 },
];
const tiddler = (title: string, more: Record<string, unknown> = {}) => ({
  title,
  text: '',
  tags: [],
  created: '20261101090000000',
  creator: 'seed',
  modified: '20261129172905615',
  modifier: 'seed',
  type: 'text/vnd.tiddlywiki',
  ...more,
});
const put = (title: string, json: unknown) => ({
  method: 'PUT',
  url: `${O}/recipes/default/tiddlers/${encodeURIComponent(title)}`,
  headers: { 'X-Requested-With': 'TiddlyWiki' },
  json,
  status: 204,
  body: '',
  mime: 'text/plain',
});
const del = (title: string) => ({
  method: 'DELETE',
  url: `${O}/bags/default/tiddlers/${encodeURIComponent(title)}`,
  headers: { 'X-Requested-With': 'TiddlyWiki' },
  status: 204,
  body: '',
  mime: 'text/plain',
});
const story = (list: string) => put('$:/StoryList', tiddler('$:/StoryList', { fields: { list } }));

describe('writes of an app that syncs as the person edits', () => {
  it('deletes the record, not its draft: the DELETE of "Draft of \'Apple Scab\' by seed" carries the title only inside a longer name', () => {
    const r = synthesize({
      recording: har(
        { url: `${O}/recipes/default/tiddlers.json`, body: list },
        put("Draft of 'Apple Scab' by seed", tiddler("Draft of 'Apple Scab' by seed", { fields: { 'draft.of': 'Apple Scab' } })),
        story("[[Draft of 'Apple Scab' by seed]]"),
        del('Apple Scab'),
        del("Draft of 'Apple Scab' by seed"),
      ),
      hints: hints({ title: 'Apple Scab' }),
      secretValues: LOGIN,
    });
    const steps = (r.definition as any).steps;
    expect(steps.at(-1).method).toBe('DELETE');
    expect(steps.at(-1).url).toBe('/bags/default/tiddlers/{{args.title | urlencode}}');
    expect(r.report.targets[0]!.reasons.join(' ')).not.toMatch(/only inside a longer value/);
    // (The draft's DELETE says why it lost.)
    expect(JSON.stringify(r.report)).toContain('Draft%20of');
  });

  it("the account's name sent as data (creator, modifier) makes no request a sign-in: the browser's HTTP Basic sign-in is answered", () => {
    const r = synthesize({
      recording: har(
        { url: `${O}/recipes/default/tiddlers.json`, body: list },
        story('GettingStarted'),
        put('Pear Rust', tiddler('Pear Rust', { text: 'Orange spots.', tags: ['Diseases'] })),
      ),
      hints: hints({ title: 'Pear Rust', text: 'Orange spots.' }),
      secretValues: LOGIN,
    });
    const def = r.definition as any;
    expect(def.login).toBeUndefined();
    expect(def.basic_auth).toBe('account');
    expect(r.report.login).toEqual([]);
    const body = def.steps.at(-1).body.json;
    expect(body.creator).toBe('{{secrets.account.username}}');
    expect(body.text).toBe('{{args.text}}');
    expect(JSON.stringify(def)).not.toContain('tw-pass-1');
  });

  it('a username typed into a sign-in form beside its password still makes that request the login', () => {
    const r = synthesize({
      recording: har(
        { method: 'POST', url: `${O}/login`, form: { username: 'seed', password: 'tw-pass-1' }, location: `${O}/` },
        put('Pear Rust', tiddler('Pear Rust', { text: 'Orange spots.' })),
      ),
      hints: hints({ title: 'Pear Rust', text: 'Orange spots.' }),
      secretValues: LOGIN,
    });
    const def = r.definition as any;
    expect(def.basic_auth).toBeUndefined();
    expect(def.login.steps[0].url).toBe('/login');
  });

  it("a media type the list of records held (`text/vnd.tiddlywiki`) is sent as recorded, not read from a record's place", () => {
    const r = synthesize({
      recording: har(
        { url: `${O}/recipes/default/tiddlers.json`, body: list },
        put('Pear Rust', tiddler('Pear Rust', { text: 'Orange spots.', type: 'text/x-markdown' })),
        put('Plum Pox', tiddler('Plum Pox', { text: 'Rings on leaves.' })),
      ),
      hints: hints({ title: 'Plum Pox', text: 'Rings on leaves.' }),
      secretValues: LOGIN,
    });
    const def = r.definition as any;
    expect(def.steps).toHaveLength(1);
    expect(def.steps[0].body.json.type).toBe('text/vnd.tiddlywiki');
  });
});
