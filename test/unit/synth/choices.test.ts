// A filter chosen in a drop-down: the person (and hints.arguments) says "Open", the site sends the
// option's code (`status=1`). The connector takes the label, any other label of the drop-down, or
// the code itself.
import { describe, expect, it } from 'vitest';
import { choose, render } from '../../../src/formats/definition/template.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://tracker.test';
const FORM = `<html><body><form action="/issues"><input name="q">
  <select name="status"><option value="">Any</option><option value="1">Open</option><option value="2">In progress</option>
  <option value="5">Closed</option><option value="9">Odd | label</option></select><button>Filter</button></form></body></html>`;
const issues = [
  { id: 4, subject: 'Prune the pear trees', status: 'Open' },
  { id: 9, subject: 'Pear rust on row 3', status: 'Open' },
];
const recording = (status = '1') =>
  har({ url: `${O}/issues`, html: FORM }, { url: `${O}/issues.json?q=pear&status=${status}`, body: { issues } });
const renderWith = (tpl: string, status: string) => render(tpl, (p) => (p[0] === 'args' && p[1] === 'status' ? status : undefined));

describe('a choice given by its label', () => {
  it("the request's code is matched, and the template turns any label of the drop-down into its code", () => {
    const r = synthesize({ recording: recording(), hints: { arguments: { q: 'pear', status: 'Open' } } });
    const tpl = (r.definition as any).steps[0].query.status as string;
    expect(tpl).toMatch(/^\{\{args\.status \| choose:\[\["Any",""\],\["Open","1"\],\["In progress","2"\],\["Closed","5"\]\]\}\}$/);
    expect(renderWith(tpl, 'Open')).toBe('1');
    expect(renderWith(tpl, ' closed ')).toBe('5');
    expect(renderWith(tpl, 'IN PROGRESS')).toBe('2');
    expect(renderWith(tpl, '5')).toBe('5'); // (a code given directly)
    expect(r.input_schema.properties.status).toMatchObject({ type: 'string', examples: ['Open'] });
    expect(r.input_schema.properties.status.description).toContain('"Closed"');
    expect(r.report.warnings.join('\n')).not.toMatch(/status/);
  });

  it('a label the site sends as it is stays a plain argument', () => {
    const r = synthesize({
      recording: har(
        { url: `${O}/issues`, html: FORM.replace('value="5"', 'value="Closed"') },
        { url: `${O}/issues.json?q=pear&status=Closed`, body: { issues } },
      ),
      hints: { arguments: { q: 'pear', status: 'Closed' } },
    });
    expect((r.definition as any).steps[0].query.status).toBe('{{args.status}}');
  });

  it('a label whose code no request sent is no choice', () => {
    const r = synthesize({ recording: recording('2'), hints: { arguments: { q: 'pear', status: 'Open' } } });
    expect(JSON.stringify(r.definition)).not.toContain('choose');
  });

  it("a drop-down the page's script builds from pairs in the page is a choice too (Redmine's filters), under a name that holds the list's key", () => {
    const PAGE = `<html><body><form action="/issues"><input name="q"><div id="filters"></div><button>Apply</button></form>
      <script>var availableFilters = {"status_id":{"type":"list","name":"Status","values":[["New","1"],["In Progress","2"],["Feedback","4"]]},
      "tracker_id":{"type":"list","name":"Tracker","values":[["Bug","1"],["Feature","2"]]}};</script></body></html>`;
    const r = synthesize({
      recording: har(
        { url: `${O}/issues`, html: PAGE },
        { url: `${O}/issues.json?q=pear&f[]=status_id&v[status_id][]=4`, body: { issues } },
      ),
      hints: { arguments: { q: 'pear', status: 'Feedback' } },
    });
    const tpl = (r.definition as any).steps[0].query['v[status_id][]'] as string;
    expect(tpl).toBe('{{args.status | choose:[["New","1"],["In Progress","2"],["Feedback","4"]]}}');
    expect(renderWith(tpl, 'in progress')).toBe('2');
    // (The tracker's list offers "Feature" as 2 too, but nothing was sent under its key.)
    const other = synthesize({
      recording: har({ url: `${O}/issues`, html: PAGE }, { url: `${O}/issues.json?q=pear&v[priority_id][]=2`, body: { issues } }),
      hints: { arguments: { q: 'pear', kind: 'Feature' } },
    });
    expect(JSON.stringify(other.definition)).not.toContain('choose');
  });

  it('a radio group is a choice too: its labels (for=, around the button, or the text after it) and values', () => {
    const RADIOS = `<html><body><form action="/issues"><input name="q">
      <input type="radio" name="priority" value="1" id="p1"><label for="p1">Low</label>
      <label><input type="radio" name="priority" value="2"> Normal</label>
      <input type="radio" name="priority" value="3"> Urgent
      <button>Filter</button></form></body></html>`;
    const r = synthesize({
      recording: har({ url: `${O}/issues`, html: RADIOS }, { url: `${O}/issues.json?q=pear&priority=3`, body: { issues } }),
      hints: { arguments: { q: 'pear', priority: 'Urgent' } },
    });
    const tpl = (r.definition as any).steps[0].query.priority as string;
    expect(tpl).toBe('{{args.priority | choose:[["Low","1"],["Normal","2"],["Urgent","3"]]}}');
    expect(render(tpl, (p) => (p[1] === 'priority' ? 'normal' : undefined))).toBe('2');
  });

  it('choose: case and surrounding space ignored; anything else passes through', () => {
    const table = [
      ['Open', '1'],
      ['Closed', '5'],
    ];
    expect(choose('CLOSED', table)).toBe('5');
    expect(choose('Archived', table)).toBe('Archived');
    expect(choose(7, table)).toBe(7);
    expect(choose('Open', 'not a table')).toBe('Open');
  });
});
