// The URL a redirect made by page script names in a response header (Icinga Web's
// `X-Icinga-Redirect: %2Fuser%2Flist%3F…`, htmx's `HX-Redirect: /next`): synthesis folds such a
// hop as a redirect, and a run follows it (a step's `follow_header`).

/** The URL `value` names against `base`: a path or an http(s) URL, as written or percent-decoded once; null for anything else. */
export function redirectTarget(value: string, base: string | URL): URL | null {
  const v = value.trim();
  for (const candidate of [v, decodeOnce(v)]) {
    if (!/^(\/|https?:\/\/)/i.test(candidate)) continue;
    try {
      return new URL(candidate, base);
    } catch {}
  }
  return null;
}

function decodeOnce(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return '';
  }
}
