// Calls of a function in JavaScript text, read as data: an AJAX answer whose payload is code for
// the page to run (Roundcube's `this.add_message_row(6, {...}, {...}, false);`), a page's inline
// `init({...})`, a JSONP answer `cb({...})`. Nothing is evaluated: each call's argument list is
// located by a linear scan that respects strings and brackets, and parsed as JSON values; a call
// whose arguments are not all JSON literals (a variable, a function) is skipped.

/** At most this many calls are read from one text (a list of records, not a script's every line). */
export const MAX_CALLS = 10_000;

const IDENT = /[\w$]/;

/** The argument lists of every call of `name` in `text` whose arguments are JSON values. */
export function callArguments(text: string, name: string): unknown[][] {
  const out: unknown[][] = [];
  if (!name) return out;
  for (let at = text.indexOf(name); at >= 0 && out.length < MAX_CALLS; at = text.indexOf(name, at + 1)) {
    // (The whole name: not `xadd_row(` for `add_row`, not `obj.add_row(` for `add_row` either.)
    const before = at > 0 ? text[at - 1]! : '';
    if (before && (IDENT.test(before) || before === '.')) continue;
    let open = at + name.length;
    while (open < text.length && /\s/.test(text[open]!)) open++;
    if (text[open] !== '(') continue;
    const close = matchingParen(text, open);
    if (close < 0) break;
    const args = jsonList(text.slice(open + 1, close));
    if (args) out.push(args);
    // (On past the call: a call inside its arguments is not read again, so the scan stays linear.)
    at = close;
  }
  return out;
}

/** The index of the `)` that closes the `(` at `open` (strings and nested brackets skipped), or -1. */
function matchingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return c === ')' ? i : -1;
    }
  }
  return -1;
}

/** `1, {"a": "b"}, false` as [1, {a: 'b'}, false]; null when something in it is not JSON. */
function jsonList(inner: string): unknown[] | null {
  if (!inner.trim()) return [];
  try {
    const v = JSON.parse(`[${inner}]`);
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** At most this many distinct functions are looked at in one text (synthesis reads a few). */
const MAX_NAMES = 200;

/**
 * Every call with JSON arguments in `text`, grouped by the (dotted) name called, in one pass:
 * brackets are matched once by a stack that skips strings, and only a call with no other call
 * inside its parentheses is parsed (JSON has no bare parenthesis), so parsing stays linear too.
 * Unlike `callArguments`, a call inside a function's body (`init(function () { add(1) })`) is found.
 */
export function callsByName(text: string): Map<string, unknown[][]> {
  const { close, opens } = bracketPairs(text);
  const out = new Map<string, unknown[][]>();
  const re = /(?<![\w$.])((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*)\s*\(/g;
  for (const m of text.matchAll(re)) {
    const open = m.index + m[0].length - 1;
    const end = close.get(open);
    // (A `(` inside a string or never closed is no call; one holding another call is not JSON.)
    if (end === undefined || opensWithin(opens, open, end)) continue;
    const name = m[1]!;
    const calls = out.get(name) ?? (out.size < MAX_NAMES ? [] : null);
    if (!calls || calls.length >= MAX_CALLS) continue;
    const args = jsonList(text.slice(open + 1, end));
    if (!args) continue;
    calls.push(args);
    out.set(name, calls);
  }
  return out;
}

/** Each `(` outside strings with its matching `)`, and the sorted positions of every such `(`. */
function bracketPairs(text: string): { close: Map<number, number>; opens: number[] } {
  const close = new Map<number, number>();
  const opens: number[] = [];
  const stack: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '(' || c === '[' || c === '{') {
      stack.push(i);
      if (c === '(') opens.push(i);
    } else if (c === ')' || c === ']' || c === '}') {
      const at = stack.pop();
      if (at !== undefined && c === ')' && text[at] === '(') close.set(at, i);
    }
  }
  return { close, opens };
}

/** Whether any `(` lies strictly between `from` and `to` (binary search in the sorted positions). */
function opensWithin(opens: number[], from: number, to: number): boolean {
  let lo = 0;
  let hi = opens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (opens[mid]! <= from) lo = mid + 1;
    else hi = mid;
  }
  return lo < opens.length && opens[lo]! < to;
}
