// The sandbox workers' V8 flags (src/runtime/host/sandbox-v8-flags.ts): the lower tier-up budget
// goes only to V8 11 (Node 20), and whatever this Node gets, it starts with: a flag its V8 does
// not know would stop every sandbox worker at start.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sandboxV8Flags } from '../src/runtime/host/sandbox-v8-flags.js';

const run = promisify(execFile);

describe('sandbox V8 flags', () => {
  it('lowers the tier-up budget on V8 11 only', () => {
    expect(sandboxV8Flags('11.3.244.8-node.38')).toEqual(['--interrupt-budget=8448']);
    expect(sandboxV8Flags('12.4.254.21-node.33')).toEqual([]);
    expect(sandboxV8Flags('13.6.233.17-node.53')).toEqual([]);
  });

  it("this Node starts with this V8's flags", async () => {
    const { stdout, stderr } = await run(process.execPath, [...sandboxV8Flags(), '-e', 'process.stdout.write("started")']);
    expect(stdout).toBe('started');
    expect(stderr).toBe('');
  });
});
