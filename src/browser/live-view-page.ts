// The live view's HTML page (what iframe_url serves): a URL bar with back/forward/reload, the pick
// mode toggle and the remote screen. Frames arrive as binary WebSocket messages (JPEG); input goes
// back as JSON. Events go to the embedding page with postMessage, only to the origin named by
// `parent_origin`. Read-only (iframe_view_url): no controls, nothing sent (the server drops input
// on that socket anyway). Self-contained (no external assets), so it works embedded in any origin.
//
// `firstFrame`: the newest frame of the warm screencast, inlined so the remote screen paints with
// the page itself instead of after the WebSocket's hello (the first frame a viewer sees).
export function liveViewPage(opts: { readOnly?: boolean; firstFrame?: Buffer | null } = {}): string {
  const inline = opts.firstFrame ? ` src="data:image/jpeg;base64,${opts.firstFrame.toString('base64')}"` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Live browser</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
html,body{margin:0;height:100%;overflow:hidden;font:13px system-ui,sans-serif;background:#f4f4f4}
#bar{display:flex;gap:4px;align-items:center;padding:4px;height:28px;background:#e8e8e8;border-bottom:1px solid #ccc}
#bar button{width:30px;height:26px}#go{flex:1;display:flex}#url{flex:1;height:22px;padding:0 6px}
#state{color:#666;min-width:5em;text-align:right}
#screen{position:absolute;top:37px;left:0;right:0;bottom:0;outline:none;background:#fff;overflow:hidden;cursor:default}
#img{display:block;width:100%;height:100%;object-fit:fill;user-select:none;-webkit-user-drag:none;pointer-events:none}
#pick[aria-pressed=true]{background:#ffd54a}#screen.picking{cursor:crosshair}
.hl{position:absolute;pointer-events:none;display:none;box-sizing:border-box}
#hl{border:2px solid #e8710a;background:rgba(232,113,10,.12)}#hlrec{border:2px dashed #1a73e8}
#picks{color:#555}body.view #back,body.view #fwd,body.view #reload,body.view #pick{display:none}
body.view #img{object-fit:contain}
#chooser{position:absolute;top:37px;left:0;right:0;z-index:2;display:none;gap:8px;align-items:center;padding:6px 8px;background:#fff8c5;border-bottom:1px solid #d4a72c}
#chooser.open{display:flex}#chooser span{flex:1}body.view #chooser{display:none}
</style></head>
<body class="${opts.readOnly ? 'view' : 'control'}">
<div id="bar">
<button id="back" title="Back" aria-label="Back">&#8592;</button>
<button id="fwd" title="Forward" aria-label="Forward">&#8594;</button>
<button id="reload" title="Reload" aria-label="Reload">&#8635;</button>
<form id="go"><input id="url" aria-label="Address" autocomplete="off" spellcheck="false"${opts.readOnly ? ' readonly' : ''}></form>
<button id="pick" title="Pick what you want back: click a value, shift-click for its whole row (Esc: done)" aria-label="Pick what you want back" aria-pressed="false" style="width:auto">Pick</button>
<span id="picks"></span>
<span id="state">connecting</span>
</div>
<div id="chooser" role="dialog" aria-label="The page asks for a file"><span id="chooser-text">The page asks for a file.</span><input id="chooser-input" type="file" hidden><button id="chooser-pick">Choose file&#8230;</button><button id="chooser-cancel">Cancel</button></div>
<div id="screen" tabindex="0" aria-label="Remote browser"><img id="img" alt=""${inline}><div id="hlrec" class="hl"></div><div id="hl" class="hl"></div></div>
<script>
(() => {
  const $ = (id) => document.getElementById(id);
  const screen = $('screen'), img = $('img'), url = $('url'), state = $('state');
  const wsUrl = location.href.replace(/^http/, 'ws').replace(/\\/live\\/([^/?#]+)/, '/live/$1/ws');
  const READ_ONLY = ${opts.readOnly ? 'true' : 'false'};
  const SID = decodeURIComponent((location.pathname.match(/\\/live\\/([^/]+)/) || [])[1] || '');
  // Events for the embedding page go only to the origin it named (never '*': they carry URLs and picked text).
  const PARENT = (() => {
    const o = new URLSearchParams(location.search).get('parent_origin');
    try { const u = new URL(o); return /^https?:$/.test(u.protocol) && u.origin === o ? o : null; } catch (e) { return null; }
  })();
  const post = (type, data) => {
    if (!PARENT || window.parent === window) return;
    try { window.parent.postMessage(Object.assign({ source: 'connector-live-view', type, session_id: SID }, data), PARENT); } catch (e) {}
  };
  let ws = null, tries = 0, opened = false;
  let vp = { width: 1280, height: 800 }, frames = 0, lastUrl = null, picking = false, picks = 0;
  const send = (m) => { if (!READ_ONLY && ws && ws.readyState === 1) ws.send(JSON.stringify(m)); };
  const setState = (s, why) => {
    if (state.textContent === s) return;
    state.textContent = s; state.title = why || '';
    if (s !== 'ended') post('state', { state: s });
  };
  // The inlined frame counts once it shows (before any frame of the socket replaces it).
  if (img.getAttribute('src')) {
    if (img.complete && img.naturalWidth) frames = 1;
    else img.onload = () => { if (!frames) frames = 1; };
  }
  window.__live = { get frames() { return frames; }, get state() { return state.textContent; }, get viewport() { return vp; }, get picking() { return picking; }, get picks() { return picks; }, readOnly: READ_ONLY };
  // A socket that drops (a proxy's idle timeout, a server restart, a network blip) is opened again,
  // backing off to 5 s, unless the session ended (4001) or is gone (4004): the viewer never stays
  // blank while the session lives. Each new socket is a new viewer: hello, the newest frame, on.
  const ended = (st) => { state.textContent = 'ended'; state.title = ''; post('ended', { state: st || null }); };
  // A session that ended while no socket was open refuses the next upgrade with an HTTP 404,
  // which a browser's WebSocket can't read (it sees 1006, like any network failure): the page
  // itself answers 404 then (this page loaded, so the session was there), so ask it first.
  const retry = () => fetch(location.href, { method: 'HEAD', cache: 'no-store' })
    .then((r) => (r.status === 404 ? ended() : connect()), () => connect());
  const connect = () => {
    ws = new WebSocket(wsUrl);
    ws.binaryType = 'blob';
    ws.onopen = () => { tries = 0; setState('live'); sendSize(); if (!opened) screen.focus(); opened = true; };
    ws.onclose = (e) => {
      if (state.textContent === 'ended') return;
      if (e.code === 4001 || (e.code === 4004 && opened)) return ended();
      const final = e.code === 4004 || tries >= 30;
      setState('disconnected', final ? '' : 'reconnecting');
      if (!final) setTimeout(retry, Math.min(250 * 2 ** tries++, 5000));
    };
    ws.onmessage = onMessage;
  };
  const hl = $('hl'), hlrec = $('hlrec');
  const place = (el, b) => {
    if (!b || !picking) { el.style.display = 'none'; return; }
    const r = screen.getBoundingClientRect(), kx = r.width / vp.width, ky = r.height / vp.height;
    Object.assign(el.style, { display: 'block', left: b.x * kx + 'px', top: b.y * ky + 'px', width: b.width * kx + 'px', height: b.height * ky + 'px' });
  };
  const setPicking = (on) => {
    if (on !== picking) post('pick_mode', { on });
    picking = on; $('pick').setAttribute('aria-pressed', String(on)); screen.classList.toggle('picking', on);
    if (!on) { place(hl, null); place(hlrec, null); }
  };
  // One frame decoding at a time, the newest one waiting: replacing src mid-decode would abort it
  // (and leak its blob URL), so frames arriving faster than they decode would never show.
  let decoding = false, waiting = null;
  const showFrame = (blob) => {
    if (decoding) { waiting = blob; return; }
    decoding = true;
    const u = URL.createObjectURL(blob);
    const done = (ok) => {
      decoding = false;
      if (ok) { if (lastUrl) URL.revokeObjectURL(lastUrl); lastUrl = u; frames++; img.dataset.frames = String(frames); } else URL.revokeObjectURL(u);
      if (waiting) { const b = waiting; waiting = null; showFrame(b); }
    };
    img.onload = () => done(true); img.onerror = () => done(false);
    img.src = u;
  };
  // The page's file chooser (a headless page has no dialog): the person's files go over the socket
  // in chunks of 36 KB (48 KB as base64: under the socket's message limit), then file_end done.
  const chooser = $('chooser'), chooserInput = $('chooser-input');
  const showChooser = (c) => {
    chooser.classList.toggle('open', !!c);
    if (!c) return;
    $('chooser-text').textContent = 'The page asks for ' + (c.multiple ? 'files' : 'a file') + (c.accept ? ' (' + c.accept + ')' : '') + '.';
    chooserInput.multiple = !!c.multiple;
    if (c.accept) chooserInput.accept = c.accept; else chooserInput.removeAttribute('accept');
  };
  const b64 = (bytes) => { let s = ''; for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192)); return btoa(s); };
  const sendFiles = async (files) => {
    $('chooser-text').textContent = 'Sending ' + files.length + ' file(s)…';
    for (let k = 0; k < files.length; k++) {
      const f = files[k], bytes = new Uint8Array(await f.arrayBuffer());
      send({ t: 'file_begin', name: f.name, type: f.type || 'application/octet-stream', size: bytes.length });
      for (let i = 0; i < bytes.length; i += 36864) send({ t: 'file_chunk', data: b64(bytes.subarray(i, i + 36864)) });
      send({ t: 'file_end', done: k === files.length - 1 });
    }
  };
  $('chooser-pick').onclick = () => chooserInput.click();
  chooserInput.onchange = () => { const files = [...chooserInput.files]; chooserInput.value = ''; if (files.length) sendFiles(files); };
  $('chooser-cancel').onclick = () => { send({ t: 'file_cancel' }); showChooser(null); };
  window.__live.sendFiles = sendFiles;
  const onMessage = (ev) => {
    if (typeof ev.data !== 'string') return showFrame(ev.data);
    const m = JSON.parse(ev.data);
    if (m.viewport) vp = m.viewport;
    if (m.t === 'url' || m.t === 'hello') { if (document.activeElement !== url) url.value = m.url || ''; if (m.title) document.title = m.title; if (state.textContent === 'blocked') setState('live'); }
    if (m.t === 'hello') { setPicking(!!m.pick); post('ready', { mode: m.mode, url: m.url || '' }); showChooser(m.filechooser); }
    if (m.t === 'filechooser') showChooser(m);
    if (m.t === 'filechooser_done') showChooser(null);
    if (m.t === 'filechooser_refused') $('chooser-text').textContent = 'Not sent: ' + m.reason + '. Choose again.';
    if (m.t === 'url') post('navigated', { url: m.url || '', title: m.title || '' });
    if (m.t === 'denied') setState('blocked', m.detail || '');
    if (m.t === 'ended') ended(m.state);
    if (m.t === 'pick') setPicking(!!m.on);
    if (m.t === 'hover') { place(hl, m.box); place(hlrec, m.scope === 'value' ? m.record_box : null); }
    if (m.t === 'picked' && m.id) {
      picks++; $('picks').textContent = picks + ' picked'; $('picks').title = m.text || '';
      post('pick', { id: m.id, scope: m.scope, text: m.text, tag: m.tag, selector: m.selector, record_selector: m.record_selector, list_selector: m.list_selector });
    }
  };
  // Commands from the embedding page: only from the named origin, only the parent window.
  window.addEventListener('message', (e) => {
    if (!PARENT || e.origin !== PARENT || e.source !== window.parent || !e.data || typeof e.data !== 'object') return;
    if (e.data.type === 'pick') send({ t: 'pick', on: !!e.data.on });
  });
  connect();
  if (READ_ONLY) return;
  $('pick').onclick = () => { send({ t: 'pick', on: !picking }); screen.focus(); };
  const pos = (e) => { const r = screen.getBoundingClientRect(); return { x: (e.clientX - r.left) * vp.width / r.width, y: (e.clientY - r.top) * vp.height / r.height }; };
  const BTN = ['left', 'middle', 'right'];
  screen.addEventListener('mousedown', (e) => { e.preventDefault(); screen.focus(); send(Object.assign({ t: 'mouse', type: 'down', button: BTN[e.button], clickCount: e.detail || 1 }, pos(e))); });
  screen.addEventListener('mouseup', (e) => { e.preventDefault(); send(Object.assign({ t: 'mouse', type: 'up', button: BTN[e.button], clickCount: e.detail || 1, shift: e.shiftKey }, pos(e))); });
  let moveQueued = null;
  screen.addEventListener('mousemove', (e) => {
    const first = !moveQueued; moveQueued = pos(e);
    if (first) requestAnimationFrame(() => { send(Object.assign({ t: 'mouse', type: 'move' }, moveQueued)); moveQueued = null; });
  });
  // Wheel deltas are summed per animation frame (a touchpad fires far more often than frames come).
  let wheelQueued = null;
  screen.addEventListener('wheel', (e) => {
    e.preventDefault();
    const k = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? vp.height : 1;
    if (wheelQueued) { wheelQueued.dx += e.deltaX * k; wheelQueued.dy += e.deltaY * k; Object.assign(wheelQueued, pos(e)); return; }
    wheelQueued = Object.assign({ t: 'wheel', dx: e.deltaX * k, dy: e.deltaY * k }, pos(e));
    requestAnimationFrame(() => { send(wheelQueued); wheelQueued = null; });
  }, { passive: false });
  screen.addEventListener('contextmenu', (e) => e.preventDefault());
  // Printable ASCII goes as key events (pages see keydown/keypress/input); other text as insertText.
  const isAsciiChar = (k) => k.length === 1 && k >= ' ' && k <= '~';
  let composing = false;
  screen.addEventListener('keydown', (e) => {
    if (picking && e.key === 'Escape') { e.preventDefault(); return send({ t: 'pick', on: false }); }
    if (composing || e.isComposing) return;
    e.preventDefault();
    if (e.key.length === 1 && !isAsciiChar(e.key) && !e.ctrlKey && !e.metaKey) return send({ t: 'text', text: e.key });
    send({ t: 'key', type: 'down', key: e.key, code: e.code });
  });
  screen.addEventListener('keyup', (e) => {
    if (composing || e.isComposing) return;
    e.preventDefault();
    if (e.key.length === 1 && !isAsciiChar(e.key) && !e.ctrlKey && !e.metaKey) return;
    send({ t: 'key', type: 'up', key: e.key, code: e.code });
  });
  screen.addEventListener('compositionstart', () => { composing = true; });
  screen.addEventListener('compositionend', (e) => { composing = false; if (e.data) send({ t: 'text', text: e.data }); });
  screen.addEventListener('paste', (e) => { const t = e.clipboardData && e.clipboardData.getData('text'); if (t) { e.preventDefault(); send({ t: 'text', text: t }); } });
  $('go').addEventListener('submit', (e) => { e.preventDefault(); send({ t: 'navigate', url: url.value.trim() }); screen.focus(); });
  $('back').onclick = () => send({ t: 'back' });
  $('fwd').onclick = () => send({ t: 'forward' });
  $('reload').onclick = () => send({ t: 'reload' });
  let sizeTimer = null;
  function sendSize() { const r = screen.getBoundingClientRect(); send({ t: 'resize', width: Math.round(r.width), height: Math.round(r.height) }); }
  new ResizeObserver(() => { clearTimeout(sizeTimer); sizeTimer = setTimeout(sendSize, 150); }).observe(screen);
})();
</script>
</body></html>`;
}
