#!/usr/bin/env node
// One CLI for every entry point: serve, migrate, users, keys, master-key rotation, config.
import { parseArgs } from 'node:util';
import { CONFIG_TABLE, ConfigError, loadConfig, type Config } from '../config.js';
import { createServices } from '../services.js';
import { serve, work } from './server.js';
import { addKeyToFile } from '../adapters/vault/master-key.js';
import { rotateVault } from '../adapters/vault/index.js';
import { tuneV8 } from './v8-tuning.js';

tuneV8();

const HELP = `connector-service <command>

  serve [--role all|api]        start the HTTP server (runs migrations; the first start creates
                                a user and prints its API key once); --role api executes no runs
  worker                        execute runs from the shared database; no HTTP (scale-out)
  migrate                       apply database migrations and exit
  users create <name>           create a user
  users list                    list users
  keys create --user <id> [--name <label>]
                                create an API key (printed once)
  keys list [--user <id>]       list keys (prefix only; keys are stored hashed)
  keys revoke <key-id>          revoke a key
  master-key rotate             add a new vault master key to DATA_DIR/master.key (or, with
                                MASTER_KEY set, use its first key) and rewrap every secret's
                                data key with it
  config                        print the configuration variables and their current values

Configuration comes from environment variables; see \`config\` or the README.`;

async function withServices<T>(cfg: Config, fn: (s: Awaited<ReturnType<typeof createServices>>) => Promise<T>): Promise<T> {
  const s = await createServices(cfg);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

function fail(msg: string): never {
  console.error(msg);
  process.exit(2);
}

export async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [cmd, sub, arg] = positionals;
  if (!cmd || values.help) return void console.log(HELP);
  let cfg: Config;
  try {
    if (values.role !== undefined && (cmd !== 'serve' || !['all', 'api'].includes(values.role))) {
      fail('--role goes with serve: all (API and runs) or api (API only); use `worker` for a process that only runs');
    }
    const role = cmd === 'worker' ? 'worker' : (values.role as 'all' | 'api' | undefined);
    cfg = loadConfig(process.env, role ? { role } : {});
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message);
    throw e;
  }

  switch (`${cmd}${sub && !['serve', 'worker', 'migrate', 'config'].includes(cmd) ? ` ${sub}` : ''}`) {
    case 'serve':
      return cfg.role === 'worker' ? work(cfg) : serve(cfg);
    case 'worker':
      return work(cfg);
    case 'migrate':
      return withServices(cfg, async () => console.log('migrations applied'));
    case 'config':
      for (const e of CONFIG_TABLE) {
        const v = cfg[e.key];
        console.log(`${e.env.padEnd(20)} ${e.secret ? (v ? '(set)' : '(unset)') : String(v)}`);
      }
      return;
    case 'users create':
      if (!arg) fail('usage: users create <name>');
      return withServices(cfg, async (s) => console.log(JSON.stringify(await s.users.createUser(arg))));
    case 'users list':
      return withServices(cfg, async (s) => {
        for (const u of await s.users.listUsers()) console.log(`${u.id}  ${u.created_at}  ${u.name}`);
      });
    case 'keys create':
      if (!values.user) fail('usage: keys create --user <user-id> [--name <label>]');
      return withServices(cfg, async (s) => {
        const { key, info } = await s.users.createKey(values.user!, values.name ?? 'cli');
        console.log(`key id: ${info.id}\nAPI key (shown once, store it now): ${key}`);
      });
    case 'keys list':
      return withServices(cfg, async (s) => {
        for (const k of await s.users.listKeys(values.user)) {
          console.log(
            `${k.id}  user=${k.user_id}  ${k.prefix}…  ${k.name}  created=${k.created_at}${k.revoked_at ? `  revoked=${k.revoked_at}` : ''}`,
          );
        }
      });
    case 'keys revoke':
      if (!arg) fail('usage: keys revoke <key-id>');
      return withServices(cfg, async (s) => {
        if (!(await s.users.revokeKey(arg))) fail(`no active key ${arg}`);
        console.log(`revoked ${arg}`);
      });
    case 'master-key rotate': {
      // With MASTER_KEY in the environment the operator prepends the new key there; we only rewrap.
      const id = cfg.masterKey ? null : addKeyToFile(cfg);
      const n = await rotateVault(cfg);
      console.log(`${id ? `new master key ${id} is current; ` : ''}rewrapped ${n} secret(s) with the current key`);
      return;
    }
    default:
      fail(`unknown command: ${positionals.join(' ')}\n\n${HELP}`);
  }
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
