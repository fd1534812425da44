// Records one page's traffic through CDP Network.*: each request (and each redirect hop) becomes
// a HAR entry written to the sink as soon as it finished and its body was read, so only
// in-flight requests are held in memory.
import type { CDPSession } from 'playwright-core';
import {
  contentOf,
  harTimings,
  headersToHar,
  headerValue,
  parseCookieHeader,
  postDataToHar,
  queryToHar,
  setCookies,
  timingsTotal,
  type CdpTiming,
} from './har-parts.js';
import type { HarEntry } from '../../formats/recording/types.js';

export interface EntrySink {
  pageId: string;
  maxBodyBytes: number;
  nextEntryId(): string;
  writeEntry(e: HarEntry): void;
  writeWsFrame(f: { requestId: string; url: string; direction: 'send' | 'receive'; opcode: number; payload: string; time: string }): void;
}

interface InFlight {
  id: string;
  requestId: string;
  started: string;
  wallTime: number;
  timestamp: number;
  req: any;
  type: string;
  initiator: { type: string; url: string | null };
  isNavigation: boolean;
  redirectedFrom: string | null;
  extraReq?: Record<string, string>;
  resp?: any;
  extraResp?: Record<string, string>;
  postBody?: Buffer;
  /** The request body asked of Chromium (Network.getRequestPostData), not answered yet. */
  postFetch?: Promise<void>;
  finishedAt?: number;
}

export class NetworkRecorder {
  private inflight = new Map<string, InFlight>();
  private extraReq = new Map<string, Record<string, string>[]>();
  private extraResp = new Map<string, Record<string, string>[]>();
  private pending = new Set<Promise<unknown>>();
  /** Redirect hops waiting for their raw response headers (Set-Cookie arrives in ExtraInfo, often late). */
  private hops = new Map<string, InFlight[]>();
  private mainFrameId: string | null = null;
  private wsUrls = new Map<string, string>();

  constructor(
    private readonly cdp: CDPSession,
    private readonly sink: EntrySink,
  ) {}

  /** `preEnabled`: Network and Page were enabled on this CDP session already (warm pool). */
  /**
   * Listens to the page's CDP session. `pre`: Network and Page are already enabled on it and its
   * main frame is known (a warm pool slot), so starting costs no round trip to the browser.
   */
  async start(pre: { mainFrameId: string } | null = null): Promise<void> {
    const c = this.cdp as any;
    c.on('Network.requestWillBeSent', (e: any) => this.onRequest(e));
    c.on('Network.requestWillBeSentExtraInfo', (e: any) => this.push(this.extraReq, e.requestId, e.headers));
    c.on('Network.responseReceivedExtraInfo', (e: any) => {
      this.push(this.extraResp, e.requestId, e.headers);
      this.drain(e.requestId, false);
    });
    c.on('Network.responseReceived', (e: any) => {
      const f = this.inflight.get(e.requestId);
      if (f) f.resp = e.response;
    });
    c.on('Network.loadingFinished', (e: any) => this.track(this.onFinished(e.requestId, e.timestamp, e.encodedDataLength)));
    c.on('Network.loadingFailed', (e: any) => this.onFailed(e.requestId, e.errorText, e.timestamp));
    c.on('Network.webSocketCreated', (e: any) => this.wsUrls.set(e.requestId, e.url));
    c.on('Network.webSocketFrameSent', (e: any) => this.onWs(e, 'send'));
    c.on('Network.webSocketFrameReceived', (e: any) => this.onWs(e, 'receive'));
    c.on('Page.frameNavigated', (e: any) => {
      if (!e.frame.parentId) this.mainFrameId = e.frame.id;
    });
    if (pre) {
      this.mainFrameId ??= pre.mainFrameId;
      return;
    }
    await Promise.all([
      this.cdp.send('Network.enable', { maxPostDataSize: 65536 } as any),
      this.cdp.send('Page.enable'),
      this.cdp.send('Page.getFrameTree').then((t: any) => (this.mainFrameId = t.frameTree.frame.id)),
    ]);
  }

  /**
   * Lets the requests open when the session ends finish (the save the person clicked just before
   * ending it: its answer is what a connector returns), waits for bodies still being read, then
   * writes what is left as unfinished entries. Only requests open at the end count, and at most
   * `settleMs`: an app polling its server or a stream that never ends does not hold the session.
   */
  async stop(timeoutMs = 3000, settleMs = 3000): Promise<void> {
    const open = [...this.inflight.entries()].filter(([, f]) => f.type !== 'EventSource').map(([id]) => id);
    for (const until = Date.now() + settleMs; open.some((id) => this.inflight.has(id)) && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 50));
    const all = Promise.allSettled([...this.pending]);
    await Promise.race([all, new Promise((r) => setTimeout(r, timeoutMs))]);
    for (const id of [...this.hops.keys()]) this.drain(id, true);
    for (const f of this.inflight.values())
      this.write(f, { error: 'unfinished: the session ended before the response completed', finishedAt: undefined });
    this.inflight.clear();
  }

  private push(m: Map<string, Record<string, string>[]>, id: string, h: Record<string, string>) {
    const a = m.get(id) ?? [];
    a.push(h);
    m.set(id, a);
  }

  /** Writes redirect hops whose raw headers arrived (all of them when `force`). */
  private drain(requestId: string, force: boolean) {
    const list = this.hops.get(requestId);
    while (list?.length && (force || this.extraResp.get(requestId)?.length)) {
      const f = list.shift()!;
      this.write(f, { finishedAt: f.finishedAt });
    }
    if (list && !list.length) this.hops.delete(requestId);
  }

  private track(p: Promise<unknown>) {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private onRequest(e: any) {
    let redirectedFrom: string | null = null;
    const prev = this.inflight.get(e.requestId);
    if (prev && e.redirectResponse) {
      // The previous hop is complete: its response is the redirect. It is written once its raw
      // headers arrived (or after a short grace period).
      prev.resp = e.redirectResponse;
      prev.finishedAt = e.timestamp;
      const list = this.hops.get(e.requestId) ?? [];
      list.push(prev);
      this.hops.set(e.requestId, list);
      this.drain(e.requestId, false);
      if (this.hops.get(e.requestId)?.length) setTimeout(() => this.drain(e.requestId, true), 1000).unref();
      redirectedFrom = prev.id;
    }
    const init = e.initiator ?? {};
    const f: InFlight = {
      id: this.sink.nextEntryId(),
      requestId: e.requestId,
      started: new Date(e.wallTime * 1000).toISOString(),
      wallTime: e.wallTime,
      timestamp: e.timestamp,
      req: e.request,
      type: e.type ?? 'Other',
      initiator: { type: init.type ?? 'other', url: init.url ?? init.stack?.callFrames?.[0]?.url ?? null },
      isNavigation: e.type === 'Document' && e.requestId === e.loaderId && (!this.mainFrameId || e.frameId === this.mainFrameId),
      redirectedFrom,
    };
    this.inflight.set(e.requestId, f);
    if (e.request.postDataEntries?.length) {
      f.postBody = Buffer.concat(e.request.postDataEntries.map((x: any) => Buffer.from(x.bytes ?? '', 'base64')));
    } else if (typeof e.request.postData === 'string') {
      f.postBody = Buffer.from(e.request.postData, 'utf8');
    } else if (e.request.hasPostData) {
      // (A body with a file: Chromium gives it on request — base64 when binary; a form
      // submission's without the file's content — and the answer may come after the redirect
      // that ends this hop: write() waits.)
      f.postFetch = this.cdp
        .send('Network.getRequestPostData', { requestId: e.requestId })
        .then((r: any) => void (f.postBody = Buffer.from(r.postData, r.base64Encoded ? 'base64' : 'utf8')))
        .catch(() => {});
      this.track(f.postFetch);
    }
  }

  private async onFinished(requestId: string, timestamp: number, encodedLength = 0) {
    const f = this.inflight.get(requestId);
    if (!f) return;
    this.inflight.delete(requestId);
    this.drain(requestId, true);
    let body: Buffer | null = null;
    // Huge bodies (downloads, media) are not pulled into memory: size only.
    if (encodedLength > Math.max(64 * 1024 * 1024, 8 * this.sink.maxBodyBytes)) return this.write(f, { finishedAt: timestamp, body: null });
    try {
      const r: any = await this.cdp.send('Network.getResponseBody', { requestId });
      body = Buffer.from(r.body, r.base64Encoded ? 'base64' : 'utf8');
    } catch {
      body = null; // evicted, a download, or the page went away
    }
    this.write(f, { finishedAt: timestamp, body });
  }

  private onFailed(requestId: string, errorText: string, timestamp: number) {
    const f = this.inflight.get(requestId);
    if (!f) return;
    this.inflight.delete(requestId);
    this.drain(requestId, true);
    this.write(f, { finishedAt: timestamp, error: errorText || 'failed' });
  }

  private onWs(e: any, direction: 'send' | 'receive') {
    this.sink.writeWsFrame({
      requestId: e.requestId,
      url: this.wsUrls.get(e.requestId) ?? '',
      direction,
      opcode: e.response.opcode,
      payload: e.response.payloadData,
      time: new Date().toISOString(),
    });
  }

  private write(f: InFlight, o: { finishedAt?: number; body?: Buffer | null; error?: string }) {
    const exReq = this.extraReq.get(f.requestId)?.shift();
    const exResp = f.resp ? this.extraResp.get(f.requestId)?.shift() : undefined;
    // The request body is still being fetched: the entry is written once it is here (the raw
    // headers are taken now, in hop order; the HAR is sorted by start time and id).
    const fetching = f.postFetch;
    if (fetching) {
      f.postFetch = undefined;
      return this.track(fetching.then(() => this.writeEntry(f, o, exReq, exResp)));
    }
    this.writeEntry(f, o, exReq, exResp);
  }

  private writeEntry(
    f: InFlight,
    o: { finishedAt?: number; body?: Buffer | null; error?: string },
    exReq: Record<string, string> | undefined,
    exResp: Record<string, string> | undefined,
  ) {
    const reqHeaders = headersToHar(exReq ?? f.req.headers);
    const url = f.req.url + (f.req.urlFragment ?? '');
    const resp = f.resp;
    const respHeaders = headersToHar(exResp ?? resp?.headers);
    const timings = harTimings(resp?.timing as CdpTiming | undefined, o.finishedAt);
    const ct = headerValue(reqHeaders, 'content-type') ?? '';
    const entry: HarEntry = {
      pageref: this.sink.pageId,
      startedDateTime: f.started,
      time: timingsTotal(timings),
      request: {
        method: f.req.method,
        url,
        httpVersion: resp?.protocol ?? 'http/1.1',
        cookies: parseCookieHeader(headerValue(reqHeaders, 'cookie')),
        headers: reqHeaders,
        queryString: queryToHar(url),
        ...(f.postBody ? { postData: postDataToHar(f.postBody, ct, this.sink.maxBodyBytes) } : {}),
        headersSize: -1,
        bodySize: f.postBody?.length ?? 0,
      },
      response: {
        status: resp?.status ?? 0,
        statusText: resp?.statusText ?? '',
        httpVersion: resp?.protocol ?? 'http/1.1',
        cookies: setCookies(respHeaders),
        headers: respHeaders,
        content: resp
          ? contentOf(resp.mimeType ?? '', resp.status, o.body ?? null, this.sink.maxBodyBytes)
          : { size: 0, mimeType: '', _omitted: 'unavailable' },
        redirectURL: (resp && resp.status >= 300 && resp.status < 400 && headerValue(respHeaders, 'location')) || '',
        headersSize: -1,
        bodySize: resp?.encodedDataLength ?? -1,
      },
      cache: {},
      timings,
      ...(resp?.remoteIPAddress ? { serverIPAddress: resp.remoteIPAddress } : {}),
      ...(resp?.connectionId !== undefined ? { connection: String(resp.connectionId) } : {}),
      _id: f.id,
      _request_id: f.requestId,
      _resource_type: f.type,
      _initiator: f.initiator,
      _redirected_from: f.redirectedFrom,
      _action_id: null,
      _error: o.error ?? null,
      _secrets: [],
      _is_navigation: f.isNavigation,
    };
    this.sink.writeEntry(entry);
  }
}
