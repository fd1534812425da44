// A request signed in page JavaScript, the case where replaying recorded HTTP can't work and a
// connector has to fall back to a browser.
//
// Every rendering of GET /signed mints a fresh HMAC key bound to the session, embeds it in the
// inline script obfuscated (XOR-masked, reversed), and the script signs each search with Web
// Crypto: X-Signature = hex(HMAC-SHA256(key, q \n page \n ts \n nonce)). The server rejects
// unsigned requests, wrong signatures, timestamps more than 60 s off, and reused nonces, so a
// recorded request can't be replayed and a new one can't be forged without running the page.
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { sendHtml, sendJson, type Ctx, type Route } from './http.js';
import { summary, searchItems } from './items.js';
import { layout } from './pages.js';
import { SEARCH_UI_JS } from './scripts.js';
import { newToken, userOf, type DemoState } from './state.js';

export const SIGNED_MAX_SKEW_S = 60;
/** A /signed page keeps working this long; then it must be reloaded. */
const PAGE_TTL_MS = 15 * 60_000;
const PAGE_LIMIT = 5;

export function signatureFor(key: Buffer, q: string, page: string, ts: string, nonce: string): string {
  return createHmac('sha256', key).update([q, page, ts, nonce].join('\n')).digest('hex');
}

function prune(state: DemoState, now: number): void {
  for (const [id, p] of state.signingPages) if (now - p.issuedAt > PAGE_TTL_MS) state.signingPages.delete(id);
  // A nonce older than twice the skew can't pass the timestamp check any more, so forget it.
  for (const [n, seen] of state.usedNonces) if (now - seen > 2 * SIGNED_MAX_SKEW_S * 1000) state.usedNonces.delete(n);
}

function pageScript(pageId: string, key: Buffer): string {
  const salt = randomInt(256);
  const masked = Array.from(key, (b, i) => b ^ ((i * 73 + salt) & 255)).reverse();
  return `${SEARCH_UI_JS}
(() => {
  const _d = [${masked.join(',')}];
  const _p = atob('${Buffer.from(pageId).toString('base64')}');
  const _k = () => Uint8Array.from(_d.slice().reverse(), (b, i) => b ^ ((i * 73 + ${salt}) & 255));
  async function sign(msg) {
    if (!window.crypto || !crypto.subtle) throw new Error('Web Crypto needs a secure context (localhost or https)');
    const key = await crypto.subtle.importKey('raw', _k(), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const sig = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(msg));
    return Array.from(new Uint8Array(sig), (b) => b.toString(16).padStart(2, '0')).join('');
  }
  searchUi(async (q, page) => {
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
    const p = String(page);
    const sig = await sign([q, p, ts, nonce].join('\\n'));
    return fetch('/api/signed-search?' + new URLSearchParams({ q, page: p, ts, nonce }), {
      headers: { accept: 'application/json', 'x-signature': sig, 'x-page-id': _p },
    });
  });
})();`;
}

function reject(ctx: Ctx, error: string, detail: string): void {
  sendJson(ctx.res, 403, { error, detail });
}

export const signedRoutes: Route[] = [
  {
    method: 'GET',
    path: '/signed',
    access: 'page',
    handler(ctx) {
      const now = Date.now();
      prune(ctx.state, now);
      const pageId = newToken(12);
      const key = randomBytes(32);
      ctx.state.signingPages.set(pageId, { key, sessionId: ctx.session!.id, issuedAt: now });
      const body = `<p>Same results as the live search, but every request is signed by this page.</p>
<form id="search-form" role="search" data-testid="search-form">
<label for="q">Search items</label>
<input id="q" name="q" type="search" autocomplete="off" data-testid="search-input">
<button type="submit" data-testid="search-submit">Search</button>
</form>
<p id="status" role="status" data-testid="search-status"></p>
<ul id="results" data-testid="results"></ul>
<p><button type="button" id="more" hidden data-testid="load-more">Load more</button></p>`;
      const user = userOf(ctx.state, ctx.session!);
      sendHtml(ctx.res, 200, layout('Signed search', body, { user, script: pageScript(pageId, key) }));
    },
  },
  {
    method: 'GET',
    path: '/api/signed-search',
    access: 'api',
    handler(ctx) {
      const now = Date.now();
      const sp = ctx.url.searchParams;
      const q = sp.get('q') ?? '';
      const pageText = sp.get('page') ?? '1';
      const ts = sp.get('ts') ?? '';
      const nonce = sp.get('nonce') ?? '';
      const sig = String(ctx.req.headers['x-signature'] ?? '');
      const pageId = String(ctx.req.headers['x-page-id'] ?? '');
      if (!sig || !pageId || !ts || !nonce) {
        return reject(ctx, 'missing_signature', 'X-Signature, X-Page-Id, ts and nonce are required');
      }
      const signing = ctx.state.signingPages.get(pageId);
      if (!signing || signing.sessionId !== ctx.session!.id || now - signing.issuedAt > PAGE_TTL_MS) {
        return reject(ctx, 'unknown_page', 'reload /signed');
      }
      if (!/^\d+$/.test(ts) || Math.abs(now / 1000 - Number(ts)) > SIGNED_MAX_SKEW_S) {
        return reject(ctx, 'stale_timestamp', `ts must be within ${SIGNED_MAX_SKEW_S} s of the server clock`);
      }
      const expected = Buffer.from(signatureFor(signing.key, q, pageText, ts, nonce));
      const given = Buffer.from(sig.toLowerCase());
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return reject(ctx, 'bad_signature', 'signature does not match');
      }
      if (ctx.state.usedNonces.has(nonce)) return reject(ctx, 'nonce_reused', 'this request was already used');
      ctx.state.usedNonces.set(nonce, now);

      const page = Math.max(1, Math.floor(Number(pageText)) || 1);
      const all = searchItems(ctx.state.items, q);
      const items = all.slice((page - 1) * PAGE_LIMIT, page * PAGE_LIMIT);
      sendJson(ctx.res, 200, {
        items: items.map(summary),
        page,
        limit: PAGE_LIMIT,
        total: all.length,
        has_more: page * PAGE_LIMIT < all.length,
      });
    },
  },
];
