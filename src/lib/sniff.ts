// What a browser takes a body served without a Content-Type for: the HTML and XML patterns of
// WHATWG MIME Sniffing ("rules for identifying an unknown MIME type"), and JSON, which the page's
// own script parses as such. CUPS's CGIs, for one, send their pages with no type at all.

// (Each HTML pattern must end in a tag-terminating byte: a space or `>`.)
const HTML_START = /^<(!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[ >]/i;

/** The type a browser would give `text` served untyped, or null (binary, or plain text). */
export function sniffedType(text: string): string | null {
  const t = text.replace(/^[\t\n\f\r ]+/, '');
  if (HTML_START.test(t)) return 'text/html';
  if (t.startsWith('<?xml')) return 'text/xml';
  if (/^[[{]/.test(t)) {
    try {
      JSON.parse(t);
      return 'application/json';
    } catch {
      return null;
    }
  }
  return null;
}

/** A Content-Type that says nothing of the body: none, HAR's `x-unknown`, or WHATWG's unknown
 * types. (Not `application/octet-stream`: that says "bytes, a download", and a browser keeps it so.) */
export const untyped = (mime: string | null | undefined) =>
  !mime?.trim() || /^(x-unknown|unknown\/unknown|application\/unknown|\*\/\*)(;|$)/i.test(mime.trim());
