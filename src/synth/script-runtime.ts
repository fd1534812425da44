// The JavaScript a synthesized *script* connector carries: a tiny interpreter of the same plan an
// http definition holds (templates, JSON/regex/calls/header/cookie extractors), used where the plan must
// do something the http engine can't express — save a download as a run output file, or drive
// the page's own JavaScript in a browser and capture the request it makes. Plain ES2020: the
// sandbox (QuickJS) evaluates it as one module with no imports; `URL` and `setTimeout` come from its prelude.
export const SCRIPT_RUNTIME = String.raw`
// run.now_ms / now_s / now_iso: one clock reading per run, as the http engine gives them.
function runScope() {
  const ms = Date.now();
  return { now_ms: ms, now_s: Math.floor(ms / 1000), now_iso: new Date(ms).toISOString() };
}
function lookup(scope, path, ctx) {
  if (path[0] === 'secrets' && path[2] === 'totp') return ctx.totp(path[1]);
  let cur = scope;
  for (const k of path) { if (cur === null || cur === undefined) return undefined; cur = cur[k]; }
  return cur;
}
// Template filters synthesis emits (same meaning as src/formats/definition/template.ts).
function jsUnescape(s) {
  return s.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_m, e) => (e[0] === 'u' || e[0] === 'x') && e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' })[e] ?? e);
}
function htmlUnescape(s) {
  const named = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (m, e) => { if (e[0] !== '#') return named[e.toLowerCase()] ?? m; const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10); return cp <= 0x10ffff ? String.fromCodePoint(cp) : m; });
}
const text = (v) => v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
function applyFilter(v, f) {
  const i = f.indexOf(':');
  const name = (i < 0 ? f : f.slice(0, i)).trim();
  let arg; try { arg = i < 0 ? undefined : JSON.parse(f.slice(i + 1).trim()); } catch { arg = f.slice(i + 1).trim(); }
  switch (name) {
    case 'urlencode': return encodeURIComponent(text(v));
    case 'urlpath': return text(v).split('/').map(encodeURIComponent).join('/');
    case 'urldecode': try { return decodeURIComponent(text(v).replace(/\+/g, ' ')); } catch { return text(v); }
    case 'jsunescape': return jsUnescape(text(v));
    case 'htmlunescape': return htmlUnescape(text(v));
    case 'crlf': return text(v).replace(/\r?\n/g, '\r\n');
    case 'jsonesc': return JSON.stringify(text(v)).slice(1, -1);
    case 'xmlesc': return text(v).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
    case 'replace': return Array.isArray(arg) && typeof arg[0] === 'string' && arg[0] ? text(v).split(arg[0]).join(typeof arg[1] === 'string' ? arg[1] : '') : text(v);
    case 'choose': { const hit = Array.isArray(arg) ? arg.find((e) => Array.isArray(e) && typeof e[0] === 'string' && e[0].trim().toLowerCase() === text(v).trim().toLowerCase()) : undefined; return hit ? hit[1] : v; }
    case 'add': { const n = typeof v === 'number' ? v : Number(text(v)); return text(v).trim() !== '' && Number.isFinite(n) && typeof arg === 'number' ? n + arg : v; }
    case 'iso': { const n = typeof v === 'number' ? v : /^\d{1,16}$/.test(text(v).trim()) ? Number(text(v)) : NaN; const d = new Date(n); if (!Number.isFinite(n) || Number.isNaN(d.getTime())) return v; const iso = d.toISOString(); if (arg === 'datetime') return iso.slice(0, 10) + ' ' + iso.slice(11, 19); return arg === 's' ? iso.replace(/\.\d{3}Z$/, 'Z') : arg === 'date' ? iso.slice(0, 10) : iso; }
    case 'lower': return text(v).toLowerCase();
    case 'upper': return text(v).toUpperCase();
    case 'trim': return text(v).trim();
    case 'string': return text(v);
    case 'json': return JSON.stringify(v === undefined ? null : v);
    case 'default': return v === undefined || v === null || v === '' ? (arg === undefined ? null : arg) : v;
    default: throw new Error('unknown template filter ' + name);
  }
}
function evalHole(body, scope, ctx) {
  const [expr, ...filters] = body.split('|');
  let v = lookup(scope, expr.trim().split('.'), ctx);
  for (const f of filters) v = applyFilter(v, f);
  return v;
}
function render(t, scope, ctx) {
  if (typeof t !== 'string') return t;
  const whole = /^\{\{([^}]+)\}\}$/.exec(t);
  if (whole) { const v = evalHole(whole[1], scope, ctx); return v === undefined ? null : v; }
  return t.replace(/\{\{([^}]+)\}\}/g, (_m, body) => text(evalHole(body, scope, ctx)));
}
function renderAll(o, scope, ctx) {
  if (Array.isArray(o)) return o.map((x) => renderAll(x, scope, ctx));
  if (o && typeof o === 'object' && typeof o.$patch === 'string' && Array.isArray(o.set)) return patched(o, scope, ctx);
  if (o && typeof o === 'object') { const r = {}; for (const [k, v] of Object.entries(o)) r[k] = renderAll(v, scope, ctx); return r; }
  return render(o, scope, ctx);
}
// {"$patch": doc, "set": [{at, value}]}: the document with each leaf set (template.ts has the same).
function patched(o, scope, ctx) {
  const doc = render(o.$patch, scope, ctx);
  if (doc === null || typeof doc !== 'object') throw new Error('$patch needs a document');
  const out = JSON.parse(JSON.stringify(doc));
  for (const s of o.set) {
    let cur = out;
    s.at.forEach((seg, i) => {
      let key = typeof seg === 'number' ? seg : typeof seg === 'string' ? text(render(seg, scope, ctx)) : null;
      if (key === null) {
        const want = Object.entries(seg).map(([k, v]) => [k, text(render(v, scope, ctx))]);
        const hits = Array.isArray(cur) ? cur.map((el, j) => (el && typeof el === 'object' && want.every(([k, v]) => Object.prototype.hasOwnProperty.call(el, k) && text(el[k]) === v) ? j : -1)).filter((j) => j >= 0) : [];
        if (hits.length !== 1) throw new Error('invalid_input: no single record with ' + want.map(([k, v]) => k + ' = ' + v).join(', '));
        key = hits[0];
      }
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw new Error('$patch: key not allowed');
      if (i === s.at.length - 1 && !('append' in s)) cur[key] = renderAll(s.value, scope, ctx);
      else { cur = Object.prototype.hasOwnProperty.call(cur, key) ? cur[key] : undefined; if (cur === null || typeof cur !== 'object') throw new Error('invalid_input: the document has no ' + key); }
    });
    if ('append' in s) { if (!Array.isArray(cur)) throw new Error('invalid_input: not a list'); cur.push(renderAll(s.append, scope, ctx)); }
  }
  return out;
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
// calls: the same reading as engines/js-calls.ts (a linear scan, arguments parsed as JSON, nothing
// evaluated); a markup value's text is its tags dropped and entities decoded (no DOM here).
function callArgs(text, name) {
  const out = [];
  for (let at = text.indexOf(name); at >= 0 && out.length < 10000; at = text.indexOf(name, at + 1)) {
    const before = at > 0 ? text[at - 1] : '';
    if (before && (/[\w$.]/.test(before))) continue;
    let open = at + name.length;
    while (open < text.length && /\s/.test(text[open])) open++;
    if (text[open] !== '(') continue;
    let depth = 0, close = -1;
    for (let i = open; i < text.length && close < 0; i++) {
      const c = text[i];
      if (c === '"' || c === "'" || c === '\x60') { for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++; }
      else if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') { depth--; if (depth === 0) { if (c !== ')') break; close = i; } }
    }
    if (close < 0) break;
    const inner = text.slice(open + 1, close);
    try { const v = inner.trim() ? JSON.parse('[' + inner + ']') : []; if (Array.isArray(v)) out.push(v); } catch {}
    at = close;
  }
  return out;
}
function callFields(args, fields) {
  const o = {};
  for (const [k, f] of Object.entries(fields)) {
    const arg = args[f.arg];
    let v = f.key === undefined ? arg : arg !== null && typeof arg === 'object' && !Array.isArray(arg) && Object.prototype.hasOwnProperty.call(arg, f.key) ? arg[f.key] : undefined;
    if (f.text && typeof v === 'string') v = htmlUnescape(v.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
    if (v === undefined && f.required !== false) throw new Error('site_changed: field ' + k + ' (argument ' + f.arg + ') not found');
    o[k] = v === undefined ? (f.default ?? null) : v;
  }
  return o;
}
async function extract(ctx, x, res, url) {
  let all = [];
  if (x.from === 'json') { let body; try { body = JSON.parse(res.text); } catch { body = undefined; } all = body === undefined ? [] : jsonPath(body, x.path); }
  else if (x.from === 'regex') { const re = new RegExp(x.pattern, (x.flags || '').replace('g', '') + 'g'); for (const m of res.text.matchAll(re)) all.push(m[x.group || (m.length > 1 ? 1 : 0)]); }
  else if (x.from === 'header') { const h = res.headers[x.name.toLowerCase()]; if (h !== undefined) all = [Array.isArray(h) ? h[0] : h]; }
  else if (x.from === 'cookie') { const c = await ctx.http.cookie(url, x.name); if (c !== null && c !== undefined) all = [c]; }
  else if (x.from === 'calls') {
    let code = res.text;
    if (x.in !== undefined) { let body; try { body = JSON.parse(res.text); } catch { body = undefined; } const v = body === undefined ? [] : jsonPath(body, x.in); code = typeof v[0] === 'string' ? v[0] : ''; }
    all = callArgs(code, x.call).map((a) => x.fields ? callFields(a, x.fields) : a);
  }
  else if (x.from === 'body') all = [res.text];
  else if (x.from === 'status') all = [res.status];
  else if (x.from === 'url') all = [res.url];
  return x.all ? all : all.length ? all[0] : null;
}
async function step(ctx, s, scope, base) {
  const url = new URL(render(s.url, scope, ctx), base).href;
  for (const [name, t] of Object.entries(s.cookies || {}))
    if (!(await ctx.http.setCookie(url, name, text(render(t, scope, ctx))))) ctx.fail('site_changed', s.id + ': the value for cookie ' + name + ' holds a character a cookie cannot carry', { retryable: false });
  const req = { method: s.method || 'GET', url, headers: renderAll(s.headers || {}, scope, ctx), query: renderAll(s.query || {}, scope, ctx) };
  if (s.body && s.body.form) req.form = renderAll(s.body.form, scope, ctx);
  if (s.body && s.body.json !== undefined) req.json = renderAll(s.body.json, scope, ctx);
  if (s.body && s.body.text !== undefined) { req.text = render(s.body.text, scope, ctx); req.contentType = s.body.content_type; }
  const res = await ctx.http.request(req);
  ctx.log(s.id + ': ' + req.method + ' ' + res.url + ' -> ' + res.status);
  if (res.status >= 500 || res.status === 429) ctx.fail('site_unavailable', s.id + ': the site answered HTTP ' + res.status, { retryable: true });
  if (res.status === 401 || res.status === 403) ctx.fail('auth_required', s.id + ': the site answered HTTP ' + res.status, { retryable: false });
  if ((res.status === 404 || res.status === 410) && /\{\{\s*args\./.test(s.url + JSON.stringify(s.query || {}))) ctx.fail('invalid_input', s.id + ': the site has no page for these arguments (HTTP ' + res.status + ')', { retryable: false, details: { step: s.id, status: res.status, not_found: true } });
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
