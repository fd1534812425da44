#!/usr/bin/env node
// `connector`: the user command line of the Connector Service, on the SDK.
// Configuration: CONNECTOR_API_URL and CONNECTOR_API_KEY (or --api-url / --api-key).
// Exit codes: 0 ok, 1 run failed or API error, 2 usage error, 3 authentication error.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { type Connector, type ConnectorFile, type ConnectorServiceClient, createClient, isTerminalRun, type Run } from './client.js';
import { AuthenticationError, ConnectorServiceError, ConnectorServiceSdkError, describeDetail, ValidationError } from './errors.js';
import { formatBytes, ProgressBar, PromptInterrupted, promptHidden, readAll, Spinner } from './tty.js';

export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, AUTH: 3 } as const;

class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | string[] | undefined>;

interface Ctx {
  client: ConnectorServiceClient;
  args: string[];
  values: Values;
  json: boolean;
  out: (text: string) => void;
}

interface Command {
  usage: string;
  summary: string;
  options?: Options;
  args: [min: number, max: number];
  run(ctx: Ctx): Promise<number>;
}

const GLOBAL_OPTIONS: Options = {
  'api-url': { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
};

const VERSION: string = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

// ------------------------------------------------------------------ helpers

const str = (v: Values[string]): string | undefined => (typeof v === 'string' ? v : undefined);
const list = (v: Values[string]): string[] => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []);

function intOption(v: Values[string], name: string): number | undefined {
  const s = str(v);
  if (s === undefined) return undefined;
  if (!/^\d+$/.test(s)) throw new UsageError(`--${name} must be a whole number, got ${JSON.stringify(s)}`);
  return Number(s);
}

/** A JSON value from an option: inline JSON, `@path` (a file) or `-` (stdin). */
async function jsonOption(v: string, name: string): Promise<unknown> {
  const text = v === '-' ? await readAll() : v.startsWith('@') ? readFileOrUsage(v.slice(1)) : v;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--${name}: not valid JSON (${(e as Error).message})`);
  }
}

function readFileOrUsage(p: string): string {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${p}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

async function jsonObjectOption(v: string, name: string): Promise<Record<string, unknown>> {
  const o = await jsonOption(v, name);
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new UsageError(`--${name} must be a JSON object`);
  return o as Record<string, unknown>;
}

/** `--arg k=v` (a string) or `--arg k:=json` (a number, boolean, object… as JSON), like HTTPie. */
export function parseArg(spec: string): [string, unknown] {
  const m = /^([^=:]+)(:?=)([\s\S]*)$/.exec(spec);
  if (!m) throw new UsageError(`--arg ${JSON.stringify(spec)}: expected name=value (a string) or name:=json`);
  const [, key, op, raw] = m;
  if (op === '=') return [key, raw];
  try {
    return [key, JSON.parse(raw)];
  } catch {
    throw new UsageError(`--arg ${key}:=…: not valid JSON (use ${key}=… for a string)`);
  }
}

function parsePairs(specs: string[], name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of specs) {
    const i = s.indexOf('=');
    if (i <= 0) throw new UsageError(`--${name} ${JSON.stringify(s)}: expected slot=id`);
    out[s.slice(0, i)] = s.slice(i + 1);
  }
  return out;
}

function table(rows: string[][], header: string[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : (c ?? '').padEnd(widths[i]))).join('  ')).join('\n');
}

/** ", step 2 of 3: get_search" while a run executes (the server's `progress` extension), else "". */
export function progressText(r: Run): string {
  const p = r.progress;
  if (!p) return '';
  return `, step ${p.step}${p.of === null ? '' : ` of ${p.of}`}${p.label ? `: ${p.label}` : ''}`;
}

function describeRun(run: Run): string {
  const lines = [`Run ${run.id}: ${run.status}  (connector ${run.connector_id} v${run.connector_version})`];
  if (run.error) lines.push(`Error: ${run.error.type}: ${run.error.message}${run.error.retryable ? ' (retryable)' : ''}`);
  if (run.status === 'success') {
    if (run.result === null && !run.result_stored)
      lines.push('Result: not stored (larger than 1 MB; it was returned once to the waiting caller)');
    else lines.push(JSON.stringify(run.result, null, 2));
  }
  return lines.join('\n');
}

function describeConnector(c: Connector): string {
  const props = Object.keys(((c.input_schema as any)?.properties as object) ?? {});
  const required = new Set<string>(((c.input_schema as any)?.required as string[]) ?? []);
  const lines = [
    `${c.display_name}  (${c.id}, version ${c.version})`,
    `Purpose:   ${c.purpose}`,
    `Website:   ${c.website ?? '-'}`,
    `Arguments: ${props.length ? props.map((p) => (required.has(p) ? p : `${p}?`)).join(', ') : '(none)'}`,
    `Secrets:   ${c.required_secrets?.length ? c.required_secrets.map((s) => `${s.name} (${s.type}${s.supports_totp ? ', totp' : ''})`).join(', ') : '(none)'}`,
    `Published: ${c.created_at}`,
  ];
  return lines.join('\n');
}

function describeFile(f: ConnectorFile): string {
  return `${f.name}  (${f.id}, ${formatBytes(f.size_bytes)}, ${f.content_type}, crc32c ${f.crc32c})`;
}

function emit(ctx: Ctx, value: unknown, human: () => string): void {
  ctx.out(ctx.json ? JSON.stringify(value, null, 2) : human());
}

const runExit = (run: Run) => (run.status === 'success' ? EXIT.OK : EXIT.FAILED);

// ------------------------------------------------------------------ commands

const commands: Record<string, Record<string, Command>> = {
  connectors: {
    list: {
      usage: 'connectors list [--domain example.com] [--max N]',
      summary: 'list connectors, newest first',
      options: { domain: { type: 'string' }, max: { type: 'string' } },
      args: [0, 0],
      async run(ctx) {
        const max = intOption(ctx.values.max, 'max');
        const domain = str(ctx.values.domain);
        const items = await ctx.client.connectors.list({ limit: 100, ...(domain ? { domain } : {}) }).toArray({ max });
        emit(ctx, items, () =>
          items.length
            ? table(
                items.map((c) => [c.id, `v${c.version}`, c.display_name, c.website ?? '-']),
                ['ID', 'VERSION', 'NAME', 'WEBSITE'],
              )
            : 'No connectors.',
        );
        return EXIT.OK;
      },
    },
    show: {
      usage: 'connectors show <id> [--definition]',
      summary: 'show a connector (and its definition)',
      options: { definition: { type: 'boolean' } },
      args: [1, 1],
      async run(ctx) {
        const c = await ctx.client.connectors.get(ctx.args[0]);
        const def = ctx.values.definition ? await ctx.client.connectors.definition(c.id) : undefined;
        emit(ctx, def ? { ...c, definition: (def as any).definition } : c, () =>
          def ? `${describeConnector(c)}\n${JSON.stringify((def as any).definition, null, 2)}` : describeConnector(c),
        );
        return EXIT.OK;
      },
    },
    publish: {
      usage:
        'connectors publish (--file body.json | --recording flow.har | --capture-session <id>) --name <name> --purpose <text> [--website URL] [--hints-json JSON]',
      summary: 'publish version 1: a hand-written body, or synthesized from a HAR or a completed capture session',
      options: {
        file: { type: 'string' },
        recording: { type: 'string' },
        'capture-session': { type: 'string' },
        name: { type: 'string' },
        purpose: { type: 'string' },
        website: { type: 'string' },
        'hints-json': { type: 'string' },
      },
      args: [0, 0],
      async run(ctx) {
        const v = ctx.values;
        const sources = ['file', 'recording', 'capture-session'].filter((k) => v[k] !== undefined);
        if (sources.length !== 1) throw new UsageError('give exactly one of --file, --recording, --capture-session');
        const hints = str(v['hints-json']) === undefined ? undefined : ((await jsonOption(str(v['hints-json'])!, 'hints-json')) as any);
        let c: Connector;
        if (v.file !== undefined) {
          const body = await jsonObjectOption(`@${str(v.file)}`.replace(/^@-$/, '-'), 'file');
          if (v.name !== undefined) body.display_name = str(v.name);
          if (v.purpose !== undefined) body.purpose = str(v.purpose);
          if (v.website !== undefined) body.website = str(v.website);
          if (hints !== undefined) body.hints = hints;
          c = await ctx.client.connectors.publish(body as any);
        } else {
          const displayName = str(v.name);
          const purpose = str(v.purpose);
          if (!displayName || !purpose) throw new UsageError('--name and --purpose are required to publish from a recording');
          const common = { displayName, purpose, website: str(v.website), hints };
          const spinner = new Spinner().start('synthesizing and validating the connector…');
          try {
            c =
              v.recording !== undefined
                ? await ctx.client.publishFromRecording({ ...common, recording: existingFile(str(v.recording)!) })
                : await ctx.client.publishFromRecording({ ...common, captureSessionId: str(v['capture-session'])! });
          } finally {
            spinner.stop();
          }
        }
        emit(ctx, c, () => `Published ${c.display_name} (${c.id}), version ${c.version}.\n${describeConnector(c)}`);
        return EXIT.OK;
      },
    },
    revise: {
      usage:
        'connectors revise <id> (--file body.json | --recording flow.har | --capture-session <id>) [--name N] [--purpose P] [--hints-json JSON]',
      summary: 'publish version + 1 of a connector',
      options: {
        file: { type: 'string' },
        recording: { type: 'string' },
        'capture-session': { type: 'string' },
        name: { type: 'string' },
        purpose: { type: 'string' },
        website: { type: 'string' },
        'hints-json': { type: 'string' },
      },
      args: [1, 1],
      async run(ctx) {
        const v = ctx.values;
        const sources = ['file', 'recording', 'capture-session'].filter((k) => v[k] !== undefined);
        if (sources.length !== 1) throw new UsageError('give exactly one of --file, --recording, --capture-session');
        const hints = str(v['hints-json']) === undefined ? undefined : ((await jsonOption(str(v['hints-json'])!, 'hints-json')) as any);
        let c: Connector;
        if (v.file !== undefined) {
          const body = await jsonObjectOption(`@${str(v.file)}`.replace(/^@-$/, '-'), 'file');
          if (v.name !== undefined) body.display_name = str(v.name);
          if (v.purpose !== undefined) body.purpose = str(v.purpose);
          if (v.website !== undefined) body.website = str(v.website);
          if (hints !== undefined) body.hints = hints;
          c = await ctx.client.connectors.revise(ctx.args[0], body as any);
        } else {
          const common = { displayName: str(v.name), purpose: str(v.purpose), website: str(v.website), hints };
          const spinner = new Spinner().start('synthesizing and validating the new version…');
          try {
            c =
              v.recording !== undefined
                ? await ctx.client.reviseFromRecording(ctx.args[0], { ...common, recording: existingFile(str(v.recording)!) })
                : await ctx.client.reviseFromRecording(ctx.args[0], { ...common, captureSessionId: str(v['capture-session'])! });
          } finally {
            spinner.stop();
          }
        }
        emit(ctx, c, () => `Published version ${c.version} of ${c.display_name} (${c.id}).`);
        return EXIT.OK;
      },
    },
  },

  runs: {
    create: {
      usage:
        'runs create <connector-id> [--arg name=value] [--arg name:=json] [--args-json JSON|@file|-] [--secret slot=secret-id] [--wait] [--timeout S] [--max-timeout S]',
      summary: 'start a run (async); --wait runs it to the end (exit 1 unless it succeeded)',
      options: {
        arg: { type: 'string', multiple: true },
        'args-json': { type: 'string' },
        secret: { type: 'string', multiple: true },
        wait: { type: 'boolean' },
        timeout: { type: 'string' },
        'max-timeout': { type: 'string' },
      },
      args: [1, 1],
      async run(ctx) {
        const connectorId = ctx.args[0];
        const args: Record<string, unknown> = str(ctx.values['args-json'])
          ? await jsonObjectOption(str(ctx.values['args-json'])!, 'args-json')
          : {};
        for (const spec of list(ctx.values.arg)) {
          const [k, v] = parseArg(spec);
          args[k] = v;
        }
        const secretBindings = parsePairs(list(ctx.values.secret), 'secret');
        const maxTimeoutS = intOption(ctx.values['max-timeout'], 'max-timeout');
        const timeoutS = intOption(ctx.values.timeout, 'timeout');
        if (!ctx.values.wait) {
          const run = await ctx.client.runs.create({
            connector_id: connectorId,
            arguments: args,
            async: true,
            ...(Object.keys(secretBindings).length ? { secret_bindings: secretBindings } : {}),
            ...(maxTimeoutS !== undefined ? { max_timeout_s: maxTimeoutS } : {}),
          });
          emit(ctx, run, () => `Run ${run.id}: ${run.status}\nFollow it with: connector runs logs ${run.id} --follow`);
          return EXIT.OK;
        }
        const spinner = new Spinner().start(`running connector ${connectorId}…`);
        let run: Run;
        try {
          run = await ctx.client.runAndWait(connectorId, args, {
            ...(Object.keys(secretBindings).length ? { secretBindings } : {}),
            maxTimeoutS,
            timeoutMs: timeoutS === undefined ? undefined : timeoutS * 1000,
            onUpdate: (r) => spinner.update(`run ${r.id} ${r.status}${progressText(r)}…`),
          });
        } finally {
          spinner.stop();
        }
        emit(ctx, run, () => describeRun(run));
        return runExit(run);
      },
    },
    get: {
      usage: 'runs get <run-id>',
      summary: 'show a run (exit 1 when it ended in failure)',
      args: [1, 1],
      async run(ctx) {
        const run = await ctx.client.runs.get(ctx.args[0]);
        emit(ctx, run, () => describeRun(run));
        return isTerminalRun(run) ? runExit(run) : EXIT.OK;
      },
    },
    cancel: {
      usage: 'runs cancel <run-id>',
      summary: 'cancel a pending or running run',
      args: [1, 1],
      async run(ctx) {
        const run = await ctx.client.runs.cancel(ctx.args[0]);
        emit(ctx, run, () => describeRun(run));
        return EXIT.OK;
      },
    },
    list: {
      usage: 'runs list <connector-id> [--version N] [--max N]',
      summary: "list a connector's runs, newest first",
      options: { version: { type: 'string' }, max: { type: 'string' } },
      args: [1, 1],
      async run(ctx) {
        const version = intOption(ctx.values.version, 'version');
        const runs = await ctx.client.runs
          .list(ctx.args[0], { limit: 100, ...(version ? { version } : {}) })
          .toArray({ max: intOption(ctx.values.max, 'max') });
        emit(ctx, runs, () =>
          runs.length
            ? table(
                runs.map((r) => [r.id, r.status, `v${r.connector_version}`, r.created_at]),
                ['ID', 'STATUS', 'VERSION', 'CREATED'],
              )
            : 'No runs.',
        );
        return EXIT.OK;
      },
    },
    logs: {
      usage: 'runs logs <run-id> [--follow]',
      summary: "print a run's logs; --follow keeps printing until the run ends",
      options: { follow: { type: 'boolean', short: 'f' } },
      args: [1, 1],
      async run(ctx) {
        const id = ctx.args[0];
        if (!ctx.values.follow) {
          const logs = await ctx.client.runs.logs(id);
          if (ctx.json) ctx.out(JSON.stringify({ logs }));
          else if (logs) process.stdout.write(logs.endsWith('\n') ? logs : `${logs}\n`);
          return EXIT.OK;
        }
        let printed = '';
        const write = (logs: string) => {
          const delta = logs.startsWith(printed) ? logs.slice(printed.length) : logs;
          printed = logs;
          if (!delta) return;
          if (ctx.json) for (const line of delta.split('\n').filter(Boolean)) ctx.out(JSON.stringify({ line }));
          else process.stdout.write(delta);
        };
        for (;;) {
          const run = await ctx.client.runs.get(id);
          write(await ctx.client.runs.logs(id));
          if (isTerminalRun(run)) {
            if (!ctx.json && printed && !printed.endsWith('\n')) process.stdout.write('\n');
            if (!ctx.json) process.stderr.write(`Run ${id} ended: ${run.status}\n`);
            return EXIT.OK;
          }
          await new Promise((r) => setTimeout(r, 1000));
        }
      },
    },
  },

  files: {
    upload: {
      usage: 'files upload <path> [--name N] [--content-type T]',
      summary: 'upload a file (CRC32C checked end to end)',
      options: { name: { type: 'string' }, 'content-type': { type: 'string' } },
      args: [1, 1],
      async run(ctx) {
        const p = existingFile(ctx.args[0]);
        const bar = new ProgressBar(`Uploading ${path.basename(p)}`);
        let last: [number, number] = [0, 0];
        let f: ConnectorFile;
        try {
          f = await ctx.client.uploadFile(p, {
            name: str(ctx.values.name),
            contentType: str(ctx.values['content-type']),
            onProgress: (sent, total) => {
              last = [sent, total];
              bar.update(sent, total);
            },
          });
        } catch (e) {
          bar.clear();
          throw e;
        }
        bar.finish(...last);
        emit(ctx, f, () => `Uploaded ${describeFile(f)}`);
        return EXIT.OK;
      },
    },
    download: {
      usage: 'files download <file-id> [-o PATH | -o -] [--force]',
      summary: "download a file (default: its name in the current directory; '-' writes to stdout)",
      options: { output: { type: 'string', short: 'o' }, force: { type: 'boolean' } },
      args: [1, 1],
      async run(ctx) {
        const id = ctx.args[0];
        let target = str(ctx.values.output);
        if (target === undefined) {
          const meta = await ctx.client.files.get(id);
          target =
            path
              .basename(meta.name)
              .replace(/[^\w.\- ]/g, '_')
              .replace(/^\.+/, '') || id;
        }
        if (target !== '-' && fs.existsSync(target) && !ctx.values.force) {
          process.stderr.write(`error: ${target} exists (use --force to overwrite)\n`);
          return EXIT.FAILED;
        }
        const bar = new ProgressBar(`Downloading ${target === '-' ? id : path.basename(target)}`);
        let last: [number, number | null] = [0, null];
        const onProgress = (n: number, total: number | null) => {
          last = [n, total];
          bar.update(n, total);
        };
        try {
          const res = await ctx.client.downloadFile(id, target === '-' ? { onProgress } : { to: target, onProgress });
          bar.finish(...last);
          if (target === '-') {
            await new Promise<void>((r) => process.stdout.write(res.data!, () => r()));
            return EXIT.OK;
          }
          emit(
            ctx,
            { ...res.file, path: path.resolve(target) },
            () => `Saved ${target} (${formatBytes(res.file.size_bytes)}, crc32c ${res.crc32c})`,
          );
          return EXIT.OK;
        } catch (e) {
          bar.clear();
          throw e;
        }
      },
    },
    list: {
      usage: 'files list [--source UPLOAD|RUN_OUTPUT] [--run-id ID] [--filename TEXT] [--max N]',
      summary: 'list uploads and run outputs, newest first',
      options: { source: { type: 'string' }, 'run-id': { type: 'string' }, filename: { type: 'string' }, max: { type: 'string' } },
      args: [0, 0],
      async run(ctx) {
        const q: Record<string, unknown> = { limit: 100 };
        if (ctx.values.source) q.source = str(ctx.values.source);
        if (ctx.values['run-id']) q.run_id = str(ctx.values['run-id']);
        if (ctx.values.filename) q.filename = str(ctx.values.filename);
        const files = await ctx.client.files.list(q).toArray({ max: intOption(ctx.values.max, 'max') });
        emit(ctx, files, () =>
          files.length
            ? table(
                files.map((f) => [f.id, f.source, formatBytes(f.size_bytes), f.name]),
                ['ID', 'SOURCE', 'SIZE', 'NAME'],
              )
            : 'No files.',
        );
        return EXIT.OK;
      },
    },
  },

  secrets: {
    create: {
      usage: 'secrets create --kind login --username U [--name N] [--totp] | --kind string --name N',
      summary:
        'store a credential; the password (login) or value (string), and with --totp the base32 TOTP seed, are read from a prompt ' +
        'with echo off, or one per line from piped stdin — never from the command line',
      options: { kind: { type: 'string' }, username: { type: 'string' }, name: { type: 'string' }, totp: { type: 'boolean' } },
      args: [0, 0],
      async run(ctx) {
        const kind = str(ctx.values.kind);
        if (kind !== 'login' && kind !== 'string') throw new UsageError('--kind must be login or string');
        const username = str(ctx.values.username);
        if (kind === 'login' && !username) throw new UsageError('--username is required for --kind login');
        if (kind === 'string' && (username || ctx.values.totp)) throw new UsageError('--username and --totp are for --kind login');
        const name = str(ctx.values.name) ?? (kind === 'login' ? `${username} login` : undefined);
        if (!name) throw new UsageError('--name is required for --kind string');
        const prompts = kind === 'login' ? ['Password: ', ...(ctx.values.totp ? ['TOTP secret (base32): '] : [])] : ['Value: '];
        const answers: string[] = [];
        if (process.stdin.isTTY) {
          for (const p of prompts) answers.push(await promptHidden(p));
        } else {
          const lines = (await readAll()).split(/\r?\n/);
          answers.push(...lines.slice(0, prompts.length));
        }
        if (answers.length < prompts.length || answers.some((a) => a === undefined || a === '')) {
          throw new UsageError(
            `expected ${prompts.map((p) => p.replace(/[: ()]+$/, '').toLowerCase()).join(' and ')} on stdin, one per line`,
          );
        }
        const secret = await ctx.client.secrets.create(
          kind === 'login'
            ? {
                name,
                secret_type: 'login',
                username,
                password: answers[0],
                totp_secret: ctx.values.totp ? answers[1].replace(/\s+/g, '') : null,
              }
            : { name, secret_type: 'string', value: answers[0] },
        );
        emit(
          ctx,
          secret,
          () => `Created secret ${secret.id} (${secret.name}, ${secret.secret_type}${secret.has_totp ? ', with TOTP' : ''})`,
        );
        return EXIT.OK;
      },
    },
    list: {
      usage: 'secrets list',
      summary: 'list secrets (metadata only)',
      args: [0, 0],
      async run(ctx) {
        const secrets = await ctx.client.secrets.list();
        emit(ctx, secrets, () =>
          secrets.length
            ? table(
                secrets.map((s) => [s.id, s.secret_type, s.has_totp ? 'totp' : '-', s.name]),
                ['ID', 'TYPE', '2FA', 'NAME'],
              )
            : 'No secrets.',
        );
        return EXIT.OK;
      },
    },
  },

  capture: {
    create: {
      usage: 'capture create <start-url> [--proxy] [--wait]',
      summary: 'open a recording remote browser at the URL and print its live view URL; --wait until it is completed or abandoned',
      options: { proxy: { type: 'boolean' }, wait: { type: 'boolean' } },
      args: [1, 1],
      async run(ctx) {
        const s = await ctx.client.createCaptureSession({ startUrl: ctx.args[0], ...(ctx.values.proxy ? { useProxy: true } : {}) });
        emit(ctx, s, () =>
          [
            `Capture session ${s.id}: ${s.state}`,
            `Live view (open it in a browser, or embed it in an iframe): ${s.iframe_url}`,
            ...(s.iframe_view_url ? [`Watch only (read-only live view, safe to share): ${s.iframe_view_url}`] : []),
            `When done: connector capture complete ${s.id}`,
          ].join('\n'),
        );
        if (!ctx.values.wait) return EXIT.OK;
        const spinner = new Spinner().start(`recording in capture session ${s.id}…`);
        try {
          const end = await ctx.client.waitForCapture(s.id);
          spinner.stop();
          emit(ctx, end, () => `Capture session ${end.id}: ${end.state}`);
          return end.state === 'completed' ? EXIT.OK : EXIT.FAILED;
        } finally {
          spinner.stop();
        }
      },
    },
    get: {
      usage: 'capture get <session-id>',
      summary: 'show a capture session',
      args: [1, 1],
      async run(ctx) {
        const s = await ctx.client.captureSessions.get(ctx.args[0]);
        emit(ctx, s, () => `Capture session ${s.id}: ${s.state}${s.iframe_url ? `\nLive view: ${s.iframe_url}` : ''}`);
        return EXIT.OK;
      },
    },
    complete: {
      usage: 'capture complete <session-id>',
      summary: 'stop recording and wait until the recording is stored',
      args: [1, 1],
      async run(ctx) {
        await ctx.client.captureSessions.complete(ctx.args[0]);
        const spinner = new Spinner().start('storing the recording…');
        try {
          const s = await ctx.client.waitForCapture(ctx.args[0], { timeoutMs: 300_000 });
          spinner.stop();
          emit(ctx, s, () => `Capture session ${s.id}: ${s.state}`);
          return s.state === 'completed' ? EXIT.OK : EXIT.FAILED;
        } finally {
          spinner.stop();
        }
      },
    },
    abandon: {
      usage: 'capture abandon <session-id>',
      summary: 'discard the recording and release the browser',
      args: [1, 1],
      async run(ctx) {
        const s = await ctx.client.captureSessions.abandon(ctx.args[0]);
        emit(ctx, s, () => `Capture session ${s.id}: ${s.state}`);
        return EXIT.OK;
      },
    },
  },
};

function existingFile(p: string): string {
  if (!fs.existsSync(p) || !fs.statSync(p).isFile()) throw new UsageError(`no such file: ${p}`);
  return p;
}

function helpText(): string {
  const lines = [
    `connector ${VERSION} — command line of the Connector Service`,
    '',
    'Usage: connector <group> <command> [arguments] [options]',
    '',
  ];
  for (const [group, cmds] of Object.entries(commands)) {
    for (const cmd of Object.values(cmds)) lines.push(`  connector ${cmd.usage}`, `      ${cmd.summary}`);
    void group;
  }
  lines.push(
    '',
    'Options for every command:',
    '  --api-url URL    service base URL (default: $CONNECTOR_API_URL, else http://127.0.0.1:8080)',
    '  --api-key KEY    API key (default: $CONNECTOR_API_KEY; prefer the variable: argv is visible to other users)',
    '  --json           machine-readable JSON on stdout (errors as JSON on stderr)',
    '  -h, --help       this help',
    '',
    'Exit codes: 0 ok · 1 run failed or API error · 2 usage error · 3 authentication error',
  );
  return lines.join('\n');
}

// ------------------------------------------------------------------ main

/** Runs the CLI with `argv` (without node and the script); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let json = argv.includes('--json');
  try {
    // Credentials are never read from argv (other users can see it); say so without echoing anything.
    const leaked = argv.find((a) => /^--(password|value|totp-secret|totp_secret)(=|$)/.test(a));
    if (leaked) {
      throw new UsageError(
        `${leaked.split('=')[0]} is not an option: secret values are read from a prompt with echo off, or from stdin when piped`,
      );
    }
    const pre = parseArgs({ args: argv, options: GLOBAL_OPTIONS, strict: false, allowPositionals: true });
    const [group, name] = pre.positionals;
    if (pre.values.version && !group) {
      process.stdout.write(`${VERSION}\n`);
      return EXIT.OK;
    }
    if (!group || (pre.values.help && !name)) {
      (pre.values.help ? process.stdout : process.stderr).write(`${helpText()}\n`);
      return pre.values.help ? EXIT.OK : EXIT.USAGE;
    }
    const cmd = commands[group]?.[name ?? ''];
    if (!cmd) {
      const known = commands[group] ? Object.keys(commands[group]).join(', ') : Object.keys(commands).join(', ');
      throw new UsageError(
        commands[group]
          ? `unknown command "${group} ${name ?? ''}" (one of: ${known})`
          : `unknown command group "${group}" (one of: ${known})`,
      );
    }
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: argv, options: { ...GLOBAL_OPTIONS, ...cmd.options }, strict: true, allowPositionals: true });
    } catch (e) {
      throw new UsageError(`${(e as Error).message}\nusage: connector ${cmd.usage}`);
    }
    const values = parsed.values as Values;
    json = Boolean(values.json);
    if (values.help) {
      process.stdout.write(`usage: connector ${cmd.usage}\n  ${cmd.summary}\n`);
      return EXIT.OK;
    }
    const args = parsed.positionals.slice(2);
    if (args.length < cmd.args[0] || args.length > cmd.args[1]) {
      throw new UsageError(
        `expected ${cmd.args[0] === cmd.args[1] ? cmd.args[0] : `${cmd.args[0]}–${cmd.args[1]}`} argument(s)\nusage: connector ${cmd.usage}`,
      );
    }
    const apiKey = str(values['api-key']) ?? process.env.CONNECTOR_API_KEY;
    if (!apiKey) {
      process.stderr.write('error: no API key: set CONNECTOR_API_KEY (or pass --api-key)\n');
      return EXIT.AUTH;
    }
    const client = createClient({ baseUrl: str(values['api-url']), apiKey, userAgent: `connector-cli/${VERSION}` });
    return await cmd.run({ client, args, values, json, out: (t) => process.stdout.write(`${t}\n`) });
  } catch (e) {
    return reportError(e, json);
  }
}

function reportError(e: unknown, json: boolean): number {
  const code =
    e instanceof UsageError
      ? EXIT.USAGE
      : e instanceof AuthenticationError
        ? EXIT.AUTH
        : e instanceof PromptInterrupted
          ? EXIT.USAGE
          : EXIT.FAILED;
  if (json) {
    const err: Record<string, unknown> = { message: (e as Error)?.message ?? String(e), exit_code: code };
    if (e instanceof ConnectorServiceError) Object.assign(err, { status: e.status, detail: e.detail });
    if (e instanceof ConnectorServiceSdkError && !(e instanceof ConnectorServiceError)) err.type = e.name;
    process.stderr.write(`${JSON.stringify({ error: err })}\n`);
    return code;
  }
  if (e instanceof ValidationError) {
    process.stderr.write(`error: ${e.method} ${new URL(e.url).pathname} was refused (422):\n`);
    for (const entry of e.errors) process.stderr.write(`  ${entry.loc.join('.')}: ${entry.msg}\n`);
    if (!e.errors.length) process.stderr.write(`  ${describeDetail(e.detail)}\n`);
  } else if (e instanceof AuthenticationError) {
    process.stderr.write(`error: authentication failed (${describeDetail(e.detail)}); check CONNECTOR_API_KEY\n`);
  } else if (e instanceof ConnectorServiceSdkError || e instanceof UsageError || e instanceof PromptInterrupted) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
  } else {
    process.stderr.write(`error: ${(e as Error)?.stack ?? String(e)}\n`);
  }
  return code;
}

// Run when executed (node sdk/dist/cli.js, the `connector` bin, tsx sdk/src/cli.ts), not when imported.
const invoked = process.argv[1] ? fs.realpathSync(process.argv[1]) : '';
if (invoked && /[\\/]cli\.(ts|js)$/.test(invoked) && fileURLToPath(import.meta.url) === invoked) {
  // `npm run connector -- …` runs in the repository root: resolve paths from where the user typed it.
  if (process.env.npm_lifecycle_event === 'connector' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`error: ${(e as Error)?.stack ?? String(e)}\n`);
      process.exitCode = EXIT.FAILED;
    },
  );
}
