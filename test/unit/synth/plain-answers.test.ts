// A write answered in a few words of plain text (Node-RED's inject answers "OK"; a job queue's
// "Job 17 queued"): the run returns what the site said. And a plain recording of pressing one
// button, with nothing typed and no action log: the press is the target, not the page's loading.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://site.test';
const editorLoad = [
  { url: `${O}/`, html: '<html><body><div id="editor"></div></body></html>' },
  { url: `${O}/settings`, body: { version: '4.1', user: { name: 'seed' } } },
  { method: 'POST', url: `${O}/settings/user`, json: { view: { grid: true } }, body: '', mime: 'text/plain' },
  { url: `${O}/flows`, body: { rev: 'a1', flows: [{ id: 'n1', type: 'inject', name: 'Water the orchard' }] } },
];

describe('a write answered with a short plain text', () => {
  it('returns the text beside the status; the extractor reads a later answer the same way', () => {
    const r = synthesize({
      recording: har(...editorLoad, {
        method: 'POST',
        url: `${O}/jobs/n1/run`,
        json: {},
        body: 'Job 17 queued\n',
        mime: 'text/plain; charset=utf-8',
      }),
      hints: { arguments: { job: 'n1' } },
    });
    const d = r.definition as HttpDefinition;
    expect(d.result).toEqual({ message: '{{vars.message}}', status: '{{vars.status}}', url: '{{vars.url}}' });
    const message = d.steps.at(-1)!.extract!.message;
    const read = (text: string) => extractValue(message, new View({ status: 200, url: `${O}/x`, text }), 'message');
    expect(read('  Job 18 queued \n')).toBe('Job 18 queued');
    // (An HTML page in its place is no message: left out, not the page's markup.)
    expect(read('<html><body>Error</body></html>')).toBeNull();
    expect(r.output_schema.required).not.toContain('message');
  });

  it('keeps status and URL alone for an empty answer or a markup one', () => {
    for (const body of ['', '{"ok":']) {
      const r = synthesize({
        recording: har({ method: 'POST', url: `${O}/jobs/n1/run`, form: { job: 'n1' }, body, mime: 'text/plain' }),
        hints: { arguments: { job: 'n1' } },
      });
      expect((r.definition as HttpDefinition).result).toEqual({ status: '{{vars.status}}', url: '{{vars.url}}' });
    }
  });
});

describe('a plain recording of pressing one button (nothing typed, no action log)', () => {
  it('makes the last write the target, not the JSON the page loaded before it', () => {
    const r = synthesize({
      recording: har(...editorLoad, { method: 'POST', url: `${O}/inject/n1`, json: {}, body: 'OK', mime: 'text/plain' }),
    });
    expect(r.report.targets[0].url).toBe(`${O}/inject/n1`);
    expect(r.report.targets[0].reasons.join(' ')).toMatch(/last write of a recording with nothing typed/);
  });

  it("not a page's background chatter: a long poll, a heartbeat, or a write sent again to the same endpoint", () => {
    const last = (...tail: Parameters<typeof har>) => synthesize({ recording: har(...editorLoad, ...tail) }).report.targets[0].url;
    expect(last({ method: 'POST', url: `${O}/message-bus/3f2a/poll`, form: { '/latest': '12' }, body: 'OK', mime: 'text/plain' })).toBe(
      `${O}/flows`,
    );
    expect(
      last({ method: 'POST', url: `${O}/admin-ajax.php`, form: { action: 'heartbeat', interval: '60' }, body: 'OK', mime: 'text/plain' }),
    ).toBe(`${O}/flows`);
    // (A word in a body is no sign: a poll app's new poll is what the person did.)
    expect(last({ method: 'POST', url: `${O}/api/polls`, json: { title: 'Best pear poll' }, body: 'Created', mime: 'text/plain' })).toBe(
      `${O}/api/polls`,
    );
    const save = { method: 'POST', url: `${O}/settings/user`, json: { view: { grid: false } }, body: '', mime: 'text/plain' } as const;
    expect(last(save)).toBe(`${O}/flows`);
  });

  it("not a widget's call the page went on from (WordPress's dashboard events before Tools → Export), nor an aborted one", () => {
    const r = synthesize({
      recording: har(
        { url: `${O}/admin/`, html: '<html><body><div id="events"></div></body></html>', at: 0 },
        { method: 'POST', url: `${O}/admin/ajax`, form: { action: 'get-community-events' }, body: { events: [] }, at: 500 },
        {
          url: `${O}/admin/export`,
          html: '<html><body><form action="/admin/export"><select name="content"></select></form></body></html>',
          at: 9000,
        },
        {
          url: `${O}/admin/export?download=true&content=all`,
          body: '<rss><item>Pear</item></rss>',
          mime: 'text/xml',
          type: 'document',
          at: 12000,
        },
      ),
    });
    expect(r.report.targets[0].url).toBe(`${O}/admin/export?download=true&content=all`);
    const aborted = synthesize({
      recording: har(...editorLoad, { method: 'POST', url: `${O}/inject/n1`, json: {}, body: '', status: -1, mime: 'x-unknown' }),
    });
    expect(aborted.report.targets[0].url).toBe(`${O}/flows`);
  });

  it('a switch whose page then fetches again the list it shows (Unleash reloads its flag table after the POST …/on)', () => {
    const list = { url: `${O}/api/flags?limit=25`, body: { flags: [{ name: 'frost-alerts', enabled: false }] } };
    const r = synthesize({
      recording: har(
        { ...list, at: 0 },
        { method: 'POST', url: `${O}/api/flags/frost-alerts/environments/development/on`, body: '', mime: 'x-unknown', at: 2000 },
        { ...list, body: { flags: [{ name: 'frost-alerts', enabled: true }] }, at: 2100 },
      ),
    });
    expect(r.report.targets[0].url).toBe(`${O}/api/flags/frost-alerts/environments/development/on`);
    // (A read of something the page had not loaded before is the person going on: no "last write".)
    const on = synthesize({
      recording: har(
        { ...list, at: 0 },
        { method: 'POST', url: `${O}/api/flags/frost-alerts/environments/development/on`, body: '', mime: 'x-unknown', at: 2000 },
        { url: `${O}/api/flags/frost-alerts/strategies`, body: { strategies: [{ name: 'default' }] }, at: 2100 },
      ),
    });
    expect(on.report.targets[0].reasons.join(' ')).not.toMatch(/last write of a recording/);
  });

  it('a form submitted as a page (a post/redirect/get) with the page it led to after it', () => {
    const r = synthesize({
      recording: har(
        {
          url: `${O}/jobs`,
          html: '<html><body><form method="post" action="/jobs/run"><button>Run now</button></form></body></html>',
          at: 0,
        },
        {
          method: 'POST',
          url: `${O}/jobs/run`,
          form: { go: '1' },
          type: 'document',
          status: 303,
          location: '/jobs?ran=1',
          html: '',
          at: 4000,
        },
        { url: `${O}/jobs?ran=1`, html: '<html><body><p class="notice">Job queued</p></body></html>', at: 4100 },
      ),
    });
    expect(r.report.targets[0].url).toBe(`${O}/jobs/run`);
  });

  it('leaves a write that a read followed (a token fetched for the call after it) to the read', () => {
    const r = synthesize({
      recording: har(
        { method: 'POST', url: `${O}/api/token`, json: { client: 'web' }, body: { access_token: 'eyJhbGciOi9x8y7z6', ttl: 3600 } },
        { url: `${O}/api/me`, headers: { Authorization: 'Bearer eyJhbGciOi9x8y7z6' }, body: { name: 'Ann', email: 'ann@shop.test' } },
      ),
    });
    expect(r.report.targets[0].url).toBe(`${O}/api/me`);
  });

  describe('reads a page made together at the end (a tab that loads its table and a side panel)', () => {
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: i,
        subject: `Message ${i}`,
        score: i * 1.5,
        action: 'no action',
        sender: `s${i}@a.test`,
      }));
    const boot = [
      { url: `${O}/`, html: '<html><body><div id="app"></div></body></html>', at: 0 },
      { url: `${O}/api/plugins`, body: { list: rows(20) }, at: 300 },
      { url: `${O}/api/stat`, body: { scanned: 4, learned: 1 }, at: 320 },
    ];
    it('the fullest is the content, not the last (Rspamd: its history, then its error log)', () => {
      const r = synthesize({
        recording: har(
          ...boot,
          { url: `${O}/api/history`, body: { rows: rows(6) }, at: 4000 },
          { url: `${O}/api/errors`, body: [{ ts: 1, type: 'dns' }], at: 4010 },
        ),
      });
      expect(r.report.targets[0].url).toBe(`${O}/api/history`);
    });
    it('an earlier burst (the app starting) is not what the recording ends on; nor reads of like size', () => {
      const r = synthesize({ recording: har(...boot, { url: `${O}/api/history`, body: { rows: rows(2) }, at: 4000 }) });
      expect(r.report.targets[0].url).toBe(`${O}/api/history`);
      const alike = synthesize({
        recording: har(
          ...boot,
          { url: `${O}/api/history`, body: { rows: rows(2) }, at: 4000 },
          { url: `${O}/api/queue`, body: { rows: rows(2) }, at: 4010 },
        ),
      });
      expect(alike.report.targets[0].url).toBe(`${O}/api/queue`);
      // (A recording that wrote something: the write is the point, not the reads around it.)
      const wrote = synthesize({
        recording: har(
          ...boot,
          { method: 'POST', url: `${O}/api/jobs/7/run`, json: {}, body: { queued: true }, at: 3000 },
          { url: `${O}/api/history`, body: { rows: rows(6) }, at: 4000 },
          { url: `${O}/api/errors`, body: [{ ts: 1, type: 'dns' }], at: 4010 },
        ),
      });
      expect(wrote.report.targets.map((t) => t.reasons.join()).join()).not.toContain('the fullest of the JSON reads');
    });
  });
});
