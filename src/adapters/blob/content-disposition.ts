// Content-Disposition of a download, the same from every blob store (our signed GET route sets it,
// S3 returns it from the presigned GET's response-content-disposition).

/** Names every parser takes literally inside filename="…". */
const PLAIN = /^[A-Za-z0-9 ._+,-]+$/;

/**
 * RFC 6266: `attachment; filename="…"`, plus the exact UTF-8 name in filename* when the name is not
 * plain ASCII (§4.3: filename* is only needed then). Plain names stay free of the apostrophes of
 * `UTF-8''`, which some S3-compatible servers canonicalize wrongly in presigned query strings.
 */
export function contentDisposition(filename: string): string {
  if (PLAIN.test(filename)) return `attachment; filename="${filename}"`;
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
