// JavaScript evaluated inside the QuickJS sandbox before the connector's module: it builds the
// documented `ctx` (docs/connector-definition.md, "The script engine") and a few web globals
// (setTimeout, URL, URLSearchParams, TextEncoder/TextDecoder, atob/btoa, console) on top of four
// raw host functions that pass only strings (JSON) and ArrayBuffers across the boundary.
// Nothing here is trusted: the script can replace any of it; every host function re-checks what
// it receives (script-engine.ts). It is a function expression; the host calls it with
// (host, infoJson) and gets back `run(namespaceOrPromise)`.
export const SCRIPT_PRELUDE = String.raw`(function (host, infoJson) {
  'use strict';
  const info = JSON.parse(infoJson);
  const stringify = JSON.stringify, parse = JSON.parse;
  const ERRORS = { Error, TypeError, RangeError, SyntaxError, URIError, ReferenceError };
  class ConnectorFailure extends Error {}
  Object.defineProperty(ConnectorFailure.prototype, 'name', { value: 'ConnectorFailure' });
  const failure = (id, message) => { const e = new ConnectorFailure(String(message)); e.__csFailure = id; return e; };
  const unwrap = (s) => {
    const r = parse(s);
    if (r.fail) throw failure(r.fail, r.message);
    if (r.error) { const E = ERRORS[r.error.name] || Error; const e = new E(r.error.message); if (!ERRORS[r.error.name]) e.name = String(r.error.name); throw e; }
    return r.ok;
  };
  const call = (name, args) => unwrap(host.sync(name, stringify(args === undefined ? null : args)));
  const callAsync = (name, args, bytes) => host.async(name, stringify(args === undefined ? null : args), bytes).then(unwrap);
  const toBytes = (d) => d instanceof ArrayBuffer ? d : ArrayBuffer.isView(d) ? d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength) : undefined;

  // Timers: a host sleep per timer, the callback runs unless cleared meanwhile.
  let timerSeq = 0;
  const timers = new Map();
  const schedule = (fn, ms, args, repeat) => {
    const id = ++timerSeq;
    timers.set(id, true);
    const tick = () => callAsync('sleep', { ms: Number(ms) || 0 }).then(() => {
      if (!timers.has(id)) return;
      if (!repeat) timers.delete(id);
      if (typeof fn === 'function') fn(...args);
      if (repeat && timers.has(id)) tick();
    });
    tick();
    return id;
  };
  globalThis.setTimeout = (fn, ms, ...args) => schedule(fn, ms, args, false);
  globalThis.setInterval = (fn, ms, ...args) => schedule(fn, Math.max(Number(ms) || 0, 10), args, true);
  globalThis.clearTimeout = globalThis.clearInterval = (id) => { timers.delete(id); };
  globalThis.queueMicrotask = (fn) => { Promise.resolve().then(fn); };

  // URLSearchParams (pure JS, application/x-www-form-urlencoded) and URL (parsed by the host's WHATWG parser).
  const formEncode = (s) => encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  const formDecode = (s) => { s = s.replace(/\+/g, ' '); try { return decodeURIComponent(s); } catch (e) { return s; } };
  const owner = new WeakMap();
  class URLSearchParams {
    constructor(init) {
      this._list = [];
      if (init === undefined || init === null) return;
      if (typeof init === 'object' && typeof init[Symbol.iterator] === 'function') for (const [k, v] of init) this._list.push([String(k), String(v)]);
      else if (typeof init === 'object') for (const k of Object.keys(init)) this._list.push([k, String(init[k])]);
      else for (const part of String(init).replace(/^\?/, '').split('&')) {
        if (!part) continue;
        const i = part.indexOf('=');
        this._list.push(i < 0 ? [formDecode(part), ''] : [formDecode(part.slice(0, i)), formDecode(part.slice(i + 1))]);
      }
    }
    _changed() { const u = owner.get(this); if (u) u._setSearch(this.toString()); }
    get size() { return this._list.length; }
    append(k, v) { this._list.push([String(k), String(v)]); this._changed(); }
    delete(k) { k = String(k); this._list = this._list.filter((p) => p[0] !== k); this._changed(); }
    get(k) { k = String(k); const p = this._list.find((x) => x[0] === k); return p ? p[1] : null; }
    getAll(k) { k = String(k); return this._list.filter((x) => x[0] === k).map((x) => x[1]); }
    has(k) { k = String(k); return this._list.some((x) => x[0] === k); }
    set(k, v) {
      k = String(k); v = String(v);
      const i = this._list.findIndex((x) => x[0] === k);
      if (i < 0) this._list.push([k, v]); else { this._list[i] = [k, v]; this._list = this._list.filter((x, j) => j <= i || x[0] !== k); }
      this._changed();
    }
    sort() { this._list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); this._changed(); }
    forEach(fn, self) { for (const [k, v] of this._list) fn.call(self, v, k, this); }
    keys() { return this._list.map((x) => x[0])[Symbol.iterator](); }
    values() { return this._list.map((x) => x[1])[Symbol.iterator](); }
    entries() { return this._list.map((x) => [x[0], x[1]])[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return this._list.map(([k, v]) => formEncode(k) + '=' + formEncode(v)).join('&'); }
  }
  const PARTS = ['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
  class URL {
    constructor(input, base) { this._p = call('url', { input: String(input), base: base === undefined ? null : String(base) }); this._sp = null; }
    static canParse(input, base) { try { new URL(input, base); return true; } catch (e) { return false; } }
    get origin() { return this._p.origin; }
    get searchParams() { if (!this._sp) { this._sp = new URLSearchParams(this._p.search); owner.set(this._sp, this); } return this._sp; }
    _setSearch(s) { this._p = call('url', { input: this._p.href, set: 'search', value: s }); }
    toString() { return this._p.href; }
    toJSON() { return this._p.href; }
  }
  for (const k of PARTS) Object.defineProperty(URL.prototype, k, {
    get() { return this._p[k]; },
    set(v) { this._p = call('url', { input: this._p.href, set: k, value: String(v) }); if (this._sp) this._sp._list = new URLSearchParams(this._p.search)._list; },
  });
  globalThis.URL = URL;
  globalThis.URLSearchParams = URLSearchParams;

  class TextEncoder { get encoding() { return 'utf-8'; } encode(s = '') { return new Uint8Array(host.utf8(String(s))); } }
  class TextDecoder { get encoding() { return 'utf-8'; } decode(b) { if (b === undefined) return ''; const buf = toBytes(b); if (!buf) throw new TypeError('TextDecoder.decode: expected an ArrayBuffer or a typed array'); return host.utf8(buf); } }
  globalThis.TextEncoder = TextEncoder;
  globalThis.TextDecoder = TextDecoder;
  globalThis.btoa = (s) => call('btoa', String(s));
  globalThis.atob = (s) => call('atob', String(s));

  const line = (parts) => parts.map((p) => (typeof p === 'string' ? p : stringify(p))).join(' ');
  const log = (...parts) => { call('log', line(parts)); };
  globalThis.console = { log, info: log, warn: log, error: log, debug: log };

  const response = (r) => ({ status: r.status, url: r.url, headers: r.headers, text: r.text, json() { return parse(this.text); } });
  const request = (r) => callAsync('http.request', r).then(response);
  const page = (m, p) => callAsync('page', { method: m, params: p });
  const T = 15000;
  const ctx = {
    args: info.args,
    secrets: info.secrets,
    run: info.run,
    http: {
      request,
      get: (url, opts = {}) => request({ ...opts, url, method: 'GET' }),
      post: (url, opts = {}) => request({ ...opts, url, method: 'POST' }),
      cookie: (url, name) => call('http.cookie', { url: String(url), name: String(name) }) ?? undefined,
      setCookie: (url, name, value) => call('http.setCookie', { url: String(url), name: String(name), value: String(value) }),
    },
    page: !info.browser ? null : {
      goto: (url) => page('page.goto', { url: String(url), timeout: T }),
      click: (selector) => page('page.click', { selector: String(selector), timeout: T }),
      fill: (selector, text) => page('page.fill', { selector: String(selector), text: String(text), timeout: T }),
      select: (selector, value) => page('page.select', { selector: String(selector), value: String(value), timeout: T }),
      press: (key, selector = null) => page('page.press', { key: String(key), selector: selector === null ? null : String(selector), timeout: T }),
      waitFor: (selector, state = null) => page('page.wait', { selector: String(selector), state: state === null ? null : String(state), timeout: T }),
      content: async () => (await page('page.snapshot', {})).html,
      url: async () => (await page('page.snapshot', {})).url,
      text: (selector) => page('page.text', { selector: String(selector), timeout: T }),
      exists: (selector) => page('page.exists', { selector: String(selector) }),
      evaluate: (js) => page('page.evaluate', { js: String(js) }),
    },
    log,
    totp: (slot) => call('totp', String(slot)),
    files: {
      save: (name, data, contentType = 'application/octet-stream') => {
        const bytes = toBytes(data);
        return callAsync('files.save', { name: String(name), contentType: String(contentType), text: bytes ? null : String(data) }, bytes);
      },
    },
    fail: (type, message, opts = {}) => { throw failure(call('fail', { type: String(type), message: String(message), retryable: opts && opts.retryable, details: opts && opts.details }), message); },
  };

  // The connector's outcome as one string: R<result JSON> | F<failure id> | E<error JSON> | N (no default export).
  return async function run(ns) {
    let main;
    try {
      main = (await ns).default;
    } catch (e) {
      return describe(e);
    }
    if (typeof main !== 'function') return 'N';
    try {
      const v = await main(ctx);
      const json = stringify(v);
      return 'R' + (json === undefined ? 'null' : json);
    } catch (e) {
      return describe(e);
    }
  };

  function describe(e) {
    try {
      if (e && typeof e.__csFailure === 'number') return 'F' + e.__csFailure;
      const isObj = e !== null && (typeof e === 'object' || typeof e === 'function');
      const exception = isObj ? String((e.constructor && e.constructor.name) || e.name || 'Error') : typeof e;
      const message = isObj && e.message !== undefined ? String(e.message) : String(e);
      return 'E' + stringify({ exception, message });
    } catch (x) {
      return 'E' + stringify({ exception: 'Error', message: 'the script threw a value that cannot be described' });
    }
  }
})`;
