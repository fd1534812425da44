// The browser's egress proxy (src/egress/proxy.ts) driven directly, with a scripted resolver:
// it connects to the address it checked (a name that exists only in the scripted resolver still
// works, so the proxy never asks DNS again: no rebinding window), keeps the Host header, refuses
// a name with one bad answer (403 + x-egress-denied, reported), and tunnels CONNECT likewise.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressPolicy } from '../src/egress/policy.js';
import { resolveChecked } from '../src/egress/resolve.js';
import { startEgressProxy, type EgressProxy } from '../src/egress/proxy.js';

describe('egress proxy', () => {
  let site: http.Server;
  let sitePort: number;
  let proxy: EgressProxy;
  const seenHosts: string[] = [];
  const seenPaths: string[] = [];
  const denied: string[] = [];
  // rebind.test answers a fine address first and the metadata address on every later lookup:
  // the classic rebinding resolver. mixed.test hides a metadata address among good ones.
  let rebindLookups = 0;
  const lookup = async (host: string) => {
    if (host === 'rebind.test') return [{ address: rebindLookups++ === 0 ? '127.0.0.1' : '169.254.169.254', family: 4 }];
    if (host === 'mixed.test')
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ];
    if (host === 'fine.test') return [{ address: '127.0.0.1', family: 4 }];
    return [];
  };
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      seenHosts.push(req.headers.host ?? '');
      seenPaths.push(req.url ?? '');
      res.end(`hello ${req.url}`);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    sitePort = (site.address() as net.AddressInfo).port;
    const policy = new EgressPolicy({ private: 'allow', allow: [], deny: [], reserved: [] });
    proxy = await startEgressProxy({
      pin: (h, p) => resolveChecked(policy, h, p, lookup),
      precheck: async () => {},
      upstream: null,
      onDenied: (d) => denied.push(d.message),
    });
  });
  afterAll(async () => {
    await proxy?.close();
    site?.closeAllConnections();
    await new Promise((r) => site?.close(r));
  });

  const viaProxy = (url: string) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: proxy.port, path: url, method: 'GET', agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });

  const connect = (authority: string) =>
    new Promise<string>((resolve, reject) => {
      const s = net.connect(proxy.port, '127.0.0.1', () => s.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`));
      let got = '';
      s.on('data', (c) => {
        got += c;
        if (got.includes('\r\n\r\n')) {
          if (got.startsWith('HTTP/1.1 200')) {
            // Speak HTTP through the tunnel to prove where it leads.
            got = '';
            s.removeAllListeners('data');
            s.on('data', (d) => (got += d));
            s.write(`GET /tunnel HTTP/1.1\r\nhost: ${authority}\r\nconnection: close\r\n\r\n`);
            s.on('end', () => resolve(got));
          } else {
            s.destroy();
            resolve(got);
          }
        }
      });
      s.on('error', reject);
    });

  it('connects to the checked address and keeps the name in Host (never looks the name up again)', async () => {
    const r = await viaProxy(`http://rebind.test:${sitePort}/a`);
    expect(r).toMatchObject({ status: 200, body: 'hello /a' });
    expect(seenHosts.at(-1)).toBe(`rebind.test:${sitePort}`);
    expect(rebindLookups).toBe(1);
    // The next request is a new lookup, which now answers the metadata address: refused.
    const again = await viaProxy(`http://rebind.test:${sitePort}/b`);
    expect(again.status).toBe(403);
    expect(again.headers['x-egress-denied']).toBe(
      `egress denied: rebind.test:${sitePort} (169.254.169.254) is link-local/cloud metadata (always denied)`,
    );
    expect(seenPaths).not.toContain('/b');
  });

  it('refuses a name with any bad answer, over http and CONNECT, and reports it', async () => {
    const before = denied.length;
    expect((await viaProxy(`http://mixed.test:${sitePort}/`)).status).toBe(403);
    expect(await connect(`mixed.test:${sitePort}`)).toMatch(
      /^HTTP\/1\.1 403 Forbidden\r\nx-egress-denied: egress denied: mixed\.test:\d+ \(169\.254\.169\.254\) is link-local/,
    );
    expect(await connect(`169.254.169.254:443`)).toMatch(/^HTTP\/1\.1 403/);
    expect(denied.length).toBe(before + 3);
    expect(await connect(`fine.test:${sitePort}`)).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*hello \/tunnel$/);
  });

  it('answers only proxy requests: origin-form and malformed CONNECT targets are 400', async () => {
    const r = await new Promise<number>((resolve) =>
      http.get({ host: '127.0.0.1', port: proxy.port, path: '/v1beta/secrets' }, (res) => resolve(res.statusCode ?? 0)),
    );
    expect(r).toBe(400);
    expect(await connect('no-port.test')).toMatch(/^HTTP\/1\.1 400/);
    expect(await connect('a@fine.test:80')).toMatch(/^HTTP\/1\.1 400/);
  });
});
