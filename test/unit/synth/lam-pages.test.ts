// Synthesis on recordings saved from a forty-sixth real application, LDAP Account Manager (PHP over
// OpenLDAP; scripts/acceptance-setup.sh), and the rules it showed: a form whose labels sit in a
// column beside the fields' (each field wrapped in a table of its own), a field that equals an
// argument but for its case, a delete confirmed on the page the entry's DN opened (the entry waits
// in the session), and an account list whose first body rows are its sort arrows and filter boxes.
import { describe, expect, it } from 'vitest';
import { readRule as read, savedPage, synthSaved } from '../../helpers/saved-recordings.js';

const LOGIN = { username: 'cn=admin,dc=northwind,dc=test', password: 'lm-admin-pass-1' };
const synth = (name: string, args: Record<string, string>) => synthSaved('lam', name, args, LOGIN);
const pageOf = (name: string, part: RegExp) => savedPage('lam', name, part);
/** A step's multipart or form fields by name. */
const fieldsOf = (step: any): Record<string, string> =>
  step.body.multipart ? Object.fromEntries(step.body.multipart.map((p: any) => [p.name, p.value])) : step.body.form;

describe("LDAP Account Manager's pages", () => {
  it("a person's page: every labelled field, those whose label is in the column beside theirs too", () => {
    const def = synth('lm-person', { uid: 'ada' }).definition;
    const rec = read(def.steps.at(-1).extract.record, pageOf('lm-person', /edit\.php\?type=user&DN=/));
    expect(rec).toMatchObject({
      first_name: 'Ada',
      last_name: 'Moreno',
      telephone_number: '+44 20 7946 0101',
      email_address: 'ada@northwind.test',
      job_title: 'Engineering staff',
    });
  });

  it('an edit: the first name the page printed is sent as read, not as the `uid` argument it equals but for its case', () => {
    const def = synth('lm-edit', { uid: 'chidi', telephoneNumber_0: '+44 20 7946 0999' }).definition;
    const save = fieldsOf(def.steps.at(-1));
    expect(save.telephoneNumber_0).toBe('{{args.telephoneNumber_0}}');
    expect(save.givenName).toMatch(/^\{\{vars\./);
    expect(JSON.stringify(def.steps)).not.toMatch(/"givenName","value":"\{\{args\.uid/);
  });

  it("a delete confirmed on the page the entry's DN opened: that submit is the target, the DN's request before it", () => {
    const def = synth('lm-delete', { uid: 'gus' }).definition;
    const [open, confirm] = def.steps.slice(-2);
    expect([open.url, open.query?.DN]).toEqual(['/templates/lists/deletelink.php', "'uid={{args.uid}},ou=People,dc=northwind,dc=test'"]);
    expect([confirm.method, confirm.url]).toEqual(['POST', '/templates/delete.php']);
    expect(fieldsOf(confirm)).toMatchObject({ sec_token: expect.stringMatching(/^\{\{vars\./), delete: '' });
  });

  it('an account list: the records after its sort and filter rows, the selection column left out', () => {
    const def = synth('lm-filter', { filtergidnumber: '10002' }).definition;
    const items = read(def.steps.at(-1).extract.items, pageOf('lm-filter', /norefresh=true/));
    expect(items).toEqual([
      { user_name: 'dara', first_name: 'Dara', last_name: 'Kim', uid_number: 10004, gid_number: 10002 },
      { user_name: 'fatima', first_name: 'Fatima', last_name: 'Haddad', uid_number: 10006, gid_number: 10002 },
      { user_name: 'lena', first_name: 'Lena', last_name: 'Vogel', uid_number: 10012, gid_number: 10002 },
    ]);
  });
});
