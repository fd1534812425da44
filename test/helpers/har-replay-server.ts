// Serves the responses of a recorded HAR again, by method + path + query (first match), on
// 127.0.0.1: real pages from real applications, for end-to-end synthesis tests that need no
// installed app. Anything not recorded is a 404.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export async function serveHar(har: {
  log: { entries: any[] };
}): Promise<{ url: string; port: number; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    // Query compared decoded (a client may encode ':' where the browser did not).
    const norm = (method: string, u: URL) => `${method} ${u.pathname}?${new URLSearchParams(u.search).toString()}`;
    const key = norm(req.method ?? 'GET', new URL(req.url ?? '/', 'http://x'));
    const e = har.log.entries.find((x) => norm(x.request.method, new URL(x.request.url)) === key && x.response.status > 0);
    if (!e) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not recorded');
      return;
    }
    const c = e.response.content ?? {};
    const body = c.text === undefined ? '' : c.encoding === 'base64' ? Buffer.from(c.text, 'base64') : c.text;
    res.writeHead(e.response.status, { 'content-type': c.mimeType || 'text/html' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, hits, close: () => new Promise((r) => server.close(() => r())) };
}
