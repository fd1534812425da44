// Records an answer carries as JavaScript for the page to run: a JSON answer whose string holds
// `this.add_message_row(6, {"subject": …}, {"seen": 1}, false);` once per message (Roundcube), or
// any function called several times with JSON arguments. The output then reads those calls' arguments
// (a `calls` extractor, engines/js-calls.ts) instead of returning the code as text.
import type { CallField, CallsExtractor } from '../formats/definition/types.js';
import { extractValue, View } from '../runtime/worker/engines/extract.js';
import { callsByName } from '../runtime/worker/engines/js-calls.js';
import { inferMerged, nullableFields, type Schema } from './schema-infer.js';
import { jp, jsonLeaves } from './slots.js';
import { argName } from './values.js';

export interface CallRecords {
  extractor: CallsExtractor;
  schema: Schema;
  why: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
/** Markup a page inserts as is (`<span class="adr">Ann Baker</span>`): its text is the value. */
const markup = (v: unknown) => typeof v === 'string' && /^\s*<[a-z][^>]*>[\s\S]*>\s*$/i.test(v);

/**
 * The records in a JSON answer's code: the function called most often with an object among its
 * arguments in a string of the body — twice at least, or once with the hinted or typed values — the
 * one whose arguments hold those values when there are any. Null when there is no such function,
 * or when the values are given and no call holds them.
 */
export function callRecords(body: unknown, text: string, values: string[]): CallRecords | null {
  const wanted = values.map((v) => v.toLowerCase()).filter((v) => v.length >= 2);
  let best: { path: (string | number)[]; name: string; calls: unknown[][]; hits: number } | null = null;
  for (const leaf of jsonLeaves(body)) {
    if (typeof leaf.value !== 'string' || leaf.value.length < 20 || !leaf.value.includes('(')) continue;
    for (const [name, all] of callsByName(leaf.value)) {
      const calls = all.filter((args) => args.some(isObject));
      const said = JSON.stringify(calls).toLowerCase();
      const hits = wanted.filter((v) => said.includes(v)).length;
      // (One call is a list of one when it holds what was searched for.)
      if ((wanted.length && !hits) || calls.length < (hits ? 1 : 2)) continue;
      if (!best || hits > best.hits || (hits === best.hits && calls.length > best.calls.length))
        best = { path: leaf.path, name, calls, hits };
    }
  }
  if (!best) return null;
  const fields = fieldsOf(best.calls);
  if (!Object.keys(fields).length) return null;
  const extractor: CallsExtractor = { from: 'calls', in: jp(best.path), call: best.name, all: true, required: false, fields };
  const records = extractValue(extractor, new View({ url: 'http://recorded.invalid/', status: 200, text }), 'records') as unknown[];
  return {
    extractor,
    schema: { type: 'array', items: nullableFields(inferMerged(records)) },
    why: `${best.calls.length} calls of ${best.name}() in ${jp(best.path)}: their arguments are the records`,
  };
}

/**
 * The fields of a call's record: each key of an object argument (its value's text when it is
 * markup), and a scalar argument that differs between calls — the first one named `id` when it is
 * unique to each call. Arguments equal in every call (a flag) say nothing about the record.
 */
function fieldsOf(calls: unknown[][]): Record<string, CallField> {
  const fields: Record<string, CallField> = {};
  const taken = new Set<string>();
  const width = Math.max(...calls.map((c) => c.length));
  for (let i = 0; i < width; i++) {
    const vals = calls.map((c) => c[i]);
    if (vals.every(isObject)) {
      const keys = [...new Set(vals.flatMap((v) => Object.keys(v)))];
      for (const key of keys) {
        const kv = vals.map((v) => v[key]);
        if (!kv.every((x) => x === undefined || scalar(x))) continue;
        const present = kv.every((x) => x !== undefined);
        const field: CallField = { arg: i, key, ...(kv.some(markup) ? { text: true } : {}), ...(present ? {} : { required: false }) };
        fields[argName(key, taken)] = field;
      }
    } else if (vals.every((v) => typeof v === 'string' || typeof v === 'number') && new Set(vals).size > 1) {
      const unique = new Set(vals).size === vals.length;
      fields[argName(i === 0 && unique ? 'id' : `arg_${i + 1}`, taken)] = { arg: i };
    }
  }
  return fields;
}
