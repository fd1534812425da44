// The egress policy as pure rules (src/egress/policy.ts) and resolve-and-pin (resolve.ts) with a
// scripted resolver: the always-denied set can't be re-opened, every encoding of an address is
// judged as that address, one bad DNS answer denies the name (rebinding), entries parse strictly.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadConfig, type Config } from '../../src/config.js';
import { Egress } from '../../src/egress/egress.js';
import { EgressDenied, EgressPolicy, parseEntry, parseList, type EgressRules } from '../../src/egress/policy.js';
import { resolveChecked } from '../../src/egress/resolve.js';
import { policyFor } from '../../src/runtime/worker/engines/context.js';

const rules = (r: Partial<EgressRules> = {}): EgressRules => ({ private: 'allow', allow: [], deny: [], reserved: [], ...r });
const SELF = [{ entry: '127.0.0.1:8080', what: "this service's own API" }];
const verdict = (p: EgressPolicy, host: string, port = 80, ip?: string) => {
  const d = p.check({ host, port, ip });
  return d.ok ? 'allow' : d.message;
};

describe('egress policy', () => {
  it('allows only http and https URLs', () => {
    const p = new EgressPolicy();
    for (const u of [
      'file:///etc/passwd',
      'ftp://example.com/',
      'data:text/html,hi',
      'javascript:alert(1)',
      'chrome://version',
      'view-source:http://example.com/',
      'gopher://127.0.0.1:5432/',
    ]) {
      const d = p.checkUrl(u);
      expect(d.ok, u).toBe(false);
      expect(!d.ok && d.message, u).toMatch(/^egress denied: [a-z-]+: URLs are not allowed \(only http, https\)$/);
    }
    expect(p.checkUrl('https://example.com/x')).toMatchObject({ ok: true, host: 'example.com', port: 443 });
    expect(p.checkUrl('http://[::1]:81/')).toMatchObject({ ok: true, host: '::1', port: 81 });
  });

  it('always denies link-local and cloud metadata, in every spelling, whatever EGRESS_ALLOW says', () => {
    const open = new EgressPolicy(rules({ allow: ['0.0.0.0/0', '::/0', '169.254.169.254', 'metadata.google.internal'] }));
    for (const u of [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/', // decimal 169.254.169.254: the URL parser normalizes it
      'http://0xa9.0xfe.0xa9.0xfe/',
      'http://169.254.1.1:8080/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[64:ff9b::a9fe:a9fe]/', // NAT64
      'http://[2002:a9fe:a9fe::1]/', // 6to4
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      'http://100.100.100.200/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://METADATA.Google.Internal./',
    ]) {
      const d = open.checkUrl(u);
      expect(d.ok, u).toBe(false);
      expect(!d.ok && d.message, u).toMatch(/is link-local\/cloud metadata \(always denied\)$/);
    }
    expect(verdict(open, 'metadata.google.internal')).toMatch(/always denied/);
    // A name resolving to a metadata address is judged by the address.
    expect(verdict(open, 'innocent.example', 80, '169.254.169.254')).toBe(
      'egress denied: innocent.example:80 (169.254.169.254) is link-local/cloud metadata (always denied)',
    );
  });

  it('always denies unspecified and multicast addresses, and the reserved endpoints by ip:port or host:port', () => {
    const p = new EgressPolicy(
      rules({
        allow: ['0.0.0.0/0', '::/0'],
        reserved: [
          ...SELF,
          { entry: 'db.internal:5432', what: "this service's database" },
          { entry: '[::1]:8080', what: "this service's own API" },
        ],
      }),
    );
    expect(verdict(p, '0.0.0.0', 8080)).toMatch(/0\.0\.0\.0:8080 is an unspecified address \(always denied\)/);
    expect(verdict(p, '0.1.2.3')).toMatch(/unspecified/);
    expect(verdict(p, '::')).toMatch(/unspecified/);
    expect(verdict(p, '224.0.0.1')).toMatch(/multicast/);
    expect(verdict(p, '127.0.0.1', 8080)).toBe("egress denied: 127.0.0.1:8080 is this service's own API (always denied)");
    expect(verdict(p, '::ffff:127.0.0.1', 8080)).toMatch(/own API/);
    expect(verdict(p, '[::1]', 8080)).toMatch(/own API/);
    expect(verdict(p, 'localhost', 8080, '127.0.0.1')).toBe(
      "egress denied: localhost:8080 (127.0.0.1) is this service's own API (always denied)",
    );
    expect(verdict(p, '127.0.0.1', 8081)).toBe('allow');
    expect(verdict(p, 'db.internal', 5432)).toMatch(/this service's database \(always denied\)/);
    expect(verdict(p, 'db.internal', 443)).toBe('allow');
  });

  it('allows private and loopback by default; EGRESS_PRIVATE=deny denies them; EGRESS_ALLOW re-opens entries', () => {
    const single = new EgressPolicy(rules());
    const multi = new EgressPolicy(rules({ private: 'deny', allow: ['10.1.0.0/16', '*.corp.example', '127.0.0.1:3000'] }));
    for (const ip of [
      '127.0.0.1',
      '10.0.0.5',
      '172.16.3.4',
      '192.168.1.1',
      '100.64.0.1',
      '::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:10.0.0.5',
    ]) {
      expect(verdict(single, ip), ip).toBe('allow');
      expect(verdict(multi, ip), ip).toMatch(/is a private\/loopback address \(\w+; EGRESS_PRIVATE=deny\)$/);
    }
    expect(verdict(multi, '8.8.8.8')).toBe('allow');
    expect(verdict(multi, '2606:4700::1111')).toBe('allow');
    expect(verdict(multi, '10.1.2.3')).toBe('allow');
    expect(verdict(multi, 'git.corp.example', 443, '10.9.9.9')).toBe('allow');
    expect(verdict(multi, 'corp.example', 443, '10.9.9.9')).toMatch(/EGRESS_PRIVATE/);
    expect(verdict(multi, '127.0.0.1', 3000)).toBe('allow');
    expect(verdict(multi, '127.0.0.1', 3001)).toMatch(/EGRESS_PRIVATE/);
  });

  it('EGRESS_DENY by CIDR, CIDR:port, host and *.domain; allow wins over deny', () => {
    const p = new EgressPolicy(
      rules({
        deny: ['203.0.113.0/24', '198.51.100.7:22', '[2001:db8::]/32:443', 'evil.example', '*.tracker.example', '0.0.0.0/0'],
        allow: ['203.0.113.9', 'good.example'],
      }),
    );
    expect(verdict(p, '203.0.113.5')).toBe("egress denied: 203.0.113.5:80 matches EGRESS_DENY entry '203.0.113.0/24'");
    expect(verdict(p, '203.0.113.9')).toBe('allow');
    expect(verdict(p, '198.51.100.7', 22)).toMatch(/'198\.51\.100\.7:22'/);
    expect(verdict(p, '2001:db8::5', 443)).toMatch(/\[2001:db8::\]\/32:443/);
    expect(verdict(p, '2001:db8::5', 80)).toBe('allow');
    expect(verdict(p, 'evil.example', 443, '93.184.216.34')).toMatch(/'evil\.example'/);
    expect(verdict(p, 'a.b.tracker.example', 443, '93.184.216.34')).toMatch(/'\*\.tracker\.example'/);
    expect(verdict(p, 'good.example', 443, '93.184.216.34')).toBe('allow');
    expect(verdict(p, 'other.example', 443, '93.184.216.34')).toMatch(/'0\.0\.0\.0\/0'/);
  });

  it('parses entries strictly', () => {
    expect(parseEntry('10.0.0.0/8:5432')).toMatchObject({ kind: 'cidr', port: 5432 });
    expect(parseEntry('[::1]:8080')).toMatchObject({ kind: 'cidr', port: 8080 });
    expect(parseEntry('fd00::/8')).toMatchObject({ kind: 'cidr', port: null });
    expect(parseEntry('*.Corp.Example:443')).toMatchObject({ kind: 'host', name: 'corp.example', suffix: true, port: 443 });
    for (const bad of ['10.0.0.0/33', '1.2.3.4:99999', 'http://x', 'a b', '10.1', '::1/200', 'host:0', '*.'])
      expect(() => parseEntry(bad), bad).toThrow(/is not a CIDR/);
    expect(parseList(' 10.0.0.0/8, host.example ,,[::1]:1 ')).toEqual(['10.0.0.0/8', 'host.example', '[::1]:1']);
    expect(() => parseList('10.0.0.0/8,nope/x')).toThrow(/'nope\/x'/);
  });

  it('property: an IPv4 address and its IPv4-mapped IPv6 form always get the same verdict', () => {
    const p = new EgressPolicy(rules({ private: 'deny', deny: ['203.0.113.0/24'], reserved: SELF }));
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 1, max: 65535 }), (ip, port) => {
        expect(verdict(p, `::ffff:${ip}`, port)).toBe(verdict(p, ip, port).replace(ip, `[::ffff:${ip}]`));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: nothing in 169.254.0.0/16 is ever allowed, whatever the allow list', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('0.0.0.0/0', '169.254.0.0/16', '::/0', '169.254.169.254', '::ffff:169.254.0.0/112'), { maxLength: 4 }),
        fc.integer({ min: 0, max: 65535 }),
        fc.integer({ min: 1, max: 65535 }),
        (allow, n, port) => {
          const p = new EgressPolicy(rules({ allow }));
          const ip = `169.254.${n >> 8}.${n & 255}`;
          expect(p.check({ host: ip, port }).ok).toBe(false);
          expect(p.check({ host: 'x.example', port, ip: `::ffff:${ip}` }).ok).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('resolve and pin', () => {
  const p = new EgressPolicy(rules({ reserved: SELF }));
  const dns = (answers: Record<string, string[]>) => {
    const asked: string[] = [];
    const lookup = async (host: string) => {
      asked.push(host);
      return (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    return { asked, lookup };
  };

  it('returns the checked address to connect to', async () => {
    const { lookup } = dns({ 'site.example': ['93.184.216.34', '2606:2800::1'] });
    expect(await resolveChecked(p, 'site.example', 443, lookup)).toEqual({ address: '93.184.216.34', family: 4 });
  });

  it('denies the name when ANY answer is denied (a rebinding resolver mixing in a metadata or self address)', async () => {
    const { lookup } = dns({ 'rebind.example': ['93.184.216.34', '169.254.169.254'], 'self.example': ['8.8.8.8', '127.0.0.1'] });
    await expect(resolveChecked(p, 'rebind.example', 80, lookup)).rejects.toThrow(
      'egress denied: rebind.example:80 (169.254.169.254) is link-local/cloud metadata (always denied)',
    );
    await expect(resolveChecked(p, 'self.example', 8080, lookup)).rejects.toBeInstanceOf(EgressDenied);
    expect((await resolveChecked(p, 'self.example', 8081, lookup)).address).toBe('8.8.8.8');
  });

  it('judges IP literals without asking DNS, names before asking it', async () => {
    const { asked, lookup } = dns({});
    await expect(resolveChecked(p, '[::ffff:169.254.169.254]', 80, lookup)).rejects.toThrow(/always denied/);
    await expect(resolveChecked(p, 'metadata.google.internal', 80, lookup)).rejects.toThrow(/always denied/);
    expect(await resolveChecked(p, '10.0.0.1', 80, lookup)).toEqual({ address: '10.0.0.1', family: 4 });
    await expect(resolveChecked(p, 'nowhere.example', 80, lookup)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(asked).toEqual(['nowhere.example']);
  });
});

describe('the server side: own listeners, PUBLIC_BASE_URL, DATABASE_URL', () => {
  const cfg = (over: Partial<Config> = {}) => loadConfig({ DATA_DIR: os.tmpdir(), PORT: '0' }, over);

  it('a listener on every interface reserves that port on loopback and on each local address', async () => {
    const e = await Egress.fromConfig(cfg());
    e.addListener({ address: '0.0.0.0', family: 'IPv4', port: 8080 });
    const p = e.policy();
    const local = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal)
      .map((i) => i!.address.replace(/%.*$/, ''));
    for (const ip of ['127.0.0.1', '127.0.0.53', '::1', '::ffff:127.0.0.1', ...local])
      expect(verdict(p, ip, 8080), ip).toMatch(/(own API|link-local\/cloud metadata) \(always denied\)/);
    expect(verdict(p, '127.0.0.1', 8081)).toBe('allow');
  });

  it('a listener on one address reserves exactly it; PUBLIC_BASE_URL is read when the rules are built', async () => {
    const c = cfg();
    const e = await Egress.fromConfig(c);
    e.addListener({ address: '127.0.0.1', family: 'IPv4', port: 9000 });
    expect(verdict(e.policy(), '127.0.0.2', 9000)).toBe('allow');
    expect(verdict(e.policy(), '127.0.0.1', 9000)).toMatch(/own API/);
    c.publicBaseUrl = 'https://connectors.example.com';
    expect(e.rules().reserved).toContainEqual({ entry: 'connectors.example.com:443', what: "this service's own API" });
    e.addProxyPort(5555);
    expect(verdict(e.policy(), '127.0.0.1', 5555)).toMatch(/browser egress proxy \(always denied\)/);
    e.removeProxyPort(5555);
    expect(verdict(e.policy(), '127.0.0.1', 5555)).toBe('allow');
  });

  it("DATABASE_URL's endpoint is reserved by name and by every address the name has", async () => {
    const e = await Egress.fromConfig(cfg({ databaseUrl: 'postgres://u@localhost:6543/db' }));
    const p = e.policy();
    expect(verdict(p, 'localhost', 6543)).toMatch(/this service's database \(always denied\)/);
    expect(verdict(p, '127.0.0.1', 6543)).toMatch(/this service's database/);
    expect(verdict(p, '127.0.0.1', 5432)).toBe('allow');
  });
});

describe('the sandbox worker reuses the parsed policy of the same rules', () => {
  it('parses rules once while they stay the same, and afresh when any part changes', () => {
    const first = policyFor(rules({ reserved: SELF }));
    expect(policyFor(rules({ reserved: SELF }))).toBe(first);
    expect(verdict(first, '10.0.0.1')).toBe('allow');
    // A job carrying different rules (the server's configuration changed) gets a policy of its own.
    const denying = policyFor(rules({ private: 'deny', reserved: SELF }));
    expect(denying).not.toBe(first);
    expect(verdict(denying, '10.0.0.1')).toMatch(/EGRESS_PRIVATE=deny/);
    const withDeny = policyFor(rules({ private: 'deny', deny: ['93.184.216.34'], reserved: SELF }));
    expect(verdict(withDeny, '93.184.216.34')).toMatch(/EGRESS_DENY/);
    expect(policyFor(rules({ reserved: SELF }))).not.toBe(denying);
    expect(verdict(policyFor(rules({ reserved: SELF })), '10.0.0.1')).toBe('allow');
  });
});
