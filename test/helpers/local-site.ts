// A small site a test serves itself on 127.0.0.1 (an ephemeral port), started and closed by the test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export function localSite(handler: http.RequestListener) {
  const server = http.createServer(handler);
  return {
    /** Listens; resolves to the site's base URL. */
    start: () =>
      new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
