// RPC by capability: which parent-side operations a worker may ask for, given the run's definition,
// and the exact shape of each one's parameters. The worker is hostile (a compromised worker can
// send anything over IPC), so the parent checks both before acting; anything else stops the run.
//
//   engine          may call
//   http            totp.code; files.read when a step sends an uploaded file (a `file` body or part)
//   browser         totp.code, browser.open, page.*
//   script          totp.code, files.save; browser.open and page.* only with "browser": true
//
// files.read names a file id; the parent serves only a file the run's arguments name, owned by the
// run's user (executor.ts readInput), within the input-file limits.
// totp.code names only a slot: the parent takes the seed from the job it holds and hands out a
// code from its single-use step ledger (src/runtime/totp-ledger.ts).
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { ConnectorDefinition } from '../../formats/definition/types.js';

const Timeout = Type.Integer({ minimum: 0, maximum: 3_600_000 });
const Selector = Type.String({ maxLength: 10_000 });
const Text = Type.String({ maxLength: 10_000_000 });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const strict = { additionalProperties: false };

const PARAMS = {
  'totp.code': Type.Object({ slot: Type.String({ minLength: 1, maxLength: 200 }) }, strict),
  // `credentials`: the login slot the browser answers HTTP Basic/Digest challenges of `origin`
  // with; the parent reads the slot's values from the run's own secrets (they never cross here).
  'browser.open': Type.Object(
    {
      credentials: Type.Optional(
        Type.Object({ slot: Type.String({ minLength: 1, maxLength: 200 }), origin: Type.String({ maxLength: 2_000 }) }, strict),
      ),
    },
    strict,
  ),
  'page.goto': Type.Object({ url: Type.String({ maxLength: 100_000 }), timeout: Timeout }, strict),
  'page.click': Type.Object({ selector: Selector, timeout: Timeout }, strict),
  'page.fill': Type.Object({ selector: Selector, text: Text, timeout: Timeout }, strict),
  'page.select': Type.Object({ selector: Selector, value: Text, timeout: Timeout }, strict),
  'page.press': Type.Object({ key: Type.String({ maxLength: 100 }), selector: Nullable(Selector), timeout: Timeout }, strict),
  'page.wait': Type.Object(
    {
      selector: Type.Optional(Nullable(Selector)),
      state: Type.Optional(Nullable(Type.Union(['attached', 'detached', 'visible', 'hidden'].map((s) => Type.Literal(s))))),
      url: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
      load: Type.Optional(Nullable(Type.Union(['load', 'domcontentloaded', 'networkidle'].map((s) => Type.Literal(s))))),
      ms: Type.Optional(Nullable(Timeout)),
      timeout: Timeout,
    },
    strict,
  ),
  'page.snapshot': Type.Object({}, strict),
  'page.exists': Type.Object({ selector: Selector }, strict),
  'page.text': Type.Object({ selector: Selector, timeout: Timeout }, strict),
  'page.evaluate': Type.Object({ js: Text }, strict),
  'files.read': Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }, strict),
  // data, or (a file over RUN_OUTPUT_MAX_FILE_BYTES) only its size: the worker doesn't ship it.
  'files.save': Type.Object(
    {
      name: Type.String({ maxLength: 10_000 }),
      data: Type.Optional(Type.Uint8Array()),
      size: Type.Optional(Type.Integer({ minimum: 1 })),
      contentType: Type.String({ maxLength: 10_000 }),
    },
    strict,
  ),
};

export type RpcMethod = keyof typeof PARAMS;
const checks = Object.fromEntries(Object.entries(PARAMS).map(([m, s]) => [m, TypeCompiler.Compile(s as TSchema)])) as Record<
  string,
  TypeCheck<TSchema>
>;
const BROWSER: RpcMethod[] = [
  'browser.open',
  'page.goto',
  'page.click',
  'page.fill',
  'page.select',
  'page.press',
  'page.wait',
  'page.snapshot',
  'page.exists',
  'page.text',
  'page.evaluate',
];

/** The RPC methods a run of this definition may call. */
export function allowedRpcs(def: ConnectorDefinition): ReadonlySet<string> {
  switch (def.engine) {
    case 'http':
      return new Set(sendsFiles(def) ? ['totp.code', 'files.read'] : ['totp.code']);
    case 'browser':
      return new Set(['totp.code', ...BROWSER]);
    case 'script':
      return new Set<string>(def.browser === true ? ['totp.code', 'files.save', ...BROWSER] : ['totp.code', 'files.save']);
  }
}

/** A template naming an uploaded file's name, type or size (`{{files.<argument>.name}}`). */
export const FILE_FIELD_REF = /\{\{\s*files\.([A-Za-z_$][\w$-]*)\./;

/** Some http step sends an uploaded file (a `file` body or multipart part) or names one's fields. */
export function sendsFiles(def: ConnectorDefinition): boolean {
  if (def.engine !== 'http') return false;
  if (FILE_FIELD_REF.test(JSON.stringify(def.result))) return true;
  return [...(def.login?.steps ?? []), ...def.steps].some(
    (s) => s.body?.file !== undefined || !!s.body?.multipart?.some((m) => m.file !== undefined) || FILE_FIELD_REF.test(JSON.stringify(s)),
  );
}

/** Why the parent refuses this RPC, or null when it may be served. */
export function refuseRpc(def: ConnectorDefinition, allowed: ReadonlySet<string>, method: unknown, params: unknown): string | null {
  if (typeof method !== 'string' || !Object.hasOwn(PARAMS, method))
    return `the sandbox asked for an unknown operation ${JSON.stringify(String(method).slice(0, 100))}`;
  if (!allowed.has(method)) {
    const who =
      def.engine === 'script'
        ? `a script connector${def.browser === true ? '' : ' without "browser": true'}`
        : `a connector of engine ${def.engine}`;
    return `the sandbox asked for ${method}, which ${who} may not use`;
  }
  const check = checks[method];
  if (!check.Check(params)) {
    const first = check.Errors(params).First();
    return `the sandbox sent invalid parameters for ${method}${first ? ` (${first.path || '/'}: ${first.message})` : ''}`;
  }
  return null;
}
