// visibleText tests each element against what HIDDEN_TEXT and DISMISS select without a selector
// engine (it runs on every cell of every page): on every element of the saved real pages, and on
// a page of every hiding convention, its text is what the selectors leave.
import fs from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { DISMISS, HIDDEN_TEXT, visibleText } from '../../src/runtime/worker/engines/extract.js';

const NOT_TEXT = `${HIDDEN_TEXT}, select, datalist, ${DISMISS}`;
/** What the selectors leave: the element cloned, every match removed. */
const bySelectors = (node: cheerio.Cheerio<any>) => {
  const c = node.clone();
  c.find(NOT_TEXT).remove();
  return c.text();
};
const REAL = path.join(__dirname, '../fixtures/real');
const pages = fs
  .readdirSync(REAL, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => fs.readdirSync(path.join(REAL, d.name)).map((f) => path.join(REAL, d.name, f)))
  .filter((f) => f.endsWith('.html'));

describe('visibleText', () => {
  it.each(pages.map((p) => [path.relative(REAL, p), p]))('agrees with the selectors on every element of %s', (_, file) => {
    // (The page's own style rules are another source of hiding, tested apart: left out here.)
    const $ = cheerio.load(fs.readFileSync(file, 'utf8').replace(/<style[\s\S]*?<\/style>/gi, ''));
    const all = $('body *').toArray();
    expect(all.length).toBeGreaterThan(50);
    for (const el of all) expect(visibleText($(el))).toBe(bySelectors($(el)));
  });

  it('leaves out every hiding convention, and only those', () => {
    const $ = cheerio.load(`<div id="x">a<script>s</script><style>.q{}</style><template>t</template><noscript>n</noscript>
      <span hidden>h</span><span aria-hidden="true">ah</span><span aria-hidden="false">b</span><span style="display:none">d1</span>
      <span style="color:red; display: none">d2</span><span style="display:block">c</span><span class="x hidden">hc</span>
      <span class="sr-only">sr</span><span class="screen-reader-text">srt</span><span class="visually-hidden">vh</span>
      <span class="hidden-xs">e</span><select><option>o</option></select><datalist><option>dl</option></datalist>
      <button data-dismiss="alert">×</button><button data-bs-dismiss="toast">×</button><button aria-label="Close">x</button>
      <button aria-label="Close menu">f</button><a title="Remove this message" href="/">[X]</a><a title="Remove" href="/">g</a>
      <!-- comment -->z</div>`);
    const text = visibleText($('#x')).replace(/\s+/g, '');
    expect(text).toBe('abcefgz');
    expect(text).toBe(bySelectors($('#x')).replace(/\s+/g, ''));
  });
});
