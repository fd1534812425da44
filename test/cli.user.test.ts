// The user CLI (sdk/src/cli.ts) as a real child process against the real server on SQLite and
// PostgreSQL: --json output for scripts, exit codes (0 ok, 1 run failed / API error, 2 usage,
// 3 auth), secrets whose password comes from piped stdin and never shows up in any output, runs
// with --wait, logs --follow, file round trips, publishing from a HAR, capture sessions; and, in
// a pseudo-terminal (`script` from util-linux), the spinner, the progress bar and the hidden prompt.
import { execFile, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import { httpSearchDefinition, LOGIN_SLOT, SEARCH_INPUT, SEARCH_OUTPUT } from './fixtures/definitions.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { fixtureHar } from './helpers/synth.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'sdk/src/cli.ts');
// `node --import tsx sdk/src/cli.ts`, with tsx resolved from the repository (the CLI runs in a temp directory).
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe.each(await backends())('connector CLI (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let tmp: string;
  let search: any;
  const env = (extra: Record<string, string> = {}) => ({ ...process.env, CONNECTOR_API_URL: h.url, CONNECTOR_API_KEY: h.key, ...extra });

  /** Runs the CLI as `node --import tsx sdk/src/cli.ts …` with stdin piped (`input`, then EOF). */
  const cli = (args: string[], opts: { input?: string | Buffer; env?: Record<string, string> } = {}) =>
    new Promise<Result>((resolve, reject) => {
      const p = spawn(process.execPath, ['--import', TSX, CLI, ...args], { cwd: tmp, env: env(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.setEncoding('latin1').on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('error', reject);
      p.on('close', (code) => resolve({ code, stdout, stderr }));
      p.stdin.end(opts.input ?? '');
    });
  const json = (r: Result) => {
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };

  /** Runs the CLI in a pseudo-terminal (stdin, stdout and stderr are a TTY); `answer` is typed once `waitFor` appears. */
  const inTty = (args: string[], opts: { waitFor?: string; answer?: string } = {}) =>
    new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const cmd = [process.execPath, '--import', TSX, CLI, ...args].map(shq).join(' ');
      const p = spawn('script', ['-qec', cmd, '/dev/null'], { cwd: tmp, env: env({ COLUMNS: '120' }), stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let answered = false;
      p.stdout.on('data', (d) => {
        out += d;
        if (opts.waitFor && !answered && out.includes(opts.waitFor)) {
          answered = true;
          // Typed slowly enough that the prompt has switched echo off first.
          setTimeout(() => p.stdin.write(opts.answer ?? ''), 300);
        }
      });
      p.stderr.on('data', (d) => (out += d));
      p.on('error', reject);
      p.on('close', (code) => resolve({ code, out }));
      if (!opts.waitFor) p.stdin.end();
    });

  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend, { TOTP_CODE_REUSE: 'allow' });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-user-'));
    fs.writeFileSync(
      path.join(tmp, 'search.json'),
      JSON.stringify({
        display_name: 'Demo search',
        purpose: 'Search the demo shop',
        website: site.url,
        definition: httpSearchDefinition(site.url),
        input_schema: SEARCH_INPUT,
        output_schema: SEARCH_OUTPUT,
        required_secrets: [LOGIN_SLOT],
      }),
    );
    search = json(await cli(['connectors', 'publish', '--file', 'search.json', '--json']));
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await fetch(`${site.url}/__reset`, { method: 'POST' });
  });

  const slowConnector = async (ms: number) => {
    const file = path.join(tmp, `slow-${ms}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify({
        display_name: `slow ${ms}`,
        purpose: 'waits',
        input_schema: { type: 'object' },
        output_schema: {},
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          steps: [{ id: 'w', url: `${site.url}/api/slow?ms=${ms}`, extract: { w: { from: 'json', path: '$.waited_ms' } } }],
          result: { waited: '{{vars.w}}' },
        },
      }),
    );
    return json(await cli(['connectors', 'publish', '--file', file, '--json']));
  };

  it('connectors publish/list/show: --json for scripts, readable text by default', async () => {
    expect(search).toMatchObject({ display_name: 'Demo search', version: 1, website: site.url });
    const listed = json(await cli(['connectors', 'list', '--json']));
    expect(listed.map((c: any) => c.id)).toContain(search.id);
    const table = await cli(['connectors', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+VERSION\s+NAME\s+WEBSITE/);
    expect(table.stdout).toContain(`${search.id}  v1       Demo search`);
    const show = await cli(['connectors', 'show', search.id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Arguments: query, page_size?');
    expect(show.stdout).toContain('Secrets:   account (login, totp)');
    const def = json(await cli(['connectors', 'show', search.id, '--definition', '--json']));
    expect(def.definition.engine).toBe('http');
  });

  it('secrets create reads the password from piped stdin and never prints it; runs create --wait uses the secret', async () => {
    const password = 'wonderland';
    const created = await cli(['secrets', 'create', '--kind', 'login', '--username', 'alice', '--json'], { input: `${password}\n` });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout + created.stderr).not.toContain(password);
    const secret = JSON.parse(created.stdout);
    expect(secret).toMatchObject({ name: 'alice login', secret_type: 'login', has_totp: false });
    const listed = await cli(['secrets', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`${secret.id}\\s+login\\s+-\\s+alice login`));
    expect(listed.stdout).not.toContain(password);

    // The stored password logs in on the demo site: the run succeeds.
    const run = await cli([
      'runs',
      'create',
      search.id,
      '--arg',
      'query=gamma',
      '--arg',
      'page_size:=3',
      '--secret',
      `account=${secret.id}`,
      '--wait',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r).toMatchObject({ status: 'success', connector_id: search.id });
    expect(r.result.items.map((i: any) => i.id)).toEqual([3, 8, 13, 18, 23, 28, 33, 38]);
    expect(run.stderr).toBe(''); // no spinner when stderr is not a terminal

    // Human output, --args-json, and a wrong password → the run fails → exit 1.
    const human = await cli([
      'runs',
      'create',
      search.id,
      '--args-json',
      '{"query":"delta"}',
      '--secret',
      `account=${secret.id}`,
      '--wait',
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^Run \S+: success {2}\(connector \S+ v1\)\n\{/);
    const wrong = JSON.parse(
      (await cli(['secrets', 'create', '--kind', 'login', '--username', 'alice', '--name', 'bad', '--json'], { input: 'nope\n' })).stdout,
    );
    const failed = await cli(['runs', 'create', search.id, '--arg', 'query=x', '--secret', `account=${wrong.id}`, '--wait']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/: connector_error/);
    expect(failed.stdout).toMatch(/\nError: \w+: /);

    // Empty stdin is a usage error; a --password flag is refused without echoing its value.
    expect((await cli(['secrets', 'create', '--kind', 'login', '--username', 'u'])).code).toBe(2);
    const flag = await cli(['secrets', 'create', '--kind', 'login', '--username', 'u', '--password=hunter2']);
    expect(flag.code).toBe(2);
    expect(flag.stdout + flag.stderr).not.toContain('hunter2');
    // A string secret, and a login with a TOTP seed on the second line.
    const str = await cli(['secrets', 'create', '--kind', 'string', '--name', 'token', '--json'], { input: 'tok-123\n' });
    expect(JSON.parse(str.stdout)).toMatchObject({ secret_type: 'string' });
    const totp = await cli(['secrets', 'create', '--kind', 'login', '--username', 'bob', '--totp', '--json'], {
      input: 'builder\nJBSWY3DPEHPK3PXP\n',
    });
    expect(JSON.parse(totp.stdout)).toMatchObject({ has_totp: true });
    expect(totp.stdout + totp.stderr).not.toMatch(/builder|JBSWY3DPEHPK3PXP/);
  });

  it('runs create (async), runs logs --follow, runs get', async () => {
    const slow = await slowConnector(1500);
    const started = json(await cli(['runs', 'create', slow.id, '--json']));
    expect(started.status).toBe('pending');
    const follow = await cli(['runs', 'logs', started.id, '--follow']);
    expect(follow.code, follow.stderr).toBe(0);
    expect(follow.stdout).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/api\/slow\?ms=1500/);
    expect(follow.stderr).toContain(`Run ${started.id} ended: success`);
    const got = json(await cli(['runs', 'get', started.id, '--json']));
    expect(got).toMatchObject({ status: 'success', result: { waited: 1500 } });
    const runs = json(await cli(['runs', 'list', slow.id, '--json']));
    expect(runs.map((r: any) => r.id)).toEqual([started.id]);
    const logs = await cli(['runs', 'logs', started.id]);
    expect(logs.stdout).toBe(follow.stdout);
  });

  it('exit codes: 3 for a bad or missing key, 2 for usage errors, 1 for API errors (404, 422 with its entries)', async () => {
    const bad = await cli(['connectors', 'list'], { env: { CONNECTOR_API_KEY: 'csk_nope' } });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/authentication failed/);
    expect((await cli(['connectors', 'list'], { env: { CONNECTOR_API_KEY: '' } })).code).toBe(3);
    const badJson = await cli(['connectors', 'list', '--json'], { env: { CONNECTOR_API_KEY: 'csk_nope' } });
    expect(badJson.code).toBe(3);
    expect(JSON.parse(badJson.stderr)).toMatchObject({ error: { status: 401, exit_code: 3 } });
    // The flag beats the variable.
    expect((await cli(['connectors', 'list', '--api-key', h.key], { env: { CONNECTOR_API_KEY: 'csk_nope' } })).code).toBe(0);

    for (const args of [
      [],
      ['nope'],
      ['runs', 'explode'],
      ['runs', 'create'],
      ['runs', 'create', 'x', '--bogus'],
      ['runs', 'create', 'x', '--arg', 'novalue'],
      ['runs', 'create', 'x', '--arg', 'n:={bad'],
    ]) {
      const r = await cli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
    }
    expect((await cli(['--help'])).code).toBe(0);
    expect((await cli(['runs', 'create', '--help'])).stdout).toMatch(/^usage: connector runs create/);

    const nf = await cli(['runs', 'get', 'no-such-run']);
    expect(nf.code).toBe(1);
    expect(nf.stderr).toMatch(/404 GET \/v1beta\/runs\/no-such-run: Run not found/);
    const invalid = await cli(['runs', 'create', search.id, '--arg', 'page_size=3', '--max-timeout', '0', '--wait']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/refused \(422\)/);
    expect(invalid.stderr).toMatch(/body\.max_timeout_s: /);
    const invalidJson = await cli(['runs', 'create', search.id, '--max-timeout', '0', '--json']);
    expect(JSON.parse(invalidJson.stderr).error).toMatchObject({
      status: 422,
      detail: expect.arrayContaining([expect.objectContaining({ loc: ['body', 'max_timeout_s'] })]),
    });
    const down = await cli(['connectors', 'list'], { env: { CONNECTOR_API_URL: 'http://127.0.0.1:1' } });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach/);
  });

  it('files upload / download round trip (file, stdout), existing files are not overwritten without --force', async () => {
    const bytes = crypto.randomBytes(200_000);
    fs.writeFileSync(path.join(tmp, 'data.bin'), bytes);
    const up = json(await cli(['files', 'upload', 'data.bin', '--json']));
    expect(up).toMatchObject({ name: 'data.bin', size_bytes: 200_000, source: 'UPLOAD' });
    const human = await cli(['files', 'upload', 'data.bin', '--name', 'copy.bin']);
    expect(human.stdout).toMatch(/^Uploaded copy\.bin {2}\(\S+, 195 KiB, application\/octet-stream, crc32c \S+\)/);
    expect(human.stderr).toBe('');

    const dl = await cli(['files', 'download', up.id, '-o', 'back.bin']);
    expect(dl.code, dl.stderr).toBe(0);
    expect(Buffer.compare(fs.readFileSync(path.join(tmp, 'back.bin')), bytes)).toBe(0);
    expect((await cli(['files', 'download', up.id, '-o', 'back.bin'])).code).toBe(1);
    expect((await cli(['files', 'download', up.id, '-o', 'back.bin', '--force'])).code).toBe(0);
    const toStdout = await cli(['files', 'download', up.id, '-o', '-']);
    expect(Buffer.compare(Buffer.from(toStdout.stdout, 'latin1'), bytes)).toBe(0);
    // The same through the root npm script, run from another directory: paths are the caller's.
    const viaNpm = await new Promise<Result>((resolve) =>
      execFile(
        'npm',
        ['--prefix', ROOT, 'run', '-s', 'connector', '--', 'files', 'upload', 'data.bin', '--json'],
        { cwd: tmp, env: env() },
        (err, stdout, stderr) => resolve({ code: err ? ((err as any).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(json(viaNpm)).toMatchObject({ name: 'data.bin', size_bytes: 200_000, crc32c: up.crc32c });
    const listed = json(await cli(['files', 'list', '--json']));
    expect(listed.map((f: any) => f.id)).toContain(up.id);
    expect((await cli(['files', 'upload', 'missing.bin'])).code).toBe(2);
  });

  it('connectors publish --recording synthesizes from a HAR; revise --recording publishes version 2', async () => {
    fs.writeFileSync(path.join(tmp, 'a.har'), fixtureHar('a-search', site.url));
    fs.writeFileSync(path.join(tmp, 'a2.har'), fixtureHar('a-search-2', site.url));
    const alice = JSON.parse(
      (await cli(['secrets', 'create', '--kind', 'login', '--username', 'alice', '--json'], { input: 'wonderland\n' })).stdout,
    );
    const hints = JSON.stringify({ arguments: { query: 'gamma' }, secrets: { account: alice.id } });
    const c = json(
      await cli([
        'connectors',
        'publish',
        '--recording',
        'a.har',
        '--name',
        'From HAR',
        '--purpose',
        'search',
        '--website',
        site.url,
        '--hints-json',
        hints,
        '--json',
      ]),
    );
    expect(c).toMatchObject({ display_name: 'From HAR', version: 1 });
    await fetch(`${site.url}/__reset`, { method: 'POST' });
    const v2 = await cli(['connectors', 'revise', c.id, '--recording', 'a2.har', '--hints-json', hints]);
    expect(v2.code, v2.stderr).toBe(0);
    expect(v2.stdout).toContain(`Published version 2 of From HAR (${c.id}).`);
  });

  it('capture create prints the live view URL; capture abandon ends it', async () => {
    const human = await cli(['capture', 'create', `${site.url}/login`]);
    expect(human.code, human.stderr).toBe(0);
    const url = /Live view \(open it in a browser, or embed it in an iframe\): (\S+)/.exec(human.stdout)?.[1];
    expect(url).toMatch(new RegExp(`^${h.url}/live/`));
    const id = /Capture session (\S+): active/.exec(human.stdout)![1];
    expect((await fetch(url!)).status).toBe(200);
    const ab = json(await cli(['capture', 'abandon', id, '--json']));
    expect(ab.state).toBe('abandoned');
  });

  it.skipIf(!hasScript)('in a terminal: a spinner while waiting, a progress bar while uploading, a prompt with echo off', async () => {
    const slow = await slowConnector(1200);
    const wait = await inTty(['runs', 'create', slow.id, '--wait']);
    expect(wait.code, wait.out).toBe(0);
    expect(wait.out).toMatch(/⠋ running connector \S+… \d+\.\ds/);
    expect(wait.out).toContain('\x1b[2K'); // the spinner line is cleared…
    expect(wait.out).toMatch(/Run \S+: success/); // …and the result printed

    fs.writeFileSync(path.join(tmp, 'big.bin'), crypto.randomBytes(3_000_000));
    const up = await inTty(['files', 'upload', 'big.bin']);
    expect(up.code, up.out).toBe(0);
    expect(up.out).toMatch(/Uploading big\.bin \[█{24}\] 100% {2}2\.9 MiB \/ 2\.9 MiB/);
    expect(up.out).toMatch(/Uploaded big\.bin/);

    const password = 'tty-pass-7d1c';
    const sec = await inTty(['secrets', 'create', '--kind', 'login', '--username', 'carol'], {
      waitFor: 'Password: ',
      answer: `${password}\r`,
    });
    expect(sec.code, sec.out).toBe(0);
    expect(sec.out).toMatch(/Created secret \S+ \(carol login, login\)/);
    expect(sec.out).not.toContain(password);
  });
});
