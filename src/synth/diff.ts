// Stage 8: two recordings of the same flow. Literals at the same place of the same endpoint that
// are equal in both are constants; those that differ without being typed are dynamic and must
// be traced. Places are matched by (endpoint, occurrence, slot kind, key).
import { requestSlots } from './slots.js';
import { endpointKey } from './target.js';
import type { Exchange } from './types.js';

export function diffRecordings(a: Exchange[], b: Exchange[]): { constants: Set<string>; dynamics: Set<string> } {
  const index = (xs: Exchange[]) => {
    const seen = new Map<string, number>();
    const out = new Map<string, string>();
    for (const x of xs) {
      const k = endpointKey(x);
      const n = (seen.get(k) ?? 0) + 1;
      seen.set(k, n);
      for (const s of requestSlots(x)) out.set(`${k}#${n} ${s.where} ${s.key}`, s.value);
      for (const c of x.reqCookies) out.set(`${k}#${n} cookie ${c.name}`, c.value);
    }
    return out;
  };
  const ia = index(a);
  const ib = index(b);
  const constants = new Set<string>();
  const dynamics = new Set<string>();
  for (const [k, v] of ia) {
    const w = ib.get(k);
    if (w === undefined || v === '') continue;
    if (w === v) constants.add(v);
    else dynamics.add(v);
  }
  // A value that is dynamic somewhere is not a constant anywhere.
  for (const d of dynamics) constants.delete(d);
  return { constants, dynamics };
}
