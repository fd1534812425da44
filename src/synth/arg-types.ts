// The JSON Schema type of an argument. The example decides (`typeOf`), with one widening: a whole
// number is an `integer` only when nothing says a fraction would do as well. A threshold recorded
// as 18 must take 22.5 on the next run; an id recorded as 18 stays an integer. Fractions are
// allowed by the input the person typed into (`<input type=number step="any">`, `step="0.5"`:
// from the action log, or from a recorded page's form for the field the request sent) and by a
// field named as a measure (a price, a rate, a weight).
import { loadHtml } from './html-load.js';
import type { ArgValue } from './substitute.js';
import type { Exchange } from './types.js';
import { type ArgType, typeOf } from './values.js';

/** A number input's step that allows a fraction: `any`, or a step like `0.5` or `0.01`. */
export const fractionalStep = (step: string | null | undefined): boolean =>
  !!step && (/^any$/i.test(step.trim()) || (Number.isFinite(Number(step)) && !Number.isInteger(Number(step))));

// Words that name a quantity measured rather than counted, as a whole word of the field's name
// (`unit_price`, `maxScore`, `reject-threshold`; not `priceless_id`).
const MEASURE =
  /(^|[^a-z])(price|amount|cost|fee|tax|total|balance|rate|ratio|percent|percentage|score|threshold|weight|factor|multiplier|lat|latitude|lng|lon|longitude|temperature)([^a-z]|$)/;
const words = (s: string) => s.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

/** Names of the number inputs of the recorded pages' forms whose step allows a fraction. */
export function fractionalFields(xs: Exchange[]): Set<string> {
  const out = new Set<string>();
  for (const x of xs) {
    if (!/html/.test(x.mime) || !x.text || !/type=["']?(number|range)/i.test(x.text)) continue;
    const $ = loadHtml(x.text);
    $('input').each((_, e) => {
      const inp = $(e);
      const name = inp.attr('name');
      if (name && /^(number|range)$/i.test(inp.attr('type') ?? '') && fractionalStep(inp.attr('step'))) out.add(name);
    });
  }
  return out;
}

/** The argument's type: its example's, an `integer` widened to `number` where a fraction is as good. */
export function argType(a: ArgValue, example: unknown, field: string | undefined, fractional: Set<string>): ArgType {
  const t = typeOf(example);
  if (t.type !== 'integer') return t;
  const key = field?.split('.').at(-1) ?? '';
  const widen = a.fractional || (!!field && fractional.has(field)) || MEASURE.test(words(a.name)) || MEASURE.test(words(key));
  return widen ? { type: 'number' } : t;
}
