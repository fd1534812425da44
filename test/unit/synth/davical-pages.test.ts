// Synthesis on recordings saved from a forty-eighth real application, DAViCal (PHP over PostgreSQL;
// scripts/acceptance-setup.sh), and the rules it showed: tables about a record under their own
// headings, checkboxes after their hidden twins, a number in the address of a clicked link, a GET
// confirmed by a one-time token (written `%2A…` by PHP), a password box the page itself filled, and
// a write whose page shows only its menu and a message.
import { describe, expect, it } from 'vitest';
import { readRule as read, savedPage, synthSaved } from '../../helpers/saved-recordings.js';

const LOGIN = { username: 'admin', password: 'dv-admin-pass-1' };
const synth = (name: string, args: Record<string, string>) => synthSaved('davical', name, args, LOGIN);
const pageOf = (name: string, part: RegExp) => savedPage('davical', name, part);

describe("DAViCal's pages", () => {
  it("a principal's page: its form's fields, then each table under its heading beside them", () => {
    const r = synth('dv-principal', { principal_id: '1001' });
    const last = r.definition.steps.at(-1);
    const page = pageOf('dv-principal', /id=1001/);
    const rec = read(last.extract.record, page);
    // (`active` is the checkbox, not the hidden "off" before it; the mail is no `format: email`:
    // another principal's box may be empty.)
    expect(rec).toMatchObject({
      username: 'ada',
      email_address: 'ada@orchard.test',
      principal_type: 'Person',
      active: true,
      administrator: false,
    });
    expect(r.output_schema.properties.email_address).toEqual({ type: ['string', 'null'] });
    expect(Object.keys(r.definition.result)).toEqual(expect.arrayContaining(['username', 'group_memberships', 'principal_collections']));
    // (Found by its heading: its header cells are those of the "Group Members" table a group's page shows.)
    expect(last.extract.group_memberships.selector).toContain('h2:contains("Group Memberships")');
    expect(read(last.extract.group_memberships, page)).toEqual([expect.objectContaining({ id: 1051, display_name: 'Pickers' })]);
    const paths = read(last.extract.principal_collections, page).map((c: any) => c.path);
    expect(paths).toEqual(expect.arrayContaining(['/ada/calendar/', '/ada/addresses/']));
    // (Another record's page without such rows is an empty list, not a failure.)
    expect(read(last.extract.group_memberships, page.replace(/<h2>Group Memberships<\/h2>[\s\S]*?<\/table>/, ''))).toEqual([]);
  });

  it("a form opened by a link whose address holds a number: read from that link, for the page's post too", () => {
    const d = synth('dv-calendar', { principal_id: '1016', name: 'harvest', title: 'Harvest 2026' }).definition;
    const [principal, form, post] = d.steps;
    expect(principal.query.id).toBe('{{args.principal_id}}');
    expect(form.query.user_no).toMatch(/^\{\{vars\.\w+\}\}$/);
    expect(post.query.user_no).toBe(form.query.user_no);
    const link = principal.extract[form.query.user_no.slice(7, -2)];
    expect(link).toMatchObject({ selector: 'a[href]:contains("Create Collection")', select: '$.link' });
    expect(read(link, pageOf('dv-calendar', /t=principal&id=1016/))).toBe('1004');
    // (The form's own hidden copy of it is sent as the run's form holds it.)
    expect(post.body.multipart.find((p: any) => p.name === 'user_no').value).toMatch(/^\{\{vars\.\w+\}\}$/);
  });

  it('a delete confirmed by a link carrying a one-time token: that GET is the write, its token read after its own name', () => {
    const r = synth('dv-delete', { principal_id: '1031' });
    const d = r.definition;
    const last = d.steps.at(-1);
    expect(last.query).toMatchObject({ subaction: 'delete_principal', id: '{{args.principal_id}}' });
    expect(last.query.confirm).toMatch(/^\{\{vars\.confirm \| urldecode\}\}$/);
    const confirm = d.steps.at(-2).extract.confirm;
    // (Anchored on `confirm=`, not on `id=1031&confirm=`: another principal has another id.)
    expect(confirm.pattern.startsWith('confirm=')).toBe(true);
    expect(r.report.side_effects).toBe(true);
    // (The page after it shows its menu and a message: the message is the outcome.)
    expect(read(last.extract.message, pageOf('dv-delete', /confirm=/))).toBe('Principal deleted.');
  });

  it('a password box the page filled itself ("$pwstars") is sent back as it was, not taken for a typed password', () => {
    const r = synth('dv-edit', { principal_id: '1011', email: 'chidi.obi@orchard.test' });
    const last = r.definition.steps.at(-1);
    expect(last.method).toBe('POST');
    const part = (n: string) => last.body.multipart.find((p: any) => p.name === n).value;
    expect(part('email')).toBe('{{args.email}}');
    expect(part('newpass1')).not.toMatch(/secrets\./);
    expect(r.definition.login.steps.map((s: any) => s.method)).toEqual(['POST']);
  });
});
