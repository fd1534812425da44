// The injected action recorder (runs in every frame of a capture context before page scripts).
// It reports clicks, final field values, selects, checks, submits and special keys through the
// `__csRecord` binding, each with an ElementInfo (robust selectors). Kept as a string: it runs in
// the page, not in Node, and must not depend on anything the page may have overwritten.
export const RECORD_BINDING = '__csRecord';

export const ACTION_SCRIPT = String.raw`(() => {
  if (window.__csRecInstalled) return;
  window.__csRecInstalled = true;
  const send = (a) => {
    const b = window.${RECORD_BINDING};
    if (typeof b === 'function') { try { b(JSON.stringify(a)); } catch (e) {} }
  };
  const clean = (s, n) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s ? s.slice(0, n || 200) : null; };
  const TEST_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];
  const TEXTLIKE = /^(text|email|password|search|tel|url|number|date|datetime-local|month|week|time)$/;
  const isTextField = (el) => el && ((el.tagName === 'INPUT' && TEXTLIKE.test(el.type || 'text')) || el.tagName === 'TEXTAREA' || el.isContentEditable);
  const q = (s) => JSON.stringify(s);
  const esc = (s) => (window.CSS && CSS.escape ? CSS.escape(s) : s.replace(/[^a-zA-Z0-9_-]/g, '\\$&'));
  const count = (css) => { try { return document.querySelectorAll(css).length; } catch (e) { return 0; } };

  function testId(el) { for (const a of TEST_ATTRS) { const v = el.getAttribute && el.getAttribute(a); if (v) return [a, v]; } return null; }
  function labelOf(el) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) { const t = lb.split(/\s+/).map((id) => { const x = document.getElementById(id); return x ? x.innerText : ''; }).join(' '); if (clean(t)) return clean(t); }
    if (el.getAttribute('aria-label')) return clean(el.getAttribute('aria-label'));
    if (el.labels && el.labels.length) return clean(el.labels[0].innerText);
    const w = el.closest && el.closest('label'); if (w) return clean(w.innerText);
    return null;
  }
  function role(el) {
    const r = el.getAttribute('role'); if (r) return r;
    const t = el.tagName.toLowerCase(), ty = (el.getAttribute('type') || '').toLowerCase();
    if (t === 'a') return el.hasAttribute('href') ? 'link' : null;
    if (t === 'button') return 'button';
    if (t === 'input') {
      if (/^(button|submit|reset|image)$/.test(ty)) return 'button';
      if (ty === 'checkbox' || ty === 'radio') return ty;
      if (ty === 'range') return 'slider';
      if (ty === 'number') return 'spinbutton';
      if (ty === 'search') return 'searchbox';
      if (ty === 'hidden') return null;
      return 'textbox';
    }
    if (t === 'textarea') return 'textbox';
    if (t === 'select') return el.multiple ? 'listbox' : 'combobox';
    const map = { option: 'option', form: 'form', img: 'img', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading', li: 'listitem', ul: 'list', ol: 'list', table: 'table', nav: 'navigation', main: 'main', summary: 'button', dialog: 'dialog' };
    return map[t] || null;
  }
  function accName(el) {
    const l = labelOf(el); if (l) return l;
    const t = el.tagName;
    if (t === 'INPUT' && /^(button|submit|reset)$/.test(el.type)) return clean(el.value);
    if (t === 'BUTTON' || t === 'A' || t === 'SUMMARY' || /^(button|link|tab|menuitem|option|heading)$/.test(role(el) || '')) { const x = clean(el.innerText, 120); if (x) return x; }
    return clean(el.getAttribute('alt') || el.getAttribute('title') || el.getAttribute('placeholder'));
  }
  function cssPath(el) {
    if (el.id && count('#' + esc(el.id)) === 1) return '#' + esc(el.id);
    const parts = [];
    let cur = el;
    while (cur && cur.nodeType === 1 && cur !== document.documentElement) {
      if (cur !== el && cur.id && count('#' + esc(cur.id)) === 1) { parts.unshift('#' + esc(cur.id)); break; }
      let s = cur.tagName.toLowerCase();
      const p = cur.parentElement;
      if (p) { const same = [...p.children].filter((c) => c.tagName === cur.tagName); if (same.length > 1) s += ':nth-of-type(' + (same.indexOf(cur) + 1) + ')'; }
      parts.unshift(s);
      cur = p;
    }
    return parts.join(' > ');
  }
  function formInfo(f) {
    if (!f) return null;
    return { id: f.id || null, name: f.getAttribute('name'), action: f.action || location.href, method: (f.getAttribute('method') || 'get').toLowerCase(), enctype: f.enctype || 'application/x-www-form-urlencoded', css: cssPath(f) };
  }
  function sameCount(pred) { let n = 0; for (const x of document.querySelectorAll('a,button,input,select,textarea,label,[role],summary,option,[contenteditable]')) if (pred(x)) n++; return n; }
  function describe(el) {
    if (!el || el.nodeType !== 1) return null;
    const tag = el.tagName.toLowerCase();
    const tid = testId(el), r = role(el), name = accName(el), label = labelOf(el);
    const text = clean(el.innerText);
    const sel = [];
    if (tid) { const c = '[' + tid[0] + '=' + q(tid[1]) + ']'; sel.push({ kind: 'testid', value: tid[1], playwright: c, unique: count(c) === 1 }); }
    if (r && name) sel.push({ kind: 'role', value: r + '|' + name, playwright: 'role=' + r + '[name=' + q(name) + ']', unique: sameCount((x) => role(x) === r && accName(x) === name) === 1 });
    if (label && /^(input|select|textarea)$/.test(tag)) sel.push({ kind: 'label', value: label, playwright: 'internal:label=' + q(label) + 'i', unique: sameCount((x) => /^(INPUT|SELECT|TEXTAREA)$/.test(x.tagName) && labelOf(x) === label) === 1 });
    const ph = el.getAttribute('placeholder');
    if (ph) { const c = tag + '[placeholder=' + q(ph) + ']'; sel.push({ kind: 'placeholder', value: ph, playwright: c, unique: count(c) === 1 }); }
    if (text && text.length <= 80 && /^(a|button|summary|label|option)$/.test(tag)) sel.push({ kind: 'text', value: text, playwright: 'text=' + q(text), unique: sameCount((x) => x.tagName === el.tagName && clean(x.innerText) === text) === 1 });
    const nm = el.getAttribute('name');
    if (nm) { const c = tag + '[name=' + q(nm) + ']'; sel.push({ kind: 'name', value: nm, playwright: 'css=' + c, unique: count(c) === 1 }); }
    if (el.id) { const c = '#' + esc(el.id); sel.push({ kind: 'id', value: el.id, playwright: 'css=' + c, unique: count(c) === 1 }); }
    const css = cssPath(el);
    sel.push({ kind: 'css', value: css, playwright: 'css=' + css, unique: count(css) === 1 });
    return {
      tag, type: tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : (tag === 'button' ? (el.getAttribute('type') || 'submit') : null),
      id: el.id || null, name: nm, label, placeholder: ph, autocomplete: el.getAttribute('autocomplete'),
      // (A number input's step says whether 17.5 is as good an answer as 18: synthesis types it.)
      ...(tag === 'input' && /^(number|range)$/i.test(el.getAttribute('type') || '') ? { step: el.getAttribute('step') } : {}),
      role: r, accessible_name: name, text, test_id: tid ? tid[1] : null,
      href: tag === 'a' && el.href ? el.href : null, selectors: sel, form: formInfo(el.form || (el.closest && el.closest('form'))),
    };
  }
  // Pick mode (the live view calls this; docs/live-view.md): the element at (x, y) or matching a
  // CSS selector, and the record around it. A record is a table row, or the nearest ancestor with
  // at least one sibling of the same signature (tag, classes, child tags): list items, cards.
  // Cells, definition terms/values and options are fields, never records.
  const NOT_RECORD = /^(TD|TH|DD|DT|OPTION|TBODY|THEAD|TFOOT|HTML|BODY)$/;
  const sig = (e) => e.tagName + '.' + [...e.classList].sort().join('.') + '>' + [...e.children].map((c) => c.tagName).join(',');
  function recordOf(el) {
    for (let cur = el; cur && cur.parentElement && cur !== document.body; cur = cur.parentElement) {
      if (cur.tagName === 'TR') {
        const t = cur.closest('table') || cur.parentElement;
        const sibs = [...t.querySelectorAll('tr')].filter((r) => r.closest('table') === t && r.querySelector('td'));
        if (sibs.includes(cur) && sibs.length >= 2) return { rec: cur, list: t, sibs };
        continue;
      }
      if (NOT_RECORD.test(cur.tagName)) continue;
      const s = sig(cur);
      const sibs = [...cur.parentElement.children].filter((c) => sig(c) === s);
      if (sibs.length >= 2 && (cur.tagName === 'LI' || cur.children.length > 0)) return { rec: cur, list: cur.parentElement, sibs };
    }
    return null;
  }
  const ownText = (e) => clean([...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join(' '));
  // What the person can see: not hidden, not a 1 px screen-reader label, not parked off-screen
  // until hover (row actions).
  function seen(e) {
    if (e.checkVisibility && !e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    const b = e.getBoundingClientRect();
    return b.width > 1 && b.height > 1 && b.right > 0;
  }
  function leafTexts(r) {
    const out = [];
    for (const e of [r, ...r.querySelectorAll('*')]) { if (!/^(SCRIPT|STYLE|TEMPLATE)$/.test(e.tagName) && seen(e)) { const t = ownText(e); if (t && !out.includes(t)) out.push(t); } }
    return out;
  }
  const secretField = (e) => e.tagName === 'INPUT' && (e.type === 'password' || (e.getAttribute('autocomplete') || '').includes('one-time-code'));
  const boxOf = (e) => { const b = e.getBoundingClientRect(); return { x: Math.round(b.left), y: Math.round(b.top), width: Math.round(b.width), height: Math.round(b.height) }; };
  window.__csPick = (o) => {
    let el = null;
    try { el = o.selector ? document.querySelector(o.selector) : document.elementFromPoint(o.x, o.y); } catch (e) {}
    if (!el || el === document.documentElement || el === document.body) return null;
    const r = recordOf(el);
    const scope = r && (o.record || r.rec === el) ? 'record' : 'value';
    const pe = scope === 'record' ? r.rec : el;
    if (o.hover) return { tag: pe.tagName.toLowerCase(), scope, box: boxOf(pe), record_box: r ? boxOf(r.rec) : null };
    const text = secretField(pe) ? null : clean(/^(INPUT|TEXTAREA|SELECT)$/.test(pe.tagName) ? pe.value : pe.innerText, 500);
    let record = null;
    if (r) {
      const others = r.sibs.filter((x) => x !== r.rec).map(leafTexts);
      const values = leafTexts(r.rec).filter((t) => !others.every((o2) => o2.includes(t))).slice(0, 12);
      record = { css: cssPath(r.rec), selectors: describe(r.rec).selectors, index: r.sibs.indexOf(r.rec), values };
    }
    return { scope, text, tag: pe.tagName.toLowerCase(), target: describe(pe), record, list: r ? { css: cssPath(r.list), count: r.sibs.length } : null, box: boxOf(pe) };
  };
  window.__csDescribeActive = () => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a && a !== document.body ? describe(a) : null; };

  const base = (type, el, time) => ({ type, time: time || Date.now(), url: location.href, target: el ? describe(el) : null });
  const pending = new Map();
  const valueOf = (el) => (el.isContentEditable ? el.innerText : el.value);
  function flush(el) {
    const t = pending.get(el); if (t === undefined) return;
    pending.delete(el);
    send(Object.assign(base('fill', el, t), { value: valueOf(el) }));
  }
  const flushAll = () => { for (const el of [...pending.keys()]) flush(el); };
  // (The recorder calls it when it stops: text typed into a search-as-you-type box that still has
  // the focus was never committed by a change, a blur or an Enter.)
  window.__csFlush = flushAll;
  const target = (e) => { const p = e.composedPath ? e.composedPath() : []; return p[0] && p[0].nodeType === 1 ? p[0] : e.target; };

  document.addEventListener('input', (e) => { const el = target(e); if (isTextField(el)) pending.set(el, Date.now()); }, true);
  document.addEventListener('change', (e) => {
    const el = target(e);
    if (isTextField(el)) return flush(el);
    if (el.tagName === 'SELECT') { const o = [...el.selectedOptions]; return send(Object.assign(base('select', el), { values: o.map((x) => x.value), labels: o.map((x) => clean(x.text) || '') })); }
    if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) send(Object.assign(base('check', el), { checked: el.checked, value: el.getAttribute('value') || 'on' }));
  }, true);
  document.addEventListener('focusout', (e) => flush(target(e)), true);
  const SPECIAL = /^(Enter|Escape|Tab|ArrowUp|ArrowDown|ArrowLeft|ArrowRight|PageUp|PageDown|Home|End)$/;
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === 'Tab') flushAll();
    if (SPECIAL.test(e.key) || ((e.ctrlKey || e.metaKey) && e.key.length === 1)) {
      const mods = []; if (e.altKey) mods.push('Alt'); if (e.ctrlKey) mods.push('Control'); if (e.metaKey) mods.push('Meta'); if (e.shiftKey) mods.push('Shift');
      send(Object.assign(base('key', target(e)), { key: e.key, modifiers: mods }));
    }
  }, true);
  const INTERACTIVE = 'a,button,input,select,textarea,label,summary,option,[role],[onclick],[data-testid],[contenteditable]';
  document.addEventListener('click', (e) => {
    flushAll();
    const raw = target(e);
    const el = (raw.closest && raw.closest(INTERACTIVE)) || raw;
    send(Object.assign(base('click', el), { detail: e.detail, button: ['left', 'middle', 'right'][e.button] || 'left', x: Math.round(e.clientX), y: Math.round(e.clientY) }));
  }, true);
  document.addEventListener('submit', (e) => {
    flushAll();
    const f = target(e);
    let fields = [];
    try {
      const fd = e.submitter ? new FormData(f, e.submitter) : new FormData(f);
      for (const [n, v] of fd) {
        const ctl = f.elements.namedItem(n);
        const type = ctl && ctl.type ? ctl.type : (v instanceof File ? 'file' : 'text');
        fields.push({ name: n, value: v instanceof File ? v.name : String(v), type });
      }
    } catch (err) {}
    send(Object.assign(base('submit', f), { form: formInfo(f), fields, submitter: e.submitter ? describe(e.submitter) : null }));
  }, true);
  window.addEventListener('pagehide', flushAll, true);
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') flushAll(); }, true);
})();`;
