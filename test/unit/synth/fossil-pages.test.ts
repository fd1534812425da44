// Synthesis stages on pages recorded from a fifth real application, Fossil (Debian package; its
// wiki). A Fossil page has no <main>, <article>, <nav> or <footer>: its header (the project's name
// in an <h1>), menus and footer are plain <div>s that hold more text than a short wiki page. The
// site's other recorded page tells them apart as template.
import fs from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { mainBlock } from '../../../src/synth/html-detail.js';
import { siteTemplate } from '../../../src/synth/page-template.js';

const har = JSON.parse(fs.readFileSync(path.join(__dirname, '../../fixtures/real/fossil/fsl-wiki.har'), 'utf8'));
const page = (part: string): string =>
  har.log.entries.find((x: any) => x.request.url.includes(part) && /html/.test(x.response.content.mimeType)).response.content.text;
const cherry = page('wiki?name=Cherry');
const list = page('/wcontent');
const run = (x: ReturnType<typeof extractHtml>, html: string) =>
  extractValue(x!.extractor, new View({ url: 'http://x/', status: 200, text: html }), 't') as Record<string, unknown>;

describe('Fossil pages', () => {
  it("a wiki page's main block is its content, not <body>: the header, menus and footer are the other page's too", () => {
    const $ = cheerio.load(cherry);
    const main = mainBlock($, siteTemplate($, [list]).elements)!;
    expect(main.text()).toContain('An orchard fruit page about the cherry.');
    for (const chrome of ['Timeline', 'Unnamed Fossil Project', 'This page was generated']) expect(main.text()).not.toContain(chrome);
    // The control: without the other page, the menus and footer outweigh the content.
    expect(mainBlock($)!.is('body')).toBe(true);
  });

  it("the page's heading is its own <h1>, not the site's name in the header's", () => {
    const r = run(extractHtml(cherry, [], ['Cherry'], undefined, [list]), cherry);
    expect(r.title).toBe('Cherry');
    expect(JSON.stringify(r)).not.toMatch(/Unnamed Fossil Project|Timeline|generated in about/);
    expect(r).toMatchObject({ colour: 'Dark red', price_per_kg: 4.1 });
  });

  it('a page recorded twice is not all template: every text counts again', () => {
    const $ = cheerio.load(cherry);
    expect(mainBlock($, siteTemplate($, [cherry]).elements)!.is('body')).toBe(true);
  });
});
