// A whole number typed as an example is an `integer` argument only when nothing says a fraction
// would do: a threshold recorded as 18 takes 22.5 on the next run (Rspamd's reject score), an id
// recorded as 18 stays an integer.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { argType, fractionalFields, fractionalStep } from '../../../src/synth/arg-types.js';
import { normalize } from '../../../src/synth/normalize.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://shop.test';

describe("a number input's step", () => {
  it('allows a fraction when it is `any` or not whole', () => {
    for (const s of ['any', 'ANY', '0.5', '0.01', '2.5']) expect(fractionalStep(s), s).toBe(true);
    for (const s of [null, undefined, '', '1', '5', '10', 'x']) expect(fractionalStep(s), String(s)).toBe(false);
  });
});

describe("an argument's type", () => {
  const none = new Set<string>();
  it("is the example's, a whole number an integer when nothing says more", () => {
    expect(argType({ name: 'id', example: '18' }, '18', 'id', none)).toEqual({ type: 'integer' });
    expect(argType({ name: 'count', example: '3' }, 3, 'count', none)).toEqual({ type: 'integer' });
    expect(argType({ name: 'name', example: 'north' }, 'north', 'name', none)).toEqual({ type: 'string' });
    expect(argType({ name: 'ratio', example: '0.5' }, '0.5', 'ratio', none)).toEqual({ type: 'number' });
  });

  it('is a number when a fraction would do: typed into a fractional input, a field of such an input, a measure', () => {
    expect(argType({ name: 'reject', example: '18', fractional: true }, '18', 'reject', none)).toEqual({ type: 'number' });
    expect(argType({ name: 'reject', example: '18' }, '18', 'actions[reject]', new Set(['actions[reject]']))).toEqual({ type: 'number' });
    for (const [name, field] of [
      ['unit_price', 'unit_price'],
      ['value', 'item[price]'],
      ['max_score', 'maxScore'],
      ['value', 'reject-threshold'],
      ['weight_kg', 'w'],
      ['lat', 'lat'],
    ])
      expect(argType({ name, example: '18' }, '18', field, none), `${name} ${field}`).toEqual({ type: 'number' });
    // (A word inside another is no measure.)
    for (const [name, field] of [
      ['priceless_id', 'priceless_id'],
      ['pirate', 'pirate'],
      ['totals_page', 'page'],
    ])
      expect(argType({ name, example: '18' }, '18', field, none), name).toEqual({ type: 'integer' });
  });
});

describe('fractional fields of recorded pages', () => {
  it('are the number and range inputs whose step allows a fraction, by name', () => {
    const html = `<form method="post">
      <input type="number" name="reject" step="0.1" value="15">
      <input type="number" name="greylist" step="any">
      <input type=range name="volume" step=0.25>
      <input type="number" name="retries" value="3">
      <input type="number" name="limit" step="5">
      <input type="text" name="label" step="0.5">
    </form>`;
    const xs = normalize(har({ url: `${O}/settings`, html })).exchanges;
    expect([...fractionalFields(xs)].sort()).toEqual(['greylist', 'reject', 'volume']);
  });
});

describe('synthesis', () => {
  const settingsPage = (step: string) =>
    `<html><body><form method="post" action="/settings"><input type="number" name="reject"${step} value="15"><button>Save</button></form></body></html>`;
  const recording = (step: string) =>
    har(
      { url: `${O}/settings`, html: settingsPage(step), at: 0 },
      { method: 'POST', url: `${O}/settings`, form: { reject: '18' }, html: '<p>Saved: reject at 18</p>', at: 2000 },
    );
  const typeOfReject = (rec: ReturnType<typeof har>, actions?: object[]) => {
    if (actions) (rec.log as any)._capture = { actions };
    const r = synthesize({
      recording: rec,
      hints: actions ? { allow_side_effects: true } : { arguments: { reject: '18' }, allow_side_effects: true },
    });
    return (r.input_schema.properties as any).reject;
  };

  it('types a whole number sent from a fractional input of the recorded form as a number (integer when the step is whole)', () => {
    expect(typeOfReject(recording(' step="0.5"'))).toMatchObject({ type: 'number', examples: [18] });
    expect(typeOfReject(recording(''))).toMatchObject({ type: 'integer', examples: [18] });
  });

  it('types a whole number typed into a fractional input of a script-built page (the action log) as a number', () => {
    const fill = (step: string | null) => [
      {
        id: 'a1',
        seq: 1,
        page: 'page_1',
        url: `${O}/settings`,
        time: '2026-01-01T10:00:01.000Z',
        t_ms: 1000,
        type: 'fill',
        value: '18',
        secret: null,
        target: {
          tag: 'input',
          type: 'number',
          id: null,
          name: 'reject',
          step,
          selectors: [{ kind: 'name', value: 'reject', playwright: 'css=input[name="reject"]', unique: true }],
        },
      },
    ];
    // (The page as a script built it: the recorded HTML has no such input.)
    const spa = () =>
      har(
        { url: `${O}/settings`, html: '<html><body><div id="app"></div></body></html>', at: 0 },
        { method: 'POST', url: `${O}/settings`, form: { reject: '18' }, html: '<p>Saved: reject at 18</p>', at: 2000 },
      );
    expect(typeOfReject(spa(), fill('any'))).toMatchObject({ type: 'number' });
    expect(typeOfReject(spa(), fill(null))).toMatchObject({ type: 'integer' });
  });
});
