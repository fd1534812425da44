// The JavaScript a synthesized *script* connector carries: a tiny interpreter of the same plan an
// http definition holds (templates, JSON/regex/header/cookie extractors), used where the plan must
// do something the http engine can't express — save a download as a run output file, or drive
// the page's own JavaScript in a browser and capture the request it makes. Plain ES2020: the
// sandbox (QuickJS) evaluates it as one module with no imports; `URL` and `setTimeout` come from its prelude.
export const SCRIPT_RUNTIME = String.raw`
function lookup(scope, path, ctx) {
  if (path[0] === 'secrets' && path[2] === 'totp') return ctx.totp(path[1]);
  let cur = scope;
  for (const k of path) { if (cur === null || cur === undefined) return undefined; cur = cur[k]; }
  return cur;
}
function render(t, scope, ctx) {
  if (typeof t !== 'string') return t;
  const whole = /^\{\{\s*([^}|]+?)\s*(\|\s*urlencode\s*)?\}\}$/.exec(t);
  const one = (expr, enc) => { const v = lookup(scope, expr.trim().split('.'), ctx); const s = v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v); return enc ? encodeURIComponent(s) : s; };
  if (whole && !whole[2]) { const v = lookup(scope, whole[1].trim().split('.'), ctx); return v === undefined ? null : v; }
  return t.replace(/\{\{\s*([^}|]+?)\s*(\|\s*urlencode\s*)?\}\}/g, (_m, e, enc) => one(e, !!enc));
}
function renderAll(o, scope, ctx) {
  if (Array.isArray(o)) return o.map((x) => renderAll(x, scope, ctx));
  if (o && typeof o === 'object') { const r = {}; for (const [k, v] of Object.entries(o)) r[k] = renderAll(v, scope, ctx); return r; }
  return render(o, scope, ctx);
}
function jsonPath(v, path) {
  const parts = path.replace(/^\$/, '').match(/\.[A-Za-z_$][\w$]*|\[\d+\]|\["[^"]*"\]|\[\*\]/g) || [];
  let cur = [v];
  for (const p of parts) {
    const next = [];
    for (const c of cur) {
      if (c === null || c === undefined) continue;
      if (p === '[*]') { if (Array.isArray(c)) next.push(...c); }
      else if (p[0] === '.') next.push(c[p.slice(1)]);
      else if (p[1] === '"') next.push(c[JSON.parse(p.slice(1, -1))]);
      else next.push(c[Number(p.slice(1, -1))]);
    }
    cur = next;
  }
  return cur.filter((x) => x !== undefined);
}
async function extract(ctx, x, res, url) {
  let all = [];
  if (x.from === 'json') { let body; try { body = JSON.parse(res.text); } catch { body = undefined; } all = body === undefined ? [] : jsonPath(body, x.path); }
  else if (x.from === 'regex') { const re = new RegExp(x.pattern, (x.flags || '').replace('g', '') + 'g'); for (const m of res.text.matchAll(re)) all.push(m[x.group || (m.length > 1 ? 1 : 0)]); }
  else if (x.from === 'header') { const h = res.headers[x.name.toLowerCase()]; if (h !== undefined) all = [Array.isArray(h) ? h[0] : h]; }
  else if (x.from === 'cookie') { const c = await ctx.http.cookie(url, x.name); if (c !== null && c !== undefined) all = [c]; }
  else if (x.from === 'body') all = [res.text];
  else if (x.from === 'status') all = [res.status];
  else if (x.from === 'url') all = [res.url];
  return x.all ? all : all.length ? all[0] : null;
}
async function step(ctx, s, scope, base) {
  const url = new URL(render(s.url, scope, ctx), base).href;
  const req = { method: s.method || 'GET', url, headers: renderAll(s.headers || {}, scope, ctx), query: renderAll(s.query || {}, scope, ctx) };
  if (s.body && s.body.form) req.form = renderAll(s.body.form, scope, ctx);
  if (s.body && s.body.json !== undefined) req.json = renderAll(s.body.json, scope, ctx);
  if (s.body && s.body.text !== undefined) { req.text = render(s.body.text, scope, ctx); req.contentType = s.body.content_type; }
  const res = await ctx.http.request(req);
  ctx.log(s.id + ': ' + req.method + ' ' + res.url + ' -> ' + res.status);
  if (res.status >= 500 || res.status === 429) ctx.fail('site_unavailable', s.id + ': the site answered HTTP ' + res.status, { retryable: true });
  if (res.status === 401 || res.status === 403) ctx.fail('auth_required', s.id + ': the site answered HTTP ' + res.status, { retryable: false });
  if (res.status === 400 || res.status === 422) ctx.fail('invalid_input', s.id + ': the site rejected the request (HTTP ' + res.status + ')', { retryable: false });
  if (res.status >= 300) ctx.fail('site_changed', s.id + ': unexpected HTTP ' + res.status, { retryable: false });
  for (const [name, x] of Object.entries(s.extract || {})) {
    const v = await extract(ctx, x, res, res.url);
    if ((v === null || (Array.isArray(v) && !v.length)) && x.required !== false) ctx.fail('site_changed', s.id + '.extract.' + name + ': nothing matched', { retryable: false, details: { step: s.id, extractor: name } });
    scope.vars[name] = v;
  }
  return res;
}
function secretsScope(ctx) { const out = {}; for (const [k, v] of Object.entries(ctx.secrets || {})) out[k] = v; return out; }
async function until(ctx, what, fn, ms) {
  const end = Date.now() + ms;
  for (;;) { const v = await fn(); if (v) return v; if (Date.now() > end) ctx.fail('site_changed', 'timed out waiting for ' + what, { retryable: true }); await new Promise((r) => setTimeout(r, 100)); }
}
`;
