// Resolve, check every address, connect to the checked one: the step that closes the DNS-
// rebinding gap. A name is looked up once here; the caller connects to the returned address
// (never looks the name up again), so what was checked is what gets connected to.
import dns from 'node:dns/promises';
import { EgressDenied, parseIp, type EgressPolicy } from './policy.js';

export interface Pinned {
  address: string;
  family: 4 | 6;
}

export type LookupAll = (host: string) => Promise<{ address: string; family: number }[]>;

/**
 * The system resolver with a short memory: a page with a hundred subresources (or a run with a
 * hundred requests) to one host asks DNS once, not once per request. Only answers are kept;
 * every request is still checked against them, and connects to what was checked.
 */
const CACHE_MS = 10_000;
const cache = new Map<string, { until: number; answers: Promise<{ address: string; family: number }[]> }>();
const systemLookup: LookupAll = (host) => {
  const now = Date.now();
  const hit = cache.get(host);
  if (hit && hit.until > now) return hit.answers;
  if (cache.size >= 1000) cache.clear();
  const answers = dns.lookup(host, { all: true, verbatim: true });
  cache.set(host, { until: now + CACHE_MS, answers });
  answers.catch(() => cache.delete(host)); // failures are not remembered
  return answers;
};

/**
 * Checks host:port (name rules, then EVERY address the name resolves to: one denied address
 * denies the name, so a resolver can't slip a private answer in among public ones) and returns
 * the address to connect to. Throws EgressDenied, or the resolver's error (ENOTFOUND …).
 */
export async function resolveChecked(policy: EgressPolicy, host: string, port: number, lookup: LookupAll = systemLookup): Promise<Pinned> {
  const h = host.replace(/^\[|\]$/g, '');
  const pre = policy.check({ host: h, port });
  if (!pre.ok) throw EgressDenied.from(pre);
  const literal = parseIp(h) !== null;
  const found = literal ? [{ address: h, family: h.includes(':') ? 6 : 4 }] : await lookup(h);
  if (!found.length) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: 'ENOTFOUND' });
  for (const a of found) {
    const d = policy.check({ host: h, port, ip: a.address });
    if (!d.ok) throw EgressDenied.from(d);
  }
  return { address: found[0].address, family: found[0].family === 6 ? 6 : 4 };
}

/**
 * With an upstream proxy the proxy connects, so nothing can be pinned: check the name, and the
 * addresses it resolves to HERE when it resolves at all (the proxy may see other answers).
 * Best effort by nature; the always-deny rules on literals and names still hold exactly.
 */
export async function checkViaProxy(policy: EgressPolicy, host: string, port: number, lookup: LookupAll = systemLookup): Promise<void> {
  try {
    await resolveChecked(policy, host, port, lookup);
  } catch (e) {
    if (e instanceof EgressDenied) throw e;
    // Not resolvable here: the proxy may resolve it; the name rules already passed.
  }
}
