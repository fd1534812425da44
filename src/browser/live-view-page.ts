// The live view's HTML page (what iframe_url serves): a URL bar with back/forward/reload and the
// remote screen. Frames arrive as binary WebSocket messages (JPEG); input goes back as JSON.
// Self-contained (no external assets), so it works embedded in any origin.
export function liveViewPage(): string {
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
</style></head>
<body>
<div id="bar">
<button id="back" title="Back" aria-label="Back">&#8592;</button>
<button id="fwd" title="Forward" aria-label="Forward">&#8594;</button>
<button id="reload" title="Reload" aria-label="Reload">&#8635;</button>
<form id="go"><input id="url" aria-label="Address" autocomplete="off" spellcheck="false"></form>
<span id="state">connecting</span>
</div>
<div id="screen" tabindex="0" aria-label="Remote browser"><img id="img" alt=""></div>
<script>
(() => {
  const $ = (id) => document.getElementById(id);
  const screen = $('screen'), img = $('img'), url = $('url'), state = $('state');
  const wsUrl = location.href.replace(/^http/, 'ws').replace(/\\/live\\/([^/?#]+)/, '/live/$1/ws');
  const ws = new WebSocket(wsUrl);
  ws.binaryType = 'blob';
  let vp = { width: 1280, height: 800 }, frames = 0, lastUrl = null;
  const send = (m) => { if (ws.readyState === 1) ws.send(JSON.stringify(m)); };
  window.__live = { get frames() { return frames; }, get state() { return state.textContent; }, get viewport() { return vp; } };
  ws.onopen = () => { state.textContent = 'live'; sendSize(); screen.focus(); };
  ws.onclose = () => { if (state.textContent !== 'ended') state.textContent = 'disconnected'; };
  ws.onmessage = (ev) => {
    if (typeof ev.data !== 'string') {
      const u = URL.createObjectURL(ev.data);
      img.onload = () => { if (lastUrl) URL.revokeObjectURL(lastUrl); lastUrl = u; frames++; img.dataset.frames = String(frames); };
      img.src = u;
      return;
    }
    const m = JSON.parse(ev.data);
    if (m.viewport) vp = m.viewport;
    if (m.t === 'url' || m.t === 'hello') { if (document.activeElement !== url) url.value = m.url || ''; if (m.title) document.title = m.title; if (state.textContent === 'blocked') { state.textContent = 'live'; state.title = ''; } }
    if (m.t === 'denied') { state.textContent = 'blocked'; state.title = m.detail || ''; }
    if (m.t === 'ended') state.textContent = 'ended';
  };
  const pos = (e) => { const r = screen.getBoundingClientRect(); return { x: (e.clientX - r.left) * vp.width / r.width, y: (e.clientY - r.top) * vp.height / r.height }; };
  const BTN = ['left', 'middle', 'right'];
  screen.addEventListener('mousedown', (e) => { e.preventDefault(); screen.focus(); send(Object.assign({ t: 'mouse', type: 'down', button: BTN[e.button], clickCount: e.detail || 1 }, pos(e))); });
  screen.addEventListener('mouseup', (e) => { e.preventDefault(); send(Object.assign({ t: 'mouse', type: 'up', button: BTN[e.button], clickCount: e.detail || 1 }, pos(e))); });
  let moveQueued = null;
  screen.addEventListener('mousemove', (e) => {
    const first = !moveQueued; moveQueued = pos(e);
    if (first) requestAnimationFrame(() => { send(Object.assign({ t: 'mouse', type: 'move' }, moveQueued)); moveQueued = null; });
  });
  screen.addEventListener('wheel', (e) => { e.preventDefault(); const k = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? vp.height : 1; send(Object.assign({ t: 'wheel', dx: e.deltaX * k, dy: e.deltaY * k }, pos(e))); }, { passive: false });
  screen.addEventListener('contextmenu', (e) => e.preventDefault());
  // Printable ASCII goes as key events (pages see keydown/keypress/input); other text as insertText.
  const isAsciiChar = (k) => k.length === 1 && k >= ' ' && k <= '~';
  let composing = false;
  screen.addEventListener('keydown', (e) => {
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
