// Synthesis on recordings saved from a forty-fifth real application, ikiwiki (a wiki compiler in
// Perl: static pages and one CGI; scripts/acceptance-setup.sh), and the rules its pages showed:
// list records among siblings that are not records, a page titled only by an element showing the
// document's <title>, a post's comments returned with the post, and search hits in an old-style
// table whose first cells read "Modified: … Size: …" (data, not labels).
import { describe, expect, it } from 'vitest';
import { readRule as read, savedPage, synthSaved } from '../../helpers/saved-recordings.js';

const synth = (name: string, args: Record<string, string>) => synthSaved('ikiwiki', name, args);
const defOf = (name: string, args: Record<string, string>) => synth(name, args).definition;
const pageOf = (name: string, part: RegExp) => savedPage('ikiwiki', name, part);

describe("ikiwiki's pages", () => {
  it("a tag's page: its entries, each a title, link and date, not the empty feed-link box beside them", () => {
    const def = defOf('ik-tag', { tag: 'network' });
    expect(def.steps.at(-1).url).toBe('/tags/{{args.tag | urlencode}}/');
    const items = read(def.steps.at(-1).extract.items, pageOf('ik-tag', /tags\/network/));
    expect(items.map((i: any) => [i.title, i.url, i.date])).toEqual([
      ['Read your mail', '../../howto/email/', '2026-03-06 14:00'],
      ['Join the wireless network', '../../howto/wifi/', '2026-03-04 12:00'],
      ['Connect to the VPN', '../../howto/vpn/', '2026-03-02 10:00'],
    ]);
  });

  it("a page without a heading: its title is the one element showing the document's <title>", () => {
    const def = defOf('ik-guide', { page: 'vpn' });
    const rec = read(def.steps.at(-1).extract.record, pageOf('ik-guide', /howto\/vpn/));
    expect(rec.title).toBe('Connect to the VPN');
    expect(rec.content.split('\n')[0]).toBe('Connect to the office VPN before opening any internal dashboard.');
    expect(rec.content).not.toMatch(/Northwind Handbook|RecentChanges|Tags:/);
  });

  it("a post's page: the post and, under the name of their container, the comments that follow it", () => {
    const r = synth('ik-post', { post: 'kitchen-reopens' });
    const def = r.definition;
    const last = def.steps.at(-1);
    const page = pageOf('ik-post', /posts\/kitchen-reopens/);
    expect(def.result).toEqual({ title: '{{vars.record.title}}', content: '{{vars.record.content}}', comments: '{{vars.thread}}' });
    expect(read(last.extract.record, page)).toEqual({
      title: 'The kitchen reopens',
      content: 'The second-floor kitchen reopens on Monday with a new coffee machine and a second fridge.',
    });
    const comments = read(last.extract.thread, page);
    expect(comments.map((c: any) => [c.comment_subject, c.inlinecontent, c.author, c.date])).toEqual([
      ['Tea?', 'Does the new machine make tea as well?', 'ada', '2026-04-01 10:00'],
      ['Hot water', 'It has a hot water tap, so yes.', 'chidi', '2026-04-01 11:00'],
      ['Labels', 'Please label what you leave in the fridges.', 'bea', '2026-04-01 12:00'],
    ]);
    // (The output schema says so: the comments are a list of records, always there, maybe empty.)
    expect(r.output_schema.required).toEqual(['title', 'content', 'comments']);
    expect(r.output_schema.properties.comments.type).toBe('array');
  });

  it("search hits in omega's table: a record per row, its first cell's labelled values split, not a label/value block", () => {
    const def = defOf('ik-search', { P: 'printer' });
    const items = read(def.steps.at(-1).extract.items, pageOf('ik-search', /P=printer/));
    expect(items).toHaveLength(3);
    expect(items.map((i: any) => [i.name, i.modified, i.size])).toEqual([
      ['posts/new-printer', '2026-04-08', '97 bytes'],
      [expect.stringMatching(/^recentchanges\/change [0-9a-f]{40}$/), '2026-04-08', '944 bytes'],
      ['howto/printing', '2026-03-11', '326 bytes'],
    ]);
    expect(items[0].name_url).toBe('./posts/new-printer/');
    expect(items[2].name_text).toContain('Heron jams on card stock');
  });
});
