// Synthesis on a recording saved from a forty-first real application, Supervisor 4.2's web interface
// (Debian's supervisor; scripts/acceptance-setup.sh), and the general rules it showed: a link that
// acts (`index.html?processname=…&action=stop`, a GET answered by a redirect) is a write, not a read;
// the outcome is the text the landing page's own address carries (`/?message=Process … stopped`),
// whatever the markup around it; and a cell's text reads as laid out, not as the template indents it.
import fs from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { readableText } from '../../../src/runtime/worker/engines/extract.js';
import { addressedTexts, outcomeMessage } from '../../../src/synth/html-outcome.js';
import { synthesize } from '../../../src/synth/index.js';
import { isActionLink, isRead, normalize } from '../../../src/synth/normalize.js';
import { entry, har } from '../../helpers/har-fragment.js';

const saved = (name: string) => JSON.parse(fs.readFileSync(path.join(__dirname, `../../fixtures/real/supervisor/${name}.har`), 'utf8'));
const O = 'http://ops.test';
const recordingOf = (...entries: ReturnType<typeof entry>[]) => {
  const rec = har();
  rec.log.entries.push(...entries);
  return rec;
};
/** A GET answered by a redirect to `to`, then the page there. */
const redirected = (url: string, to: string, html = '<html><body><p>Done.</p></body></html>') => [
  entry({ url, location: to, status: 302, type: 'document' }, 1),
  entry({ url: new URL(to, url).href, html }, 2),
];
const linkOf = (url: string, to: string, html?: string) => normalize(recordingOf(...redirected(url, to, html))).exchanges[0]!;

describe("Supervisor's action links", () => {
  it('a stop link, recorded: a write whose outcome is the message its landing address carries', () => {
    const r = synthesize({ recording: saved('sv-stop'), hints: { arguments: { processname: 'webs:web-b' } } });
    const def = r.definition as any;
    const step = def.steps.at(-1);
    expect(step.query).toEqual({ processname: '{{args.processname}}', action: 'stop' });
    expect(Object.keys(step.extract)).toEqual(['message']);
    expect(def.result).toEqual({ message: '{{vars.message}}' });
    // (A write: the validation replay must not stop a process unasked.)
    expect(r.report.side_effects).toBe(true);
  });

  it("the status page itself stays a read of its table, without the column of each row's action links", () => {
    const r = synthesize({ recording: saved('sv-status'), hints: { result: ['webs:web-b'] } });
    expect(r.report.side_effects).toBe(false);
    expect(Object.keys((r.definition as any).steps.at(-1).extract.items.fields)).toEqual(['state', 'description', 'name', 'name_url']);
  });

  it('a column of links that are values (each row its own words) stays data', () => {
    const row = (n: string, tags: string[]) =>
      `<tr><td>${n}</td><td>${tags.map((t) => `<a href="/tag/${t}">${t}</a>`).join(' ')}</td><td><a href="/e/${n}">Edit</a> <a href="/d/${n}">Delete</a></td></tr>`;
    const page = `<html><body><main><table><thead><tr><th>Name</th><th>Tags</th><th>Actions</th></tr></thead><tbody>
      ${row('pear', ['fruit', 'green'])}${row('plum', ['stone', 'purple'])}${row('fig', ['sweet', 'dried'])}</tbody></table></main></body></html>`;
    const r = synthesize({
      recording: recordingOf(entry({ url: `${O}/items`, html: page, type: 'document' })),
      hints: { result: ['plum'] },
    });
    const fields = Object.keys((r.definition as any).steps.at(-1).extract.items.fields);
    expect(fields).toEqual(expect.arrayContaining(['name', 'tags', 'tags_url']));
    expect(fields).not.toContain('actions');
  });

  it('is told from reads that redirect, links to forms and session links', () => {
    expect(isActionLink(linkOf(`${O}/index.html?processname=web&action=stop`, '/?message=Process%20web%20stopped'))).toBe(true);
    expect(isActionLink(linkOf(`${O}/index.html?processname=web&action=clearlog`, '/'))).toBe(true);
    expect(isActionLink(linkOf(`${O}/post.php?post=5&action=trash&_wpnonce=ab12`, '/edit.php?trashed=1'))).toBe(true);
    expect(isActionLink(linkOf(`${O}/jobs?op=cancelAll`, '/jobs'))).toBe(true);
    // (Reads: a canonical redirect, a tab named by a word that only begins like a verb, a search.)
    expect(isActionLink(linkOf(`${O}/docs?lang=en`, '/docs/?lang=en'))).toBe(false);
    expect(isActionLink(linkOf(`${O}/admin?tab=settings`, '/admin/settings'))).toBe(false);
    expect(isActionLink(linkOf(`${O}/index.php?action=search&q=pear`, '/search/pear'))).toBe(false);
    expect(isActionLink(linkOf(`${O}/tasks?sort=start_date`, '/tasks/?sort=start_date'))).toBe(false);
    expect(isActionLink(linkOf(`${O}/admin?tab=import`, '/admin/import'))).toBe(false);
    // (The session's own links, and an address that redirects to itself.)
    expect(isActionLink(linkOf(`${O}/index.php?action=logout`, '/login'))).toBe(false);
    // (Not redirected: a link to a form, `?action=edit` answered by the form.)
    const form = normalize(
      recordingOf(entry({ url: `${O}/page?action=delete&id=4`, html: '<form method=post><button>Delete</button></form>' })),
    ).exchanges[0]!;
    expect(isActionLink(form)).toBe(false);
    expect(isRead(form)).toBe(true);
  });
});

describe('the landing address carries the message', () => {
  it('marks the element that shows those words, whatever its class', () => {
    const page = (msg: string) =>
      `<html><body><div id="top"><h1>Jobs</h1></div><div class="zz-b7">${msg}</div><table><tr><td>job 1</td></tr></table></body></html>`;
    const said = outcomeMessage(page('Backup job queued for tonight'), [page('')], `${O}/jobs?note=Backup%20job%20queued%20for%20tonight`)!;
    expect(said.text).toBe('Backup job queued for tonight');
    // (No such words in the address: that box is no message.)
    expect(outcomeMessage(page('Backup job queued for tonight'), [page('')], `${O}/jobs?id=4`)).toBeNull();
  });

  it('takes query values of several words, not ids, tokens or single words', () => {
    expect(addressedTexts(`${O}/?message=Process%20web%20stopped&id=4&tok=a8f9c0&status=ok`)).toEqual(['Process web stopped']);
    expect(addressedTexts('not a url')).toEqual([]);
  });
});

describe('a value read as laid out', () => {
  const text = (html: string, sel = 'td') => readableText(cheerio.load(html)(sel).first());
  it('a list of links in a cell: one per line, no template indentation, hidden links left out', () => {
    const cell = `<table><tr><td class="action">
      <ul>
        <li>
          <a href="?action=start">Start</a>
        </li>
        <li>
          <a class="hidden" href="#">Action</a>
        </li>
        <li>
          <a href="?action=clearlog">Clear Log</a>
        </li>
      </ul>
    </td></tr></table>`;
    expect(text(cell)).toBe('Start\nClear Log');
  });

  it('a line break in the source is a space; <br> and blocks begin lines; cells apart; <pre> as written', () => {
    expect(text('<table><tr><td>pid 6760,\n      uptime 0:00:08</td></tr></table>')).toBe('pid 6760, uptime 0:00:08');
    expect(text('<table><tr><td>held since<br>Tue Dec 1</td></tr></table>')).toBe('held since\nTue Dec 1');
    expect(text('<table><tr><td>a</td><td>b</td></tr></table>', 'tr')).toBe('a b');
    expect(text('<table><tr><td>&nbsp;&nbsp;assets:cash</td></tr></table>')).toBe('assets:cash');
    expect(text('<div><pre>line 1\n  indented\n\nlast</pre></div>', 'pre')).toBe('line 1\n  indented\n\nlast');
  });
});
