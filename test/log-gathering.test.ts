// Log lines on stdout are gathered into few writes (LOG_BUFFER_BYTES), yet none waits long and none
// is lost when the process exits. A real child process; the writes are counted as the pipe's reads.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_FLUSH_MS } from '../src/lib/logger.js';
import { until } from './helpers/processes.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function child(mode: 'spread' | 'exit', bytes: number) {
  const p = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/logging/child.ts', mode, String(bytes)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(p);
  const chunks: { at: number; text: string }[] = [];
  p.stdout!.on('data', (d: Buffer) => chunks.push({ at: Date.now(), text: d.toString() }));
  // Complete lines only (a read may end inside one).
  const lines = () => {
    const all = chunks.map((c) => c.text).join('');
    return all
      .slice(0, all.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  };
  // closed: exited, and its output read to the end ('exit' may come before the last read).
  return { p, chunks, lines, closed: new Promise((r) => p.once('close', r)) };
}

describe('gathered log lines', () => {
  it('writes lines logged over ~100 ms in a few writes, and the last of them within the flush interval', async () => {
    const c = child('spread', 4096);
    await until('20 lines', () => c.lines().length === 20, 15_000);
    expect(c.lines().map((l) => l.n)).toEqual([...Array(20).keys()]);
    expect(c.chunks.length).toBeLessThanOrEqual(3);
    // 20 short lines never fill 4096 bytes: the timer wrote them, soon after the last was logged
    // (pino's `time`; the slack is for a loaded machine).
    const last = c.chunks.at(-1)!.at - c.lines().at(-1).time;
    expect(last).toBeLessThan(LOG_FLUSH_MS + 1000);
    // Nothing more arrives: each line was written once.
    await new Promise((r) => setTimeout(r, 3 * LOG_FLUSH_MS));
    expect(c.lines()).toHaveLength(20);
  }, 30_000);

  it('writes each line at once with LOG_BUFFER_BYTES=0 (the control: the count above can fail)', async () => {
    const c = child('spread', 0);
    await until('20 lines', () => c.lines().length === 20, 15_000);
    expect(c.chunks.length).toBeGreaterThanOrEqual(10);
  }, 30_000);

  it('writes what is still gathered when the process exits', async () => {
    const c = child('exit', 4096);
    await c.closed;
    expect(c.lines().map((l) => l.msg)).toEqual(['the last line']);
  }, 30_000);
});
