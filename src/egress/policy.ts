// The egress policy: where a connector (http engine, ctx.http, a browser context, a capture
// session) may connect. Pure: rules in, a decision out; DNS lives in resolve.ts, so every layer
// (the sandbox worker's HTTP client, the browser's forward proxy, the parent's page.goto check)
// applies the same rules to the address it actually connects to.
//
// Order of the rules (the first that matches decides):
//   1. scheme: only http/https (ws/wss for the browser's websockets, which travel as CONNECT);
//   2. ALWAYS denied, whatever EGRESS_ALLOW says: link-local and cloud metadata (169.254.0.0/16,
//      fe80::/10, fd00:ec2::254, 100.100.100.200, metadata.google.internal, …), unspecified
//      (0.0.0.0/8, ::), multicast/broadcast, and the `reserved` endpoints: the service's own
//      listeners, its database, its browser proxies (host:port, filled in by egress.ts);
//   3. EGRESS_ALLOW entries → allowed (re-opens private ranges and EGRESS_DENY entries);
//   4. EGRESS_DENY entries → denied;
//   5. private, loopback and other non-public ranges → denied when EGRESS_PRIVATE=deny;
//   6. anything else → allowed.
// IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address; the IPv4 address inside
// NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses is checked against the always-deny set too.
import ipaddr from 'ipaddr.js';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

/** What travels to the sandbox worker in the Job: plain data, parsed on each side. */
export interface EgressRules {
  private: 'allow' | 'deny';
  allow: string[];
  deny: string[];
  /** Always denied, with what they are (named in the denial): own listeners, database, … */
  reserved: { entry: string; what: string }[];
}

export const WEB_SCHEMES: readonly string[] = ['http:', 'https:'];
const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };

export type Decision = { ok: true } | { ok: false; rule: string; message: string };

/** A request the policy refused; `message` is what the run's error says. */
export class EgressDenied extends Error {
  override readonly name = 'EgressDenied';
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }

  static from(d: Extract<Decision, { ok: false }>): EgressDenied {
    return new EgressDenied(d.rule, d.message);
  }
}

export interface Target {
  /** Hostname or IP literal as in the URL (brackets allowed). */
  host: string;
  port: number;
  /** The resolved address to be connected to; absent = judge the name alone (a pre-check). */
  ip?: string;
}

type Entry = { text: string; port: number | null } & (
  | { kind: 'cidr'; range: [Addr, number] }
  | { kind: 'host'; name: string; suffix: boolean }
);

const METADATA = 'link-local/cloud metadata';
const ALWAYS_RANGES: [cidr: string, rule: string, what: string][] = [
  ['169.254.0.0/16', 'metadata', METADATA],
  ['fe80::/10', 'metadata', METADATA],
  ['fd00:ec2::254/128', 'metadata', METADATA], // AWS IMDS over IPv6
  ['100.100.100.200/32', 'metadata', METADATA], // Alibaba Cloud
  ['192.0.0.192/32', 'metadata', METADATA], // Oracle Cloud (legacy)
  // Linux connects 0.0.0.0 to the local host: as good as loopback, and never a real destination.
  ['0.0.0.0/8', 'unspecified', 'an unspecified address'],
  ['::/128', 'unspecified', 'an unspecified address'],
  ['224.0.0.0/4', 'multicast', 'multicast/broadcast'],
  ['255.255.255.255/32', 'multicast', 'multicast/broadcast'],
  ['ff00::/8', 'multicast', 'multicast/broadcast'],
];
const ALWAYS = ALWAYS_RANGES.map(([cidr, rule, what]) => ({ range: parseRange(cidr), rule, what }));
const METADATA_NAMES = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
];

export const DEFAULT_RULES: EgressRules = { private: 'allow', allow: [], deny: [], reserved: [] };

function parseRange(cidr: string): [Addr, number] {
  const [a, bits] = ipaddr.parseCIDR(cidr);
  // An IPv4-mapped range (::ffff:10.0.0.0/104) is the IPv4 range it maps.
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) return [(a as ipaddr.IPv6).toIPv4Address(), bits - 96];
  return [a, bits];
}

function port(s: string | undefined): number | null {
  if (s === undefined) return null;
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`bad port ${s}`);
  return n;
}

/**
 * One allow/deny entry: CIDR or IP (`10.0.0.0/8`, `10.1.2.3`, `fd00::/8`, `[::1]`), host
 * (`db.internal`, `*.corp.example` = any subdomain), each optionally with `:port`
 * (`10.0.0.0/8:5432`, `[::1]:8080`, `fd00::/8:443`, `db.internal:5432`).
 */
export function parseEntry(raw: string): Entry {
  const text = raw.trim();
  const s = text.toLowerCase();
  let m: RegExpExecArray | null;
  try {
    if ((m = /^\[([0-9a-f:.]+)\](?:\/(\d{1,3}))?(?::(\d+))?$/.exec(s))) {
      return { kind: 'cidr', text, range: parseRange(`${m[1]}/${m[2] ?? 128}`), port: port(m[3]) };
    }
    if ((m = /^([0-9a-f:.]+)\/(\d{1,3})(?::(\d+))?$/.exec(s)))
      return { kind: 'cidr', text, range: parseRange(`${m[1]}/${m[2]}`), port: port(m[3]) };
    if (s.includes(':') && ipaddr.IPv6.isValid(s)) return { kind: 'cidr', text, range: parseRange(`${s}/128`), port: null };
    if ((m = /^(\d+\.\d+\.\d+\.\d+)(?::(\d+))?$/.exec(s)) && ipaddr.IPv4.isValidFourPartDecimal(m[1])) {
      return { kind: 'cidr', text, range: parseRange(`${m[1]}/32`), port: port(m[2]) };
    }
    if ((m = /^(\*\.)?([a-z0-9_-]+(?:\.[a-z0-9_-]+)*)\.?(?::(\d+))?$/.exec(s)) && !/^[\d.]+$/.test(m[2])) {
      return { kind: 'host', text, name: m[2], suffix: !!m[1], port: port(m[3]) };
    }
  } catch {
    /* falls through to the error below */
  }
  throw new Error(`'${raw}' is not a CIDR, IP, host or *.domain (each optionally with :port)`);
}

/** Splits a comma/space separated list setting into entries (throws naming the bad one). */
export function parseList(setting: string | null | undefined): string[] {
  const out = (setting ?? '').split(/[\s,]+/).filter(Boolean);
  for (const e of out) parseEntry(e);
  return out;
}

/** Address text → parsed address, IPv4-mapped IPv6 as IPv4; null if it is no IP literal. */
export function parseIp(s: string): Addr | null {
  const t = s.replace(/^\[|\]$/g, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(t)) return ipaddr.IPv4.parse(t);
  if (t.includes(':') && ipaddr.IPv6.isValid(t)) return ipaddr.process(t);
  return null;
}

const normalHost = (h: string) =>
  h
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

/** IPv4 addresses embedded in NAT64 / 6to4 IPv6 addresses (they reach the IPv4 host through a gateway). */
function embedded(a: Addr): ipaddr.IPv4[] {
  if (a.kind() !== 'ipv6') return [];
  const b = a.toByteArray();
  const r = (a as ipaddr.IPv6).range();
  if (r === 'rfc6052') return [new ipaddr.IPv4(b.slice(12, 16))];
  if (r === '6to4') return [new ipaddr.IPv4(b.slice(2, 6))];
  return [];
}

function inRange(a: Addr, range: [Addr, number]): boolean {
  return a.kind() === range[0].kind() && a.match(range);
}

export class EgressPolicy {
  private readonly allow: Entry[];
  private readonly deny: Entry[];
  private readonly reserved: (Entry & { what: string })[];

  constructor(readonly rules: EgressRules = DEFAULT_RULES) {
    this.allow = rules.allow.map(parseEntry);
    this.deny = rules.deny.map(parseEntry);
    this.reserved = rules.reserved.map((r) => ({ ...parseEntry(r.entry), what: r.what }));
  }

  /** The scheme rule plus the name-level rules for a URL; returns host and port for the rest. */
  checkUrl(url: string | URL, schemes: readonly string[] = WEB_SCHEMES): Decision & { host?: string; port?: number } {
    let u: URL;
    try {
      u = typeof url === 'string' ? new URL(url) : url;
    } catch {
      return { ok: false, rule: 'scheme', message: `egress denied: '${String(url).slice(0, 200)}' is not a valid URL` };
    }
    if (!schemes.includes(u.protocol)) {
      return {
        ok: false,
        rule: 'scheme',
        message: `egress denied: ${u.protocol} URLs are not allowed (only ${schemes.map((s) => s.replace(':', '')).join(', ')})`,
      };
    }
    const host = normalHost(u.hostname);
    const p = Number(u.port || DEFAULT_PORTS[u.protocol]);
    const d = this.check({ host, port: p });
    return d.ok ? { ok: true, host, port: p } : d;
  }

  /** Judges one destination. Without `ip`, an IP-literal host is judged as that address. */
  check(t: Target): Decision {
    const host = normalHost(t.host);
    const literal = parseIp(host);
    const ipText = t.ip ?? (literal ? host : undefined);
    const ip = ipText !== undefined ? parseIp(ipText) : null;
    if (ipText !== undefined && !ip) return { ok: false, rule: 'address', message: `egress denied: ${ipText} is not an IP address` };
    const shown = `${host.includes(':') ? `[${host}]` : host}:${t.port}${ip && !literal ? ` (${ip})` : ''}`;
    const always = (what: string, rule: string): Decision => ({
      ok: false,
      rule: `always:${rule}`,
      message: `egress denied: ${shown} is ${what} (always denied)`,
    });

    if (!literal && METADATA_NAMES.includes(host)) return always(METADATA, 'metadata');
    for (const a of ip ? [ip, ...embedded(ip)] : []) for (const r of ALWAYS) if (inRange(a, r.range)) return always(r.what, r.rule);
    for (const r of this.reserved) if (matches(r, host, ip, t.port)) return always(r.what, 'reserved');

    if (this.allow.some((e) => matches(e, host, ip, t.port))) return { ok: true };
    const denied = this.deny.find((e) => matches(e, host, ip, t.port));
    if (denied) return { ok: false, rule: 'EGRESS_DENY', message: `egress denied: ${shown} matches EGRESS_DENY entry '${denied.text}'` };
    if (ip && this.rules.private === 'deny' && ip.range() !== 'unicast') {
      return {
        ok: false,
        rule: 'EGRESS_PRIVATE',
        message: `egress denied: ${shown} is a private/loopback address (${ip.range()}; EGRESS_PRIVATE=deny)`,
      };
    }
    return { ok: true };
  }
}

function matches(e: Entry, host: string, ip: Addr | null, p: number): boolean {
  if (e.port !== null && e.port !== p) return false;
  if (e.kind === 'cidr') return !!ip && inRange(ip, e.range);
  return e.suffix ? host.endsWith(`.${e.name}`) : host === e.name;
}
