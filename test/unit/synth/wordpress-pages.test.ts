// Synthesis stages on pages recorded from a fourth real application, WordPress (Debian package;
// test/fixtures/real/record.ts): a pagination chain that starts after a home page of the same
// endpoint, a next link found by its own class rather than its position, a record's numeric id kept
// out of selectors, a list table's selection column and hidden quick-edit data, and an admin-ajax
// form post (urlencoded text, XML answer) recognised as the target.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { filterNoise } from '../../../src/synth/noise.js';
import { normalize } from '../../../src/synth/normalize.js';
import { detectPaging, scoreTargets } from '../../../src/synth/target.js';
import { savedPage, synthSaved } from '../../helpers/saved-recordings.js';

const FIX = path.join(__dirname, '../../fixtures/real/wordpress');
const load = (f: string) => JSON.parse(fs.readFileSync(path.join(FIX, f), 'utf8'));
const page = (f: string, part: string): string =>
  load(f).log.entries.find((x: any) => x.request.url.includes(part) && /html/.test(x.response.content.mimeType) && x.response.content.text)
    .response.content.text;
const run = (x: ReturnType<typeof extractHtml>, html: string) =>
  extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't');

describe('WordPress pages', () => {
  it('pagination is the chain of next links ending at the target; the home page before it is no sample', () => {
    const xs = normalize(load('wp-search.har')).exchanges;
    const target = xs.find((x) => x.url.includes('paged=2'))!;
    const { paging, samples } = detectPaging(target, xs);
    expect(paging).toEqual({ mode: 'next_url', selector: 'a.next[href]' });
    expect(samples.map((x) => new URL(x.url).search)).toEqual(['?s=orchard', '?paged=2&s=orchard']);
  });

  it('a post page: a numbered id (#post-6) never names the record; title and content', () => {
    const html = page('wp-post.har', '?p=6');
    const x = extractHtml(html);
    expect(JSON.stringify(x!.extractor)).not.toMatch(/post-6/);
    const r = run(x, html) as any;
    expect(r.title).toBe('Cherry harvest notes');
    expect(r.content).toContain('The Cherry crop from the orchard was dark red this year.');
  });

  it("a list table: the selection column, each cell's hidden quick-edit data and its row actions are not values", () => {
    const html = page('wp-admin-posts.har', 'edit.php');
    const x = extractHtml(html);
    const items = run(x, html) as any[];
    expect(Object.keys(items[0])).not.toContain('select_all');
    expect(items[0].title).not.toMatch(/publish|open/);
    // The row actions after the title link ("Edit | Quick Edit | Trash | View") are the same in every row.
    expect(items.map((i) => i.title)).toContain('Fig harvest notes');
    expect(items.every((i) => !/Quick Edit/.test(i.title))).toBe(true);
    expect(items[0].title_url).toMatch(/post=\d+&action=edit/);
  });

  it('an admin-ajax form post sent as urlencoded text with an XML answer is the target (typed values found after decoding)', () => {
    const xs = filterNoise(normalize(load('wp-add-category.har')).exchanges).kept;
    const [best] = scoreTargets(xs, {
      argValues: ['stone fruit', 'fruit with a pit'],
      resultValues: [],
      secretCarriers: new Set(),
      lastActionTime: null,
    });
    expect(best.exchange.body?.text).toContain('action=add-tag');
    expect(best.reasons.join(';')).toMatch(/XML response.*carries typed value/);
  });

  it("a post trashed from the list: the row's own link, read by the title (not its hidden quick-edit copy), over the heartbeat after it", () => {
    const stamp = '1796329156341';
    const d = synthSaved(
      'wordpress',
      'wp-trash-live',
      { post: `Graft the apple stock ${stamp}` },
      { username: 'admin', password: 'wp-admin-pass-1' },
    );
    const steps = d.definition.steps as any[];
    // (The heartbeat admin-ajax.php posts after the page loads, with every row's id: chatter.)
    const target = steps.find((s) => s.note === 'target');
    expect(target).toMatchObject({ url: '/wp-admin/post.php', query: { action: 'trash' } });
    // (The post and its nonce — one per post — are read from the row the argument names.)
    const list = steps.find((s) => s.url === '/wp-admin/edit.php');
    const html = savedPage('wordpress', 'wp-trash-live', /\/wp-admin\/edit\.php$/);
    const lookup = (path: string[]) => (path.join('.') === 'args.post' ? `Thin the peach fruit ${stamp}` : undefined);
    const read = (t: string) => {
      const name = /\{\{vars\.(\w+)/.exec(t)![1]!;
      return extractValue(list.extract[name], new View({ url: 'http://x/', status: 200, text: html }), 't', lookup);
    };
    const link = html.match(new RegExp(`post=(\\d+)&amp;action=edit" aria-label="Edit &#8220;Thin the peach fruit ${stamp}`))!;
    expect(read(target.query.post)).toBe(link[1]);
    expect(read(target.query._wpnonce)).toBe(html.match(new RegExp(`post=${link[1]}&amp;action=trash&amp;_wpnonce=(\\w+)`))![1]);
  });

  it("a category deleted by the row's link that the page's script posts: the id and nonce it posts are read from the named row's link", () => {
    const stamp = '1796330088489';
    const d = synthSaved(
      'wordpress',
      'wp-delete-category-live',
      { category: `Stone fruit ${stamp}` },
      { username: 'admin', password: 'wp-admin-pass-1' },
    );
    const steps = d.definition.steps as any[];
    const target = steps.find((s) => s.note === 'target');
    expect(target).toMatchObject({ method: 'POST', url: '/wp-admin/admin-ajax.php' });
    expect(target.body.form ?? target.body.text).toBeTruthy();
    const list = steps.find((s) => s.url?.startsWith('/wp-admin/edit-tags.php'));
    const html = savedPage('wordpress', 'wp-delete-category-live', /edit-tags\.php\?taxonomy=category$/);
    const lookup = (path: string[]) => (path.join('.') === 'args.category' ? `Citrus ${stamp}` : undefined);
    const read = (name: string) => extractValue(list.extract[name], new View({ url: 'http://x/', status: 200, text: html }), 't', lookup);
    const body = JSON.stringify(target.body);
    const vars = [...body.matchAll(/\{\{vars\.(\w+)/g)].map((m) => m[1]!);
    // (The row's delete link: `…action=delete&taxonomy=category&tag_ID=N&_wpnonce=…`.)
    const [, id, nonce] = html.match(
      new RegExp(`tag_ID=(\\d+)&amp;_wpnonce=(\\w+)" class="delete-tag aria-button-if-js" aria-label="Delete &#8220;Citrus ${stamp}`),
    )!;
    expect(vars.map(read).sort()).toEqual([id, nonce].sort());
  });
});
