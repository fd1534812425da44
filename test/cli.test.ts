// The CLI as an operator uses it: first start prints a key once, keys can be created,
// listed and revoked, and the server honours that.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-cli-'));
const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: '', MASTER_KEY: '' };
const TSX = ['--import', 'tsx', 'src/start/cli.ts'];

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [...TSX, ...args], { env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Starts `serve`, waits until it listens, returns everything it printed and its URL. */
async function serveOnce(): Promise<{ out: string; url: string; stop: () => Promise<void> }> {
  const p = spawn(process.execPath, [...TSX, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) {
        clearInterval(t);
        resolve(m[1]);
      }
    }, 50);
    p.once('exit', (c) => {
      clearInterval(t);
      reject(new Error(`serve exited ${c}: ${out}`));
    });
  });
  return {
    get out() {
      return out;
    },
    url,
    stop: () =>
      new Promise<void>((r) => {
        p.once('exit', () => r());
        p.kill('SIGTERM');
      }),
  };
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('cli', () => {
  let firstKey = '';

  it('prints an API key on the first start only, and the key works', async () => {
    const s1 = await serveOnce();
    const m = /API key \(shown once, store it now\): (csk_\S+)/.exec(s1.out);
    expect(m).not.toBeNull();
    firstKey = m![1];
    const ok = await fetch(`${s1.url}/v1beta/secrets`, { headers: { authorization: `Bearer ${firstKey}` } });
    expect(ok.status).toBe(200);
    await s1.stop();
    // The key never reached a log line.
    expect(
      s1.out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .join('\n'),
    ).not.toContain(firstKey);

    const s2 = await serveOnce();
    expect(s2.out).not.toContain('API key');
    expect(s2.out).not.toContain(firstKey);
    await s2.stop();
    // The master key file was generated with mode 0600.
    expect(fs.statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    // DATA_DIR and what serve creates in it are owner-only (sandbox workers run as another uid).
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dataDir, 'connector.db')).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('creates, lists and revokes keys', async () => {
    const users = cli('users', 'list');
    expect(users.code).toBe(0);
    const userId = users.out.trim().split(/\s+/)[0];
    const created = cli('keys', 'create', '--user', userId, '--name', 'ci');
    expect(created.code).toBe(0);
    const key = /API key \(shown once, store it now\): (csk_\S+)/.exec(created.out)![1];
    const keyId = /key id: (\S+)/.exec(created.out)![1];
    const list = cli('keys', 'list');
    expect(list.out).toContain(keyId);
    expect(list.out).not.toContain(key);
    expect(list.out).not.toContain(firstKey);

    const s = await serveOnce();
    expect((await fetch(`${s.url}/v1beta/secrets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect(cli('keys', 'revoke', keyId).code).toBe(0);
    expect((await fetch(`${s.url}/v1beta/secrets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    await s.stop();
    expect(cli('keys', 'revoke', keyId).code).not.toBe(0);
  }, 60_000);

  it('refuses a bad configuration with a clear message', () => {
    const r = spawnSync(process.execPath, [...TSX, 'config'], { env: { ...env, PORT: 'abc', LOG_LEVEL: 'loud' }, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('PORT must be an integer');
    expect(r.stderr).toContain('LOG_LEVEL must be one of');
  });
});
