// Synthesis on recordings saved from a forty-seventh real application, phpLDAPadmin (PHP over
// OpenLDAP; scripts/acceptance-setup.sh), and the rules it showed: search hits that are each a small
// label/value table under a summary table restating the query, an editor whose labels sit in the
// row above each field (its commands and hints after it), a change posted again from the page that
// reviewed it, and a sign-in form whose action every form of the site shares.
import { describe, expect, it } from 'vitest';
import { readRule as read, savedPage, synthSaved } from '../../helpers/saved-recordings.js';
import { loadHtml } from '../../../src/synth/html-load.js';

const LOGIN = { username: 'cn=admin,dc=northwind,dc=test', password: 'lm-admin-pass-1' };
const synth = (name: string, args: Record<string, string>) => synthSaved('phpldapadmin', name, args, LOGIN);
const pageOf = (name: string, part: RegExp) => savedPage('phpldapadmin', name, part);

describe("phpLDAPadmin's pages", () => {
  it('search hits, each a label/value table: every hit by its labels, not the summary above them', () => {
    const def = synth('pla-search', { filter: 'gidNumber=10002' }).definition;
    const items = read(def.steps.at(-1).extract.items, pageOf('pla-search', /search=Search/));
    expect(items).toHaveLength(4);
    expect(items[0]).toMatchObject({
      title: 'uid=dara',
      dn: 'uid=dara,ou=People,dc=northwind,dc=test',
      cn: 'Dara Kim',
      sn: 'Kim',
      uid: 'dara',
    });
    expect(items[0].url).toContain('cmd=template_engine');
    // (The group has no sn or uid: its fields are null, not the next row's value.)
    expect(items[3]).toMatchObject({ title: 'cn=finance', cn: 'finance', sn: null, uid: null });
    expect(JSON.stringify(items)).not.toContain('Entries found');
  });

  it("an entry's editor: each field by the label in the row above it, not its commands or hints", () => {
    const def = synth('pla-entry', { uid: 'ada' }).definition;
    const rec = read(def.steps.at(-1).extract.record, pageOf('pla-entry', /cmd=template_engine/));
    expect(rec).toMatchObject({
      cn: 'Ada Moreno',
      given_name: 'Ada',
      sn: 'Moreno',
      mail: 'ada@northwind.test',
      telephone_number: '+44 20 7946 0101',
      uid: 'ada',
      gid_number: 10001,
    });
    expect(Object.keys(rec).join(' ')).not.toMatch(/engineering|structural|new_values/);
  });

  it('a change posted again from the page that reviewed it: that second post is the write', () => {
    const def = synth('pla-edit', { uid: 'chidi', telephone: '+44 20 7946 0999' }).definition;
    const last = def.steps.at(-1);
    expect([last.method, last.body.form.cmd]).toEqual(['POST', 'update']);
    expect(last.body.form).toMatchObject({
      dn: 'uid={{args.uid}},ou=People,dc=northwind,dc=test',
      'new_values[telephonenumber][0]': '{{args.telephone}}',
    });
  });

  it("the sign-in form's marker, its action shared by every form of the site, does not match an entry's editor", () => {
    const def = synth('pla-entry', { uid: 'ada' }).definition;
    const markers: string[] = def.detect.login_page.map((m: { css: string }) => m.css);
    expect(markers.length).toBeGreaterThan(0);
    const editor = loadHtml(pageOf('pla-entry', /cmd=template_engine/));
    const login = loadHtml(pageOf('pla-entry', /cmd=login_form/));
    expect(markers.some((m) => editor(m).length > 0)).toBe(false);
    expect(markers.some((m) => login(m).length > 0)).toBe(true);
  });
});
