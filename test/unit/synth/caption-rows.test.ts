// A list grouped under caption rows (Redmine's issues grouped by priority, as its _list template
// writes them: a row of one cell as wide as the table, holding an expander, the group's name, a
// count badge and a script link to collapse all), read by synthesis and by the runtime alike.
import { describe, expect, it } from 'vitest';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { extractHtml } from '../../../src/synth/html-extract.js';

const read = (html: string, x: unknown) =>
  extractValue(x as any, new View({ url: 'http://t.test/issues', status: 200, text: html }), 'out');
const caption = (name: string, n: number) => `<tr class="group open"><td colspan="5">
      <span class="expander icon icon-expanded" onclick="toggleRowGroup(this);">&nbsp;</span>
      <span class="name">${name}</span> <span class="badge badge-count count">${n}</span>
      <span class="totals"></span>
      <a href="#" class="toggle-all" onclick="toggleAllRowGroups(this); return false;">Collapse all/Expand all</a>
    </td></tr>`;
const issue = (id: number, tracker: string, subject: string) =>
  `<tr id="issue-${id}" class="hascontextmenu issue"><td class="checkbox hide-when-print"><input type="checkbox" name="ids[]" value="${id}"></td><td class="id"><a href="/issues/${id}">${id}</a></td><td class="tracker">${tracker}</td><td class="subject"><a href="/issues/${id}">${subject}</a></td><td class="buttons"><a title="Actions" class="icon-only icon-actions js-contextmenu" href="#">Actions</a></td></tr>`;
const page = (body: string) => `<html><body><div id="main"><div id="content"><h2>Issues</h2>
  <div class="autoscroll"><table class="list issues"><thead><tr><th class="checkbox hide-when-print"><a title="Check all/Uncheck all" href="#">&nbsp;</a></th>
  <th><a href="?sort=id">#</a></th><th><a href="?sort=tracker">Tracker</a></th><th><a href="?sort=subject">Subject</a></th><th class="buttons"></th></tr></thead>
  <tbody>${body}</tbody></table></div></div></div></body></html>`;

describe('a list grouped under caption rows', () => {
  const grouped = page(
    caption('High', 2) +
      issue(7, 'Bug', 'Cider press leaks') +
      issue(5, 'Feature', 'Label printer') +
      caption('Normal', 1) +
      issue(3, 'Bug', 'Gate sticks'),
  );

  it("gives each record its caption's name, not the count or the collapse link", () => {
    const r = extractHtml(grouped, [], ['Gate sticks'])!;
    expect(r.extractor).toMatchObject({ headings: true, all: true });
    const fields = (r.extractor as any).fields;
    expect(fields.group).toMatchObject({ fill_down: true });
    const rows = read(grouped, r.extractor) as Record<string, unknown>[];
    expect(rows.map((x) => `${x.group} / ${x.id} / ${x.subject}`)).toEqual([
      'High / 7 / Cider press leaks',
      'High / 5 / Label printer',
      'Normal / 3 / Gate sticks',
    ]);
    // (At run time, with other groups and counts.)
    const other = page(
      caption('Urgent', 1) +
        issue(9, 'Bug', 'Frost on the mill') +
        caption('Low', 2) +
        issue(2, 'Task', 'Paint') +
        issue(1, 'Task', 'Sweep'),
    );
    expect((read(other, r.extractor) as Record<string, unknown>[]).map((x) => `${x.group} ${x.subject}`)).toEqual([
      'Urgent Frost on the mill',
      'Low Paint',
      'Low Sweep',
    ]);
  });

  it('controls: ungrouped, the same table is a plain list; a caption over a first column of data is no group', () => {
    const plain = page(issue(7, 'Bug', 'Cider press leaks') + issue(5, 'Feature', 'Label printer') + issue(3, 'Bug', 'Gate sticks'));
    const r = extractHtml(plain, [], ['Gate sticks'])!;
    expect((r.extractor as any).fields.group).toBeUndefined();
    expect(read(plain, r.extractor)).toHaveLength(3);
    const dataFirst = grouped.replace(
      /<td class="checkbox hide-when-print"><input type="checkbox" name="ids\[\]" value="(\d+)"><\/td>/g,
      '<td>n$1</td>',
    );
    const d = extractHtml(dataFirst, [], ['Gate sticks'])!;
    expect((d.extractor as any).fields.group).toBeUndefined();
  });
});
