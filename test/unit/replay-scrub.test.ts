// The validation replay's host side scrubs what it hands back (log tail, error, crash detail):
// a worker is not trusted to have scrubbed its own lines (docs/security.md, "the parent trusts
// nothing a worker says"). The worker here is a stand-in that reports secrets unscrubbed.
import { describe, expect, it } from 'vitest';
import { SandboxReplay } from '../../src/modules/connectors/replay.js';

const PW = "pw s'!é-sentinel-4711";
const CODE = '493817';

function replayWith(execute: (hooks: any) => Promise<any>) {
  return new SandboxReplay({
    pool: { execute: (_job: unknown, _t: number, hooks: any) => execute(hooks) } as any,
    browser: { closeRun: async () => {}, call: async () => ({}) } as any,
    egress: { rules: () => null } as any,
    // The single-use ledger hands this run one code (the parent adds it to the scrubber).
    totp: { claim: async () => ({ code: CODE, step: 1, waited_ms: 0, single_use: true }) } as any,
  });
}

describe('SandboxReplay scrubs in the parent', () => {
  const secrets = { acct: { type: 'login' as const, username: 'u', password: PW, totp_secret: 'JBSWY3DPEHPK3PXP' } };

  it('log lines, TOTP codes handed out and the error are scrubbed in every encoding', async () => {
    const r = replayWith(async (hooks) => {
      expect(await hooks.rpc('totp.code', { slot: 'acct' })).toMatchObject({ code: CODE });
      hooks.log('t', `GET http://h.test/?p=${encodeURIComponent(PW)} code ${CODE}`);
      hooks.log('t', `raw ${PW}`);
      return {
        kind: 'error',
        error: {
          type: 'unhandled',
          message: `bad ${PW}`,
          retryable: null,
          exception: null,
          details: { p: new URL(`http://h.test/${PW}`).pathname },
        },
      };
    });
    const { outcome, logs } = await r.run({ engine: 'script' } as any, {}, secrets, 1000);
    const text = JSON.stringify({ outcome, logs });
    for (const form of [PW, encodeURIComponent(PW), new URL(`http://h.test/${PW}`).pathname.slice(1), CODE])
      expect(text).not.toContain(form);
    expect(logs).toEqual(['GET http://h.test/?p=[redacted] code [redacted]', 'raw [redacted]']);
  });

  it('a crash detail is scrubbed too', async () => {
    const r = replayWith(async () => ({ kind: 'crash', detail: `died holding ${PW}` }));
    const { outcome } = await r.run({ engine: 'script' } as any, {}, secrets, 1000);
    expect(outcome).toEqual({ kind: 'crash', detail: 'died holding [redacted]' });
  });
});

describe('Scrubber.scrubValue', () => {
  it('keeps JSON syntax and the error field names whatever the secret (a one-letter username, "type")', async () => {
    const { Scrubber } = await import('../../src/runtime/shared/scrub.js');
    const s = new Scrubber();
    s.add('n', 'identity');
    s.add('type');
    const err = { type: 'unhandled', message: 'no type here', retryable: null, exception: null, details: { type: 'x', nested: ['n'] } };
    const out = s.scrubValue(err);
    expect(Object.keys(out)).toEqual(['type', 'message', 'retryable', 'exception', 'details']);
    expect([out.retryable, out.exception]).toEqual([null, null]);
    expect(out.message).toBe('[redacted]o [redacted] here');
    expect(out.details).toEqual({ '[redacted]': 'x', '[redacted]ested': ['[redacted]'] });
  });
});
