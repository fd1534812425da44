// A field whose NAME holds a record's id (Cacti's row boxes `chk_7`, a PHP form's `hostids[10561]`):
// the name found in the request, the publish-time checks of a templated name, and a token that
// holds ':' and ',' (csrf-magic's `sid:<hash>,<time>`) traced whole.
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../src/formats/definition/validate.js';
import { regexFor } from '../../../src/synth/producers.js';
import { idInName } from '../../../src/synth/slots.js';
import { deterministicAdvisor } from '../../../src/synth/advisor.js';
import { argumentValues } from '../../../src/synth/facts.js';
import { generatedName } from '../../../src/synth/values.js';

describe("an id in a field's name", () => {
  it('is the last run of digits, with what stands around it', () => {
    expect(idInName('chk_7')).toEqual({ before: 'chk_', id: '7', after: '' });
    expect(idInName('hostids[10561]')).toEqual({ before: 'hostids[', id: '10561', after: ']' });
    expect(idInName('items[0][name]')).toEqual({ before: 'items[', id: '0', after: '][name]' });
    expect(idInName('description')).toBeNull();
    expect(idInName('42')).toBeNull();
  });

  const def = (form: Record<string, string>) => ({
    format: 'connector-definition/v1',
    engine: 'http',
    login: { slot: 'account', steps: [{ id: 'l', url: 'http://a.test/login' }] },
    steps: [
      { id: 'list', url: 'http://a.test/', extract: { box: { from: 'regex', pattern: 'chk_(\\d+)' } } },
      { id: 'pick', method: 'POST', url: 'http://a.test/', body: { form } },
    ],
    result: null,
  });
  const opts = {
    inputSchema: { type: 'object', properties: { device: { type: 'string' } } },
    requiredSecrets: [{ name: 'account', type: 'login' }],
  };

  it('a form field named by {{vars}} or {{args}} publishes; by a secret, an unknown var or a bad template, it does not', () => {
    expect(validateDefinition(def({ 'chk_{{vars.box}}': 'on', action: 'actions' }), opts as any)).toEqual([]);
    expect(validateDefinition(def({ 'chk_{{args.device}}': 'on' }), opts as any)).toEqual([]);
    const msgs = (form: Record<string, string>) => validateDefinition(def(form), opts as any).map((p) => `${p.loc.join('.')}: ${p.msg}`);
    expect(msgs({ 'chk_{{secrets.account.password}}': 'on' })).toEqual([
      "body.definition.steps.1.body.form.chk_{{secrets.account.password}}: Value error, {{secrets.account.password}}: a field's name is built by {{args.…}} or {{vars.…}} only",
    ]);
    expect(msgs({ 'chk_{{vars.nothing}}': 'on' })).toEqual([
      "body.definition.steps.1.body.form.chk_{{vars.nothing}}: Value error, {{vars.nothing}}: no step extracts 'nothing'",
    ]);
    expect(msgs({ 'chk_{{vars.box | nosuchfilter}}': 'on' })[0]).toMatch(/bad template/);
  });
});

describe('a token holding ":" and ","', () => {
  it('is found whole in the inline script that holds it', () => {
    const tok = 'sid:50dca4b9cb2450f65d18417b488b026a4885c069,1796014998';
    const page = `<script>var urlPath='/';\n\tvar csrfMagicToken='${tok}';\n</script>`;
    const re = regexFor(page, tok);
    expect(re).not.toBeNull();
    expect(new RegExp(re!.pattern).exec(page)![1]).toBe(tok);
    // (A fresh one at run time, another hash and time, is read whole too.)
    const fresh = 'sid:0123456789abcdef0123456789abcdef01234567,1796099999';
    expect(new RegExp(re!.pattern).exec(page.replace(tok, fresh))![1]).toBe(fresh);
  });
});

describe('a name a script generated for a field', () => {
  it('is no name for an argument: a random piece, a long counter, a React id; a word with a short number is one', () => {
    for (const n of ['input-8nb9bwpcu', 'el-id-5632-4', 'el-id-47-49', 'mui-1234', ':r5:', 'field_a7f3k9'])
      expect(generatedName(n), n).toBe(true);
    for (const n of ['q', 'search', 'address2', 'line_1', 'emailOrLdapLoginId', 'user[name]', 'post_title', 'ids[0]', 'items[0][1]'])
      expect(generatedName(n), n).toBe(false);
  });

  it("names an argument by the field's label, a number in it included; by its name or id only when no script made them", () => {
    const fill = (target: object, value: string) => ({ type: 'fill', value, target });
    const names = (...actions: object[]) =>
      argumentValues({ exchanges: [], actions } as any, {}, deterministicAdvisor, '').map((a) => a.name);
    // A generated name and id: the label names it — "Budget 2025" is a person's words, number and all.
    expect(names(fill({ name: 'input-8nb9bwpcu', id: 'el-id-5632-4', label: 'Budget 2025' }, '1200'))).toEqual(['budget_2025']);
    // A name the page's author wrote wins over the label.
    expect(names(fill({ name: 'amount', label: 'Budget 2025' }, '1200'))).toEqual(['amount']);
    // Neither a usable name nor a label: the placeholder.
    expect(names(fill({ name: ':r5:', placeholder: 'Search workflows' }, 'frost'))).toEqual(['search_workflows']);
  });
});
