// The server's egress policy as one object: EGRESS_* settings plus the endpoints that are always
// denied because they are this service itself (its listening addresses, registered once listen()
// picked the port; its PUBLIC_BASE_URL; the browser egress proxies it runs) or what it guards
// (the DATABASE_URL endpoint). Runs get a snapshot of the rules in their Job (the worker's HTTP
// client enforces them); browser contexts get a forward proxy that asks policy() per request.
import dns from 'node:dns/promises';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { ConfigError, type Config } from '../config.js';
import { EgressPolicy, parseIp, parseList, type EgressRules } from './policy.js';

type Reserved = EgressRules['reserved'][number];

const SELF = "this service's own API";
const PROXY = "this service's browser egress proxy";

/** `ip:port` / `[ip]:port` / `host:port` as an entry. */
const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

export class Egress {
  private listeners: Reserved[] = [];
  private proxyPorts = new Set<number>();
  private cached: EgressPolicy | null = null;

  constructor(
    private readonly settings: { private: 'allow' | 'deny'; allow: string[]; deny: string[] },
    private readonly services: Reserved[],
    /** Read on every rules() call: PUBLIC_BASE_URL is set after listen() in tests and `serve`. */
    private readonly publicBaseUrl: () => string | null = () => null,
  ) {}

  static async fromConfig(config: Config): Promise<Egress> {
    const lists: Record<string, string[]> = {};
    for (const [env, v] of [
      ['EGRESS_ALLOW', config.egressAllow],
      ['EGRESS_DENY', config.egressDeny],
    ] as const) {
      try {
        lists[env] = parseList(v);
      } catch (e) {
        throw new ConfigError(`Invalid configuration:\n- ${env}: ${(e as Error).message}`);
      }
    }
    return new Egress(
      { private: config.egressPrivate, allow: lists.EGRESS_ALLOW, deny: lists.EGRESS_DENY },
      await databaseEndpoints(config.databaseUrl),
      () => config.publicBaseUrl,
    );
  }

  /** Registers an address the HTTP server listens on (after listen: PORT=0 picks the port then). */
  addListener(addr: AddressInfo | string | null): void {
    if (!addr || typeof addr === 'string') return; // a unix socket is no TCP destination
    const ip = parseIp(addr.address);
    // Bound to every interface: every local address at that port reaches the server.
    const hosts = ip && ip.range() === 'unspecified' ? ['127.0.0.0/8', '::1', ...localAddresses()] : [addr.address];
    for (const h of hosts) this.listeners.push({ entry: h.includes('/') ? `${h}:${addr.port}` : hostPort(h, addr.port), what: SELF });
    this.cached = null;
  }

  addProxyPort(port: number): void {
    this.proxyPorts.add(port);
    this.cached = null;
  }

  removeProxyPort(port: number): void {
    this.proxyPorts.delete(port);
    this.cached = null;
  }

  rules(): EgressRules {
    const reserved = [...this.listeners, ...this.services, ...[...this.proxyPorts].map((p) => ({ entry: `127.0.0.1:${p}`, what: PROXY }))];
    const pub = this.publicBaseUrl();
    if (pub) {
      try {
        const u = new URL(pub);
        const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
        if (port > 0) reserved.push({ entry: hostPort(u.hostname.replace(/^\[|\]$/g, ''), port), what: SELF });
      } catch {
        /* not a URL: nothing to reserve */
      }
    }
    return { ...this.settings, reserved };
  }

  /** The current policy (rebuilt when a listener or proxy came or went). */
  policy(): EgressPolicy {
    return (this.cached ??= new EgressPolicy(this.rules()));
  }
}

function localAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .map((i) => i?.address.replace(/%.*$/, ''))
    .filter((a): a is string => !!a);
}

/** DATABASE_URL's host:port, by name and by every address the name has now. */
async function databaseEndpoints(url: string | null): Promise<Reserved[]> {
  if (!url) return [];
  const u = new URL(url);
  const port = Number(u.port || 5432);
  const hosts = [u.hostname, u.searchParams.get('host') ?? ''].map((h) => h.replace(/^\[|\]$/g, '')).filter((h) => h && !h.startsWith('/'));
  const out: Reserved[] = [];
  for (const h of hosts) {
    out.push({ entry: hostPort(h, port), what: "this service's database" });
    if (parseIp(h)) continue;
    const addrs = await dns.lookup(h, { all: true }).catch(() => []);
    for (const a of addrs) out.push({ entry: hostPort(a.address, port), what: "this service's database" });
  }
  return out;
}
