// The script engine: runs the connector's ES module in QuickJS (WebAssembly, src/runtime/worker/
// quickjs.ts) inside the worker, with no Node.js, no file system, no network, no imports. Its only
// powers are the documented ctx (script-prelude.ts builds it), each a host function here that
// checks what it receives and keeps using the run's RunContext (HttpSession, RPCs to the parent).
// Only strings (JSON) and ArrayBuffers cross the boundary; async host work answers through QuickJS
// promises, and the pending-job queue is pumped after each answer.
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { COOKIE_NAME_PATTERN, type ScriptDefinition, type RunErrorType } from '../../../formats/definition/types.js';
import { allowedRpcs, refuseRpc } from '../../shared/rpc-policy.js';
import { newScriptVm, type ScriptVm } from '../quickjs.js';
import type { RunContext } from './context.js';
import { pageCall } from './browser-engine.js';
import { RunFailure } from '../../shared/failure.js';
import type { SessionRequest } from './http-session.js';
import { SCRIPT_PRELUDE } from './script-prelude.js';

const COOKIE_NAME = new RegExp(COOKIE_NAME_PATTERN);

const ERROR_TYPES: RunErrorType[] = [
  'auth_required',
  'invalid_input',
  'site_unavailable',
  'anti_bot',
  'site_changed',
  'internal_error',
  'crash',
  'unhandled',
];
const PAGE_METHODS = new Set([
  'page.goto',
  'page.click',
  'page.fill',
  'page.select',
  'page.press',
  'page.wait',
  'page.snapshot',
  'page.text',
  'page.exists',
  'page.evaluate',
]);
/** Cap of fail() details (they are stored with the run). */
const MAX_DETAILS_BYTES = 64 * 1024;

/** The result as the JSON text the sandbox produced (not re-serialized by the worker). */
export class JsonText {
  constructor(readonly text: string) {}
}

/** The script was still running at the run's deadline (the worker reports `timeout`). */
export class ScriptTimeout extends Error {}

export interface ScriptLimits {
  /** Epoch ms at which the script is interrupted. */
  deadline: number;
  memoryMb: number;
}

type Envelope = { ok?: unknown; fail?: number; message?: string; error?: { name: string; message: string } };

export async function runScript(def: ScriptDefinition, ctx: RunContext, limits: ScriptLimits): Promise<JsonText> {
  const vm = await newScriptVm({ memoryBytes: limits.memoryMb * 1024 * 1024, deadline: limits.deadline });
  return new ScriptRun(def, ctx, vm, limits).run();
}

class ScriptRun {
  private readonly c: QuickJSContext;
  /** RunFailures raised by fail() or host functions, by id, so the final outcome keeps their type. */
  private readonly failures: RunFailure[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private pending = 0;
  private ended = false;
  /** ctx.http requests so far: the script's progress is "request k" (how many follow is unknown). */
  private requests = 0;
  private outcome: string | null = null;
  private wake: () => void = () => {};

  constructor(
    private readonly def: ScriptDefinition,
    private readonly ctx: RunContext,
    private readonly vm: ScriptVm,
    private readonly limits: ScriptLimits,
  ) {
    this.c = vm.context;
  }

  async run(): Promise<JsonText> {
    try {
      if (this.def.browser) await this.ctx.host.rpc('browser.open', {});
      await this.claimTotpCodes();
      const runFn = this.boot();
      // The module body runs now; its namespace (or a promise of it, with top-level await) goes to run().
      const mod = this.c.evalCode(this.def.source, 'connector.js', { type: 'module' });
      if (mod.error) this.fatal(mod.error);
      const started = this.c.callFunction(runFn, this.c.undefined, mod.value!);
      mod.value!.dispose();
      if (started.error) this.fatal(started.error);
      const done = this.c.newFunction('done', (s) => {
        this.outcome = this.c.typeof(s) === 'string' ? this.c.getString(s) : 'Ebad outcome';
        this.wake();
      });
      const then = this.c.getProp(started.value!, 'then');
      const chained = this.c.callFunction(then, started.value!, done);
      if (chained.error) this.fatal(chained.error);
      chained.value!.dispose();
      this.pump();
      await this.settled();
      return this.result(this.outcome!);
    } finally {
      this.ended = true;
      for (const t of this.timers) clearTimeout(t);
    }
  }

  /**
   * ctx.totp(slot) is synchronous (documented API) but codes come from the parent's single-use
   * ledger, which may wait for the next step: a script that mentions totp gets each TOTP login's
   * code claimed before it starts, and ctx.totp returns it.
   */
  private async claimTotpCodes(): Promise<void> {
    if (!/\btotp\b/.test(this.def.source)) return;
    for (const [slot, v] of Object.entries(this.ctx.job.secrets)) if (v.type === 'login' && v.totp_secret) await this.ctx.claimTotp(slot);
  }

  /** Resolves once the outcome is known; fails early when nothing can settle it any more. */
  private settled(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.outcome !== null) return resolve();
        if (this.failed) return reject(this.failed);
        // An interrupt inside a promise job only rejects that job's promise: the deadline passed.
        if (this.vm.interrupted()) return reject(new ScriptTimeout('the script ran past the run deadline'));
        if (this.pending === 0) {
          reject(
            this.vm.memoryExhausted()
              ? this.outOfMemory()
              : new RunFailure(
                  'unhandled',
                  'the script awaits a promise that can never settle (no timer, request or page operation is pending)',
                ),
          );
        }
      };
      this.wake = check;
      check();
    });
  }

  private failed: Error | null = null;

  /** Runs queued promise jobs; an error escaping them (interrupt, out of memory) ends the run. */
  private pump(): void {
    if (this.ended) return;
    const r = this.vm.runtime.executePendingJobs();
    if (r.error) {
      try {
        this.fatal(r.error);
      } catch (e) {
        this.failed = e as Error;
      }
    }
    this.wake();
  }

  /** An exception that escaped the prelude: the deadline, the memory limit, or a broken sandbox. */
  private fatal(h: QuickJSHandle): never {
    if (this.vm.interrupted()) throw new ScriptTimeout('the script ran past the run deadline');
    let msg = '';
    try {
      msg = String((this.c.dump(h) as { message?: unknown })?.message ?? '');
    } catch {
      /* undumpable */
    }
    if (/out of memory/.test(msg) || this.vm.memoryExhausted()) throw this.outOfMemory();
    if (/stack overflow/.test(msg))
      throw new RunFailure('unhandled', 'the script exceeded the stack limit', { exception: 'InternalError' });
    throw new RunFailure('unhandled', msg.slice(0, 2000) || 'the script failed', { exception: 'Error' });
  }

  private outOfMemory(): RunFailure {
    return new RunFailure('crash', `the script exceeded its memory limit (SCRIPT_MEMORY_MB=${this.limits.memoryMb})`);
  }

  /** The outcome string of the prelude's run(): R<json> | F<id> | E<{exception,message}> | N. */
  private result(o: string): JsonText {
    switch (o[0]) {
      case 'R':
        return new JsonText(o.slice(1));
      case 'F': {
        const f = this.failures[Number(o.slice(1)) - 1];
        if (f) throw f;
        throw new RunFailure('unhandled', 'the script threw an unknown failure');
      }
      case 'N':
        throw new RunFailure('internal_error', 'the script has no default export function', { retryable: false });
      default: {
        let e: { exception?: unknown; message?: unknown } = {};
        try {
          e = JSON.parse(o.slice(1));
        } catch {
          /* keep empty */
        }
        const exception = String(e.exception ?? 'Error').slice(0, 200);
        const message = String(e.message ?? '').slice(0, 2000);
        // An interrupt inside an async function arrives as its rejection (stays sticky: see quickjs.ts).
        if (this.vm.interrupted()) throw new ScriptTimeout('the script ran past the run deadline');
        // Out of memory, QuickJS may not even manage an Error object and throws null instead.
        const odd = exception === 'InternalError' || exception === 'object' || !message || message === 'null';
        if (message === 'out of memory' || (odd && this.vm.memoryExhausted())) throw this.outOfMemory();
        throw new RunFailure('unhandled', message, { exception });
      }
    }
  }

  /** Installs the raw host functions and evaluates the prelude; returns its run() function. */
  private boot(): QuickJSHandle {
    const c = this.c;
    const host = c.newObject();
    const fn = (name: string, impl: (...a: QuickJSHandle[]) => QuickJSHandle | undefined) => {
      const f = c.newFunction(name, impl);
      c.setProp(host, name, f);
      f.dispose();
    };
    fn('sync', (name, args) => c.newString(JSON.stringify(this.envelope(() => this.sync(this.str(name), this.json(args))))));
    fn('async', (name, args, bytes) => {
      const n = this.str(name);
      const a = this.json(args);
      const b = bytes && c.typeof(bytes) === 'object' ? this.bytes(bytes) : undefined;
      return this.promise(() => this.async(n, a, b));
    });
    fn('utf8', (x) => {
      if (c.typeof(x) === 'string') return c.newArrayBuffer(new Uint8Array(Buffer.from(c.getString(x), 'utf8')).buffer);
      const b = this.bytes(x);
      return c.newString(b ? b.toString('utf8') : '');
    });
    const prelude = c.evalCode(SCRIPT_PRELUDE, 'prelude.js');
    if (prelude.error) this.fatal(prelude.error);
    const info = c.newString(
      JSON.stringify({ args: this.ctx.job.args, secrets: scriptSecrets(this.ctx), run: runInfo(this.ctx), browser: !!this.def.browser }),
    );
    const made = c.callFunction(prelude.value!, c.undefined, host, info);
    prelude.value!.dispose();
    info.dispose();
    host.dispose();
    if (made.error) this.fatal(made.error);
    return made.value!;
  }

  private str(h: QuickJSHandle | undefined): string {
    if (!h || this.c.typeof(h) !== 'string') throw new TypeError('host function: expected a string');
    return this.c.getString(h);
  }

  private json(h: QuickJSHandle | undefined): unknown {
    return JSON.parse(this.str(h));
  }

  /** Bytes of an ArrayBuffer handle (copied out of wasm memory), or undefined if it isn't one. */
  private bytes(h: QuickJSHandle): Buffer | undefined {
    try {
      const view = this.c.getArrayBuffer(h);
      const copy = Buffer.from(view.value);
      view.dispose();
      return copy;
    } catch {
      return undefined;
    }
  }

  /** Runs a host operation, turning a thrown error into the prelude's envelope. */
  private envelope(f: () => unknown): Envelope {
    try {
      return { ok: f() };
    } catch (e) {
      return this.errorEnvelope(e);
    }
  }

  private errorEnvelope(e: unknown): Envelope {
    if (e instanceof RunFailure) {
      this.failures.push(e);
      return { fail: this.failures.length, message: e.message };
    }
    const err = e as { name?: string; message?: string };
    return { error: { name: String(err?.name ?? 'Error'), message: String(err?.message ?? e).slice(0, 2000) } };
  }

  /** A QuickJS promise for an async host operation; it settles (and jobs run) when the work ends. */
  private promise(work: () => Promise<unknown>): QuickJSHandle {
    const d = this.c.newPromise();
    this.pending++;
    let p: Promise<unknown>;
    try {
      p = work();
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      (ok) => ({ ok }) as Envelope,
      (e) => this.errorEnvelope(e),
    ).then((env) => {
      this.pending--;
      if (this.ended) return;
      const s = this.c.newString(JSON.stringify(env));
      d.resolve(s);
      s.dispose();
      this.pump();
    });
    return d.handle;
  }

  private sync(name: string, a: unknown): unknown {
    switch (name) {
      case 'log':
        return void this.ctx.log(String(a));
      case 'totp':
        return this.ctx.totp(String(a));
      case 'fail':
        return this.fail(obj(a, 'fail'));
      case 'http.cookie': {
        const o = obj(a, 'ctx.http.cookie');
        return this.ctx.http.cookie(String(o.url), String(o.name)) ?? null;
      }
      case 'http.setCookie': {
        // (The name as the definition format allows it; the value is checked by the session.)
        const o = obj(a, 'ctx.http.setCookie');
        const name = String(o.name);
        if (!COOKIE_NAME.test(name)) throw new TypeError(`ctx.http.setCookie: ${JSON.stringify(name.slice(0, 100))} is no cookie name`);
        return this.ctx.http.setCookie(String(o.url), name, String(o.value));
      }
      case 'url':
        return parseUrl(obj(a, 'URL'));
      case 'btoa':
        if (!/^[\x00-\xff]*$/.test(String(a)))
          throw Object.assign(new Error('btoa: the string has characters outside Latin-1'), { name: 'InvalidCharacterError' });
        return Buffer.from(String(a), 'latin1').toString('base64');
      case 'atob':
        return Buffer.from(String(a).replace(/\s+/g, ''), 'base64').toString('latin1');
      default:
        throw new TypeError(`unknown host function ${name}`);
    }
  }

  private async async(name: string, a: unknown, bytes: Buffer | undefined): Promise<unknown> {
    switch (name) {
      case 'sleep': {
        const want = Math.max(0, Number(obj(a, 'setTimeout').ms) || 0);
        const left = Math.max(0, this.limits.deadline - Date.now());
        await new Promise<void>((r) => {
          const t = setTimeout(
            () => {
              this.timers.delete(t);
              // A sleep past the deadline ends the run timed_out: the callback must not run late as
              // if the run had time left (the interrupt handler only sees JavaScript executing).
              if (want > left) {
                this.failed = new ScriptTimeout('the script ran past the run deadline');
                return this.wake();
              }
              r();
            },
            Math.min(want, left),
          );
          this.timers.add(t);
        });
        return null;
      }
      case 'http.request': {
        const req = httpRequest(a);
        this.ctx.progress(++this.requests, null, `request ${this.requests}: ${(req.method ?? 'GET').toUpperCase()} ${hostOf(req.url)}`);
        const res = await this.ctx.http.request(req);
        return { status: res.status, url: res.url, headers: res.headers, text: res.text };
      }
      case 'page': {
        if (!this.def.browser) throw new TypeError('ctx.page needs "browser": true in the definition');
        const o = obj(a, 'ctx.page');
        const method = String(o.method);
        if (!PAGE_METHODS.has(method)) throw new TypeError(`unknown page operation ${method}`);
        const params = obj(o.params, method);
        // The parent checks again (and stops a worker that sends bad ones); here it is the
        // script's own mistake, so it gets a TypeError it can see.
        const why = refuseRpc(this.def, allowedRpcs(this.def), method, params);
        if (why) throw new TypeError(why.replace('the sandbox sent ', ''));
        return pageCall(this.ctx, method, params, `page.${method.slice(5)}`);
      }
      case 'files.save': {
        const o = obj(a, 'ctx.files.save');
        const data = bytes ?? Buffer.from(String(o.text ?? ''), 'utf8');
        const params = { name: String(o.name), data, contentType: String(o.contentType) };
        const why = refuseRpc(this.def, allowedRpcs(this.def), 'files.save', params);
        if (why) throw new TypeError(why.replace('the sandbox sent ', ''));
        return this.ctx.host.rpc('files.save', params);
      }
      default:
        throw new TypeError(`unknown host function ${name}`);
    }
  }

  /** ctx.fail(): checks the type and options here (the script's copy of them proves nothing). */
  private fail(o: Record<string, unknown>): number {
    const type = String(o.type) as RunErrorType;
    const message = String(o.message).slice(0, 2000);
    if (!ERROR_TYPES.includes(type))
      throw new RunFailure('unhandled', `fail() called with unknown type '${type.slice(0, 100)}': ${message}`);
    const retryable = typeof o.retryable === 'boolean' ? o.retryable : null;
    let details = o.details && typeof o.details === 'object' && !Array.isArray(o.details) ? (o.details as Record<string, unknown>) : null;
    if (details && Buffer.byteLength(JSON.stringify(details)) > MAX_DETAILS_BYTES)
      details = { truncated: `details above ${MAX_DETAILS_BYTES} bytes were dropped` };
    this.failures.push(new RunFailure(type, message, { retryable, details }));
    return this.failures.length;
  }
}

function obj(a: unknown, what: string): Record<string, unknown> {
  if (!a || typeof a !== 'object' || Array.isArray(a)) throw new TypeError(`${what}: expected an object`);
  return a as Record<string, unknown>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The host of a request's URL for a progress label (never its path or query, which may hold tokens). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '?';
  }
}

/** ctx.http.request's argument, checked field by field before HttpSession sees it. */
function httpRequest(a: unknown): SessionRequest {
  const r = obj(a, 'ctx.http.request');
  const bad = (m: string) => new TypeError(`ctx.http.request: ${m}`);
  if (typeof r.url !== 'string') throw bad('url must be a string');
  if (r.method !== undefined && typeof r.method !== 'string') throw bad('method must be a string');
  if (r.headers !== undefined && (!isRecord(r.headers) || Object.values(r.headers).some((v) => typeof v !== 'string')))
    throw bad('headers must be an object of strings');
  if (r.query !== undefined && r.query !== null && !isRecord(r.query)) throw bad('query must be an object');
  if (r.form !== undefined && r.form !== null && !isRecord(r.form)) throw bad('form must be an object');
  if (r.text !== undefined && typeof r.text !== 'string') throw bad('text must be a string');
  if (r.contentType !== undefined && typeof r.contentType !== 'string') throw bad('contentType must be a string');
  if (r.multipart !== undefined && (!Array.isArray(r.multipart) || r.multipart.some((m) => !isRecord(m) || typeof m.name !== 'string')))
    throw bad('multipart must be a list of {name, value?, filename?, contentType?}');
  if (r.followRedirects !== undefined && typeof r.followRedirects !== 'boolean') throw bad('followRedirects must be a boolean');
  if (r.timeoutMs !== undefined && (typeof r.timeoutMs !== 'number' || !(r.timeoutMs > 0)))
    throw bad('timeoutMs must be a positive number');
  return {
    url: r.url,
    method: r.method as string | undefined,
    headers: r.headers as Record<string, string> | undefined,
    query: (r.query ?? undefined) as Record<string, unknown> | undefined,
    json: r.json,
    form: (r.form ?? undefined) as Record<string, unknown> | undefined,
    text: r.text as string | undefined,
    contentType: r.contentType as string | undefined,
    multipart: r.multipart as SessionRequest['multipart'],
    followRedirects: r.followRedirects as boolean | undefined,
    timeoutMs: r.timeoutMs as number | undefined,
  };
}

/** URL parsing (and property setting) with Node's WHATWG parser, as plain data. */
function parseUrl(o: Record<string, unknown>) {
  let u: URL;
  try {
    u = o.base === null || o.base === undefined ? new URL(String(o.input)) : new URL(String(o.input), String(o.base));
  } catch {
    throw new TypeError(`Invalid URL: ${String(o.input).slice(0, 200)}`);
  }
  const settable = ['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
  if (typeof o.set === 'string' && settable.includes(o.set)) (u as unknown as Record<string, string>)[o.set] = String(o.value);
  const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = u;
  return { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash };
}

/** What a script sees of its secrets: login fields (not the TOTP seed) or the value. */
function scriptSecrets(ctx: RunContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [slot, v] of Object.entries(ctx.job.secrets))
    out[slot] = v.type === 'login' ? { username: v.username, password: v.password, has_totp: !!v.totp_secret } : { value: v.value };
  return out;
}

function runInfo(ctx: RunContext) {
  return { id: ctx.job.runId, connector_id: ctx.job.connectorId, connector_version: ctx.job.connectorVersion };
}
