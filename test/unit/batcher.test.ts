// Group commit (src/runtime/host/batcher.ts): the inputs of one event-loop turn form one batch,
// one batch is written at a time, and what arrives meanwhile forms the next batch.
import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/runtime/host/batcher.js';

/** A batcher whose writes end when the test says so; it records each batch and how many overlap. */
function controlled() {
  const batches: number[][] = [];
  const finish: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const b = new Batcher<number, number>(async (xs) => {
    batches.push(xs);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    await new Promise<void>((r) => finish.push(r));
    inFlight--;
    if (xs.includes(-1)) throw new Error('refused');
    return xs.map((x) => x * 10);
  });
  return { b, batches, finish, maxInFlight: () => maxInFlight };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('Batcher', () => {
  it('writes one batch at a time; what arrives meanwhile goes in the next, whole', async () => {
    const { b, batches, finish, maxInFlight } = controlled();
    const first = [b.add(1), b.add(2)];
    await turn();
    expect(batches).toEqual([[1, 2]]);
    // While [1, 2] is written, three more arrive over several turns: they wait, together.
    const second = [b.add(3)];
    await turn();
    second.push(b.add(4));
    await turn();
    second.push(b.add(5));
    await turn();
    expect(batches).toEqual([[1, 2]]);
    finish[0]();
    expect(await Promise.all(first)).toEqual([10, 20]);
    await turn();
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    finish[1]();
    expect(await Promise.all(second)).toEqual([30, 40, 50]);
    expect(maxInFlight()).toBe(1);
  });

  it('a failed batch rejects its own inputs only, and the next batch is still written', async () => {
    const { b, batches, finish } = controlled();
    const bad = [b.add(-1), b.add(7)];
    await turn();
    const next = b.add(8);
    finish[0]();
    await expect(bad[0]).rejects.toThrow('refused');
    await expect(bad[1]).rejects.toThrow('refused');
    await turn();
    expect(batches).toEqual([[-1, 7], [8]]);
    finish[1]();
    expect(await next).toBe(80);
  });

  it('an idle batcher writes at the next turn', async () => {
    const { b, batches, finish } = controlled();
    const p = b.add(9);
    expect(batches).toEqual([]);
    await turn();
    expect(batches).toEqual([[9]]);
    finish[0]();
    expect(await p).toBe(90);
  });
});
