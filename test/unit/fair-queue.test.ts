// FairQueue properties (fast-check) over random pushes, picks and completions: no user ever has
// more than its limit running, every run is handed out exactly once, a user's sync runs go before
// its async ones, and a user with work and a free share waits at most one pick per other user.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/runtime/host/fair-queue.js';

type Op = { t: 'push'; user: number; sync: boolean } | { t: 'next' } | { t: 'done'; k: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('push' as const), user: fc.integer({ min: 0, max: 4 }), sync: fc.boolean() }),
  fc.constant({ t: 'next' as const }),
  fc.record({ t: fc.constant('done' as const), k: fc.nat() }),
);

describe('FairQueue', () => {
  it('limits, exactly-once, sync first, bounded wait', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.array(opArb, { maxLength: 300, size: 'max' }), (perUser, ops) => {
        const q = new FairQueue(perUser);
        let seq = 0;
        const queued = new Map<string, { user: string; sync: boolean }>();
        const running: { user: string; id: string }[] = [];
        const handedOut = new Set<string>();
        /** Picks since each user (with an eligible queued run) was last served. */
        const waited = new Map<string, number>();
        for (const op of ops) {
          if (op.t === 'push') {
            const id = `r${seq++}`;
            expect(q.push(`u${op.user}`, id, op.sync)).toBe(true);
            expect(q.push(`u${op.user}`, id, op.sync)).toBe(false);
            queued.set(id, { user: `u${op.user}`, sync: op.sync });
          } else if (op.t === 'next') {
            const n = q.next();
            const eligible = new Set(
              [...queued.values()].filter((r) => running.filter((x) => x.user === r.user).length < perUser).map((r) => r.user),
            );
            if (!n) {
              expect(eligible.size).toBe(0);
              continue;
            }
            expect(handedOut.has(n.runId)).toBe(false);
            const r = queued.get(n.runId)!;
            expect(r.user).toBe(n.userId);
            // Sync before async within the user.
            if (!r.sync) expect([...queued.values()].some((x) => x.user === n.userId && x.sync)).toBe(false);
            queued.delete(n.runId);
            handedOut.add(n.runId);
            running.push({ user: n.userId, id: n.runId });
            expect(running.filter((x) => x.user === n.userId).length).toBeLessThanOrEqual(perUser);
            for (const u of eligible) waited.set(u, u === n.userId ? 0 : (waited.get(u) ?? 0) + 1);
            for (const w of waited.values()) expect(w).toBeLessThanOrEqual(4); // 5 users: ≤ 4 others ahead
          } else if (running.length) {
            const [x] = running.splice(op.k % running.length, 1);
            q.done(x.user, x.id);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a run the limit across processes held back goes first again, and its user waits out the hold while others go on', () => {
    const q = new FairQueue(2);
    q.push('a', 'a1');
    q.push('a', 'a2');
    q.push('b', 'b1');
    const first = q.next()!;
    expect(first).toEqual({ userId: 'a', runId: 'a1', sync: false });
    q.giveBack('a', 'a1', false, 60_000);
    // a is held: b goes, then nothing; a1 is still known (a rescan doesn't queue it twice).
    expect(q.next()).toMatchObject({ runId: 'b1' });
    expect(q.next()).toBeNull();
    expect(q.push('a', 'a1')).toBe(false);
    const held = new FairQueue(2);
    held.push('a', 'a1');
    held.push('a', 'a2');
    held.giveBack('a', held.next()!.runId, false, 0);
    // Once the hold is over, a1 is first again, then a2, and the running count was given back.
    expect([held.next()?.runId, held.next()?.runId]).toEqual(['a1', 'a2']);
  });

  it('a claim that took a queued alternative swaps it in; gone runs leave the queue and can be queued again later', () => {
    const q = new FairQueue(2);
    for (const id of ['a1', 'a2', 'a3', 'a4']) q.push('a', id);
    q.push('a', 's1', true);
    // Sync first, then async, in the order next() takes them; nothing is taken by a peek.
    expect(q.peek('a', 3)).toEqual(['s1', 'a1', 'a2']);
    expect(q.next()).toMatchObject({ runId: 's1', sync: true });
    const a1 = q.next()!;
    expect(a1.runId).toBe('a1');
    // a1 was claimed elsewhere; its claim took a3: a3 leaves the queue and holds a1's slot.
    q.swap('a', 'a1', 'a3');
    q.forget('a', 'a2'); // claimed elsewhere too
    expect(q.peek('a', 5)).toEqual(['a4']);
    expect(q.push('a', 'a3')).toBe(false); // executing here: a rescan doesn't queue it
    expect(q.push('a', 'a1')).toBe(true); // no longer known here
    q.forget('a', 'a1');
    expect(q.next()).toBeNull(); // the limit of 2: s1 and a3 hold the slots
    q.done('a', 'a3');
    expect(q.next()).toMatchObject({ runId: 'a4' });
    expect(q.size).toBe(2); // s1 and a4
  });
});
