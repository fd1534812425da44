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

/** The names of the functions `text` calls with JSON arguments, with how many such calls each. */
export function calledNames(text: string): Map<string, number> {
  const names = new Map<string, number>();
  const re = /(?:^|[^\w$.])((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*)\s*\(/g;
  for (const m of text.matchAll(re)) if (names.size < 200) names.set(m[1]!, 0);
  for (const name of names.keys()) names.set(name, callArguments(text, name).length);
  for (const [name, n] of names) if (!n) names.delete(name);
  return names;
}
