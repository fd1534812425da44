// The script engine: imports the connector's ES module from a data: URL (the sandbox may read no
// files) and calls its default export with the documented context.
import type { ScriptDefinition, RunErrorType } from '../definition/types.js';
import type { RunContext } from './context.js';
import { pageCall } from './browser-engine.js';
import { RunFailure } from './failure.js';
import type { SessionRequest } from './http-session.js';

const ERROR_TYPES: RunErrorType[] = ['auth_required', 'invalid_input', 'site_unavailable', 'anti_bot', 'site_changed', 'internal_error', 'crash', 'unhandled'];

function httpApi(ctx: RunContext) {
  const request = async (r: SessionRequest & { form?: Record<string, unknown> }) => {
    const res = await ctx.http.request(r);
    return { status: res.status, url: res.url, headers: res.headers, text: res.text, json: res.json };
  };
  return {
    request,
    get: (url: string, opts: Omit<SessionRequest, 'url'> = {}) => request({ ...opts, url, method: 'GET' }),
    post: (url: string, opts: Omit<SessionRequest, 'url'> = {}) => request({ ...opts, url, method: 'POST' }),
    cookie: (url: string, name: string) => ctx.http.cookie(url, name),
  };
}

function pageApi(ctx: RunContext) {
  const call = (m: string, p: Record<string, unknown>) => pageCall(ctx, m, p, `page.${m.slice(5)}`);
  const timeout = 15_000;
  return {
    goto: (url: string) => call('page.goto', { url, timeout }),
    click: (selector: string) => call('page.click', { selector, timeout }),
    fill: (selector: string, text: string) => call('page.fill', { selector, text, timeout }),
    select: (selector: string, value: string) => call('page.select', { selector, value, timeout }),
    press: (key: string, selector: string | null = null) => call('page.press', { key, selector, timeout }),
    waitFor: (selector: string, state: string | null = null) => call('page.wait', { selector, state, timeout }),
    content: async () => (await call('page.snapshot', {})).html as string,
    url: async () => (await call('page.snapshot', {})).url as string,
    text: (selector: string) => call('page.text', { selector, timeout }),
    exists: (selector: string) => call('page.exists', { selector }),
    evaluate: (js: string) => call('page.evaluate', { js }),
  };
}

export async function runScript(def: ScriptDefinition, ctx: RunContext): Promise<unknown> {
  const url = `data:text/javascript;base64,${Buffer.from(def.source).toString('base64')}`;
  const mod = (await import(url)) as { default?: unknown };
  if (typeof mod.default !== 'function') throw new RunFailure('internal_error', 'the script has no default export function', { retryable: false });
  if (def.browser) await ctx.host.rpc('browser.open', {});
  const secrets: Record<string, unknown> = {};
  for (const [slot, v] of Object.entries(ctx.job.secrets)) secrets[slot] = v.type === 'login' ? { username: v.username, password: v.password, has_totp: !!v.totp_secret } : { value: v.value };
  const api = {
    args: ctx.job.args,
    secrets,
    run: { id: ctx.job.runId, connector_id: ctx.job.connectorId, connector_version: ctx.job.connectorVersion },
    http: httpApi(ctx),
    page: def.browser ? pageApi(ctx) : null,
    log: (...parts: unknown[]) => ctx.log(parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ')),
    totp: (slot: string) => ctx.totp(slot),
    files: {
      save: async (name: string, data: string | Uint8Array, contentType = 'application/octet-stream') => {
        const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
        return ctx.host.rpc('files.save', { name: String(name), data: bytes, contentType: String(contentType) });
      },
    },
    fail: (type: RunErrorType, message: string, opts: { retryable?: boolean | null; details?: Record<string, unknown> | null } = {}): never => {
      if (!ERROR_TYPES.includes(type)) throw new RunFailure('unhandled', `fail() called with unknown type '${type}': ${message}`);
      throw new RunFailure(type, String(message), { retryable: opts.retryable, details: opts.details ?? null });
    },
  };
  return (mod.default as (c: typeof api) => unknown)(api);
}
