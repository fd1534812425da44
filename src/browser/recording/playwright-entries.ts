// HAR entries built from Playwright's request/response objects. Used only for the gap CDP can't
// see: requests a popup or new tab made before the recorder's CDP session on it was enabled
// (its first document load, typically). Less detail than the CDP path (no raw header order,
// coarse timings) but the same shape.
import type { Request } from 'playwright-core';
import { contentOf, postDataToHar, queryToHar, parseCookieHeader, setCookies, headerValue } from './har-parts.js';
import type { HarEntry } from '../../formats/recording/types.js';

const TYPES: Record<string, string> = {
  xhr: 'XHR',
  fetch: 'Fetch',
  eventsource: 'EventSource',
  websocket: 'WebSocket',
  texttrack: 'TextTrack',
};
const cdpType = (t: string) => TYPES[t] ?? t.charAt(0).toUpperCase() + t.slice(1);

export async function entryFromPlaywright(
  req: Request,
  id: string,
  pageId: string,
  maxBodyBytes: number,
  failure: string | null,
): Promise<HarEntry> {
  const resp = await req.response().catch(() => null);
  const reqHeaders = await req.headersArray().catch(() => []);
  const respHeaders = resp ? await resp.headersArray().catch(() => []) : [];
  let body: Buffer | null = null;
  if (resp && !failure) body = await resp.body().catch(() => null);
  const post = req.postDataBuffer();
  const t = req.timing();
  const d = (a: number, b: number) => (a >= 0 && b >= 0 ? Math.max(0, b - a) : -1);
  const timings = {
    blocked: -1,
    dns: d(t.domainLookupStart, t.domainLookupEnd),
    connect: d(t.connectStart, t.connectEnd),
    ssl: d(t.secureConnectionStart, t.connectEnd),
    send: 0,
    wait: d(t.requestStart, t.responseStart),
    receive: d(t.responseStart, t.responseEnd),
  };
  const mime = (headerValue(respHeaders, 'content-type') ?? '').split(';')[0].trim();
  const status = resp?.status() ?? 0;
  const frame = (() => {
    try {
      return req.frame();
    } catch {
      return null;
    }
  })();
  return {
    pageref: pageId,
    startedDateTime: new Date(t.startTime).toISOString(),
    time: [timings.dns, timings.connect, timings.wait, timings.receive].filter((x) => x > 0).reduce((a, b) => a + b, 0),
    request: {
      method: req.method(),
      url: req.url(),
      httpVersion: 'http/1.1',
      cookies: parseCookieHeader(headerValue(reqHeaders, 'cookie')),
      headers: reqHeaders,
      queryString: queryToHar(req.url()),
      ...(post ? { postData: postDataToHar(post, headerValue(reqHeaders, 'content-type') ?? '', maxBodyBytes) } : {}),
      headersSize: -1,
      bodySize: post?.length ?? 0,
    },
    response: {
      status,
      statusText: resp?.statusText() ?? '',
      httpVersion: 'http/1.1',
      cookies: setCookies(respHeaders),
      headers: respHeaders,
      content: resp ? contentOf(mime, status, body, maxBodyBytes) : { size: 0, mimeType: '', _omitted: 'unavailable' },
      redirectURL: (status >= 300 && status < 400 && headerValue(respHeaders, 'location')) || '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings,
    _id: id,
    _request_id: `pw-${id}`,
    _resource_type: cdpType(req.resourceType()),
    _initiator: { type: 'other', url: null },
    _redirected_from: null,
    _action_id: null,
    _error: failure,
    _secrets: [],
    _is_navigation: req.isNavigationRequest() && !!frame && frame === frame.page().mainFrame(),
  };
}
