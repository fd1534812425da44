// Pending-run notices: each payload stays under PostgreSQL's 8000-byte NOTIFY limit, and reads
// back as the runs it carries; anything else reads as "unknown" (the worker then reads the table).
import { describe, expect, it } from 'vitest';
import { type PendingRun, parsePendingPayload, pendingPayloads } from '../../src/adapters/db/run-signals.js';

describe('pending-run notice payloads', () => {
  const runs: PendingRun[] = Array.from({ length: 1000 }, (_, i) => ({
    id: `01934b2e-0000-7000-8000-${String(i).padStart(12, '0')}`,
    userId: `user-${i % 7}`,
    sync: i % 3 === 0,
  }));

  it('splits many runs into payloads under the limit that read back as the same runs', () => {
    const payloads = pendingPayloads(runs);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(8000);
    expect(payloads.flatMap((p) => parsePendingPayload(p)!)).toEqual(runs);
  });

  it('sends nothing for no runs, one payload for one run', () => {
    expect(pendingPayloads([])).toEqual([]);
    expect(pendingPayloads(runs.slice(0, 1))).toHaveLength(1);
  });

  it('reads what is not a list of runs as unknown', () => {
    for (const bad of ['', 'x', '{}', '[1]', '[["a"]]', '[["a", 2]]', 'null']) expect(parsePendingPayload(bad)).toBeNull();
  });
});
