// Script connectors from a synthesized plan, for what the http engine can't do:
// - downloads: run the http plan with ctx.http and save the body as a run output file;
// - values computed in page JS: log in and submit the page's own form in a browser, capture the
//   response of the target request from inside the page, and return it.
import type { HttpDefinition, HttpStep, ScriptDefinition } from '../formats/definition/types.js';
import { CSV_OPTIONS, csvParserSource } from './csv.js';
import { SCRIPT_RUNTIME } from './script-runtime.js';

const header = (plan: unknown, what: string) =>
  `// Synthesized ${what}. The plan below is data; edit it (or replace this script) and publish a revision.\nconst PLAN = ${JSON.stringify(plan, null, 2)};\n${SCRIPT_RUNTIME}\n`;

/** Plain http plan minus annotations (the script ignores them). */
function bare(steps: HttpStep[]): HttpStep[] {
  return steps.map(
    ({ note: _n, provenance: _p, ...s }) =>
      ({
        ...s,
        extract: s.extract ? Object.fromEntries(Object.entries(s.extract).map(([k, { note: _x, ...e }]) => [k, e])) : undefined,
      }) as HttpStep,
  );
}

export function downloadScript(
  def: HttpDefinition,
  file: { filename: string; contentType: string; extract: string; csv?: boolean },
): ScriptDefinition {
  const plan = { base_url: def.base_url, steps: bare([...(def.login?.steps ?? []), ...def.steps]), file };
  // A CSV export also returns its rows, parsed by csv-parse's own build carried in the script.
  const csv = file.csv
    ? `\n// csv-parse (MIT), its self-contained sync build\n${csvParserSource()}\nconst CSV_OPTIONS = ${JSON.stringify(CSV_OPTIONS)};\n`
    : '';
  const source =
    header(plan, 'download connector (http plan + files.save)') +
    csv +
    `export default async function (ctx) {
  const scope = { args: ctx.args, secrets: secretsScope(ctx), vars: {}, run: runScope() };
  let res = null;
  for (const s of PLAN.steps) res = await step(ctx, s, scope, PLAN.base_url);
  const body = scope.vars[PLAN.file.extract];
  const saved = await ctx.files.save(PLAN.file.filename, body, PLAN.file.contentType);
  const lines = body.split(/\\r?\\n/).filter((l) => l.length);
  const out = { file_id: saved.id, filename: saved.name, content_type: PLAN.file.contentType, size_bytes: saved.size_bytes, lines: lines.length };
${file.csv ? '  out.rows = csv_parse_sync.parse(body, CSV_OPTIONS);\n' : ''}  return out;
}
`;
  return { format: 'connector-definition/v1', engine: 'script', source, meta: def.meta };
}

export interface BrowserCapturePlan {
  /** Login forms in order: page to open (first only), form selector, fields to fill, submit selector. */
  login: { url: string | null; form: string; fields: { selector: string; value: string }[]; submit: string }[];
  /** The page whose script makes the target request. */
  page: string;
  /** Inputs to fill before submitting (templates). */
  inputs: { selector: string; value: string }[];
  submit: string;
  /** Path of the target request whose response is captured. */
  endpoint: string;
  /** JSONPath of the result in the captured JSON, and whether it is a list. */
  result: { path: string; list: boolean };
}

const HOOK = (path: string) =>
  `(() => { if (window.__csHook) return true; window.__csHook = true; window.__csCaptured = []; const P = ${JSON.stringify(path)};
  const keep = (u, t) => { try { if (new URL(u, location.href).pathname === P) window.__csCaptured.push(t); } catch (e) {} };
  const f = window.fetch; window.fetch = async function (...a) { const r = await f.apply(this, a); r.clone().text().then((t) => keep(r.url, t), () => {}); return r; };
  const o = XMLHttpRequest.prototype.open; XMLHttpRequest.prototype.open = function (...a) { this.addEventListener('load', () => keep(this.responseURL, this.responseText)); return o.apply(this, a); };
  return true; })()`;

export function browserCaptureScript(plan: BrowserCapturePlan, meta: HttpDefinition['meta']): ScriptDefinition {
  const source =
    header({ ...plan, hook: HOOK(plan.endpoint) }, 'browser connector (values computed in page JavaScript)') +
    `export default async function (ctx) {
  const scope = { args: ctx.args, secrets: secretsScope(ctx), vars: {}, run: runScope() };
  const page = ctx.page;
  for (const [i, f] of PLAN.login.entries()) {
    if (f.url) await page.goto(f.url);
    await until(ctx, 'the form ' + f.form, () => page.exists(f.form), 15000);
    for (const x of f.fields) await page.fill(x.selector, String(render(x.value, scope, ctx)));
    await page.click(f.submit);
    await until(ctx, 'leaving the form ' + f.form, async () => !(await page.exists(f.form)), 15000);
  }
  await page.goto(PLAN.page);
  for (const f of PLAN.login) if (await page.exists(f.form)) ctx.fail('auth_required', 'the site shows its login form again after signing in', { retryable: false });
  await page.evaluate(PLAN.hook);
  for (const x of PLAN.inputs) await page.fill(x.selector, String(render(x.value, scope, ctx)));
  await page.click(PLAN.submit);
  const text = await until(ctx, 'the response of ' + PLAN.endpoint, async () => { const c = await page.evaluate('window.__csCaptured && window.__csCaptured[0]'); return c || null; }, 20000);
  let body; try { body = JSON.parse(text); } catch { ctx.fail('site_changed', PLAN.endpoint + ' did not answer JSON', { retryable: false }); }
  const found = jsonPath(body, PLAN.result.path);
  return PLAN.result.list ? { items: found } : found[0];
}
`;
  return { format: 'connector-definition/v1', engine: 'script', browser: true, source, meta };
}
