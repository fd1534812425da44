// The catalogue behind the session: HTML list/detail pages, the JSON search API (page/limit and
// cursor flavours), the create-item form, the CSV export and the account page.
import { CATEGORIES, type Item } from './data.js';
import { HttpError, isJsonRequest, readFields, redirect, sendHtml, sendJson, setCookie, type Ctx, type Route } from './http.js';
import { accountPage, itemPage, itemsPage, layout, messagePage, newItemPage } from './pages.js';
import { userOf } from './state.js';
import { searchPageScript } from './scripts.js';

export const CSRF_COOKIE = 'demo_csrf';
const MAX_LIMIT = 50;

/** Case-insensitive: every word of q must occur in the name or the category. Sorted by id. */
export function searchItems(items: Item[], q: string): Item[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  return items.filter((it) => {
    const hay = `${it.name} ${it.category}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** The public JSON shape of an item in lists (no description). */
export const summary = ({ id, name, category, price, in_stock, created_at }: Item) => ({
  id,
  name,
  category,
  price,
  in_stock,
  created_at,
});

function intParam(url: URL, name: string, fallback: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new HttpError(400, `${name} must be an integer between ${min} and ${max}`);
  }
  return n;
}

function pageOf(ctx: Ctx, defaultLimit: number) {
  const q = ctx.url.searchParams.get('q') ?? '';
  const page = intParam(ctx.url, 'page', 1, 1, 10_000);
  const limit = intParam(ctx.url, 'limit', defaultLimit, 1, MAX_LIMIT);
  const all = searchItems(ctx.state.items, q);
  const items = all.slice((page - 1) * limit, page * limit);
  return { q, page, limit, items, total: all.length, has_more: page * limit < all.length };
}

// Opaque to clients; it happens to be base64url("after:<id>"), which is stable under inserts.
const encodeCursor = (id: number) => Buffer.from(`after:${id}`).toString('base64url');
function decodeCursor(cursor: string): number {
  const m = /^after:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw new HttpError(400, 'invalid cursor');
  return Number(m[1]);
}

function csvCell(value: unknown): string {
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

interface NewItemInput {
  name: string;
  category: string;
  price: number;
  in_stock: boolean;
  description: string;
}

function validateNewItem(f: Record<string, string>): NewItemInput | { field: string; detail: string } {
  const name = (f.name ?? '').trim();
  if (!name || name.length > 100) return { field: 'name', detail: 'Name is required (at most 100 characters).' };
  if (!(CATEGORIES as readonly string[]).includes(f.category ?? '')) {
    return { field: 'category', detail: `Category must be one of ${CATEGORIES.join(', ')}.` };
  }
  const priceText = (f.price ?? '').trim();
  const price = Number(priceText);
  if (!/^\d+(\.\d{1,2})?$/.test(priceText) || price > 1_000_000) {
    return { field: 'price', detail: 'Price must be a non-negative amount with at most 2 decimals.' };
  }
  const description = (f.description ?? '').trim();
  if (description.length > 500) return { field: 'description', detail: 'Description is at most 500 characters.' };
  const in_stock = ['on', 'true', '1', 'yes'].includes((f.in_stock ?? '').toLowerCase());
  return { name, category: f.category, price, in_stock, description };
}

async function createItem(ctx: Ctx): Promise<void> {
  const json = isJsonRequest(ctx.req);
  const fields = await readFields(ctx.req);
  const session = ctx.session!;
  // Double submit: the token must come both as the cookie and as a field/header, and match the session.
  const submitted = fields.csrf_token ?? String(ctx.req.headers['x-csrf-token'] ?? '');
  const cookie = ctx.cookies[CSRF_COOKIE];
  if (!submitted || submitted !== cookie || cookie !== session.csrf) {
    if (json) return sendJson(ctx.res, 403, { error: 'csrf_failed', detail: 'missing or mismatched CSRF token' });
    return sendHtml(ctx.res, 403, messagePage('Forbidden', 'Invalid or missing CSRF token. Reload the form and try again.'));
  }
  const input = validateNewItem(fields);
  if ('field' in input) {
    if (json) return sendJson(ctx.res, 422, { error: 'invalid_input', ...input });
    return sendHtml(ctx.res, 422, newItemPage(userOf(ctx.state, session), session.csrf, input.detail, fields));
  }
  const item: Item = { id: ctx.state.nextId++, created_at: new Date().toISOString(), ...input };
  ctx.state.items.push(item);
  if (!json) return redirect(ctx.res, `/items/${item.id}`);
  ctx.res.setHeader('location', `/items/${item.id}`);
  sendJson(ctx.res, 201, { id: item.id, item });
}

function findItem(ctx: Ctx): Item | undefined {
  return ctx.state.items.find((it) => it.id === Number(ctx.params.id));
}

export const itemRoutes: Route[] = [
  {
    method: 'GET',
    path: '/items',
    access: 'page',
    handler(ctx) {
      // The HTML list forgives a bad ?page= (like most sites); the JSON API answers 400.
      let view;
      try {
        view = pageOf(ctx, 10);
      } catch {
        ctx.url.searchParams.delete('page');
        view = pageOf(ctx, 10);
      }
      sendHtml(
        ctx.res,
        200,
        itemsPage(userOf(ctx.state, ctx.session!), {
          q: view.q,
          page: view.page,
          items: view.items,
          total: view.total,
          hasMore: view.has_more,
          changedMarkup: ctx.state.toggles.changed_markup,
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/items/new',
    access: 'page',
    handler(ctx) {
      const session = ctx.session!;
      setCookie(ctx.res, CSRF_COOKIE, session.csrf);
      sendHtml(ctx.res, 200, newItemPage(userOf(ctx.state, session), session.csrf));
    },
  },
  { method: 'POST', path: '/items', access: 'page', handler: createItem },
  {
    method: 'GET',
    path: /^\/items\/(?<id>\d+)$/,
    access: 'page',
    handler(ctx) {
      const user = userOf(ctx.state, ctx.session!);
      const item = findItem(ctx);
      if (!item) return sendHtml(ctx.res, 404, messagePage('Not found', 'No such item.', user));
      sendHtml(ctx.res, 200, itemPage(user, item, ctx.state.toggles.changed_markup));
    },
  },
  {
    method: 'GET',
    path: '/search',
    access: 'page',
    handler(ctx) {
      // Rendered empty; the inline script fills it from /api/search, so a recording sees XHR.
      const body = `<form id="search-form" role="search" data-testid="search-form">
<label for="q">Search items</label>
<input id="q" name="q" type="search" autocomplete="off" data-testid="search-input">
<button type="submit" data-testid="search-submit">Search</button>
</form>
<p id="status" role="status" data-testid="search-status"></p>
<ul id="results" data-testid="results"></ul>
<p><button type="button" id="more" hidden data-testid="load-more">Load more</button></p>`;
      sendHtml(ctx.res, 200, layout('Live search', body, { user: userOf(ctx.state, ctx.session!), script: searchPageScript }));
    },
  },
  {
    method: 'GET',
    path: '/api/search',
    access: 'api',
    handler(ctx) {
      const r = pageOf(ctx, 10);
      sendJson(ctx.res, 200, { items: r.items.map(summary), page: r.page, limit: r.limit, total: r.total, has_more: r.has_more });
    },
  },
  {
    method: 'GET',
    path: '/api/items',
    access: 'api',
    handler(ctx) {
      const q = ctx.url.searchParams.get('q') ?? '';
      const limit = intParam(ctx.url, 'limit', 10, 1, MAX_LIMIT);
      const cursor = ctx.url.searchParams.get('cursor');
      const after = cursor ? decodeCursor(cursor) : 0;
      const rest = searchItems(ctx.state.items, q).filter((it) => it.id > after);
      const items = rest.slice(0, limit);
      const next_cursor = rest.length > limit ? encodeCursor(items[items.length - 1].id) : null;
      sendJson(ctx.res, 200, { items: items.map(summary), limit, next_cursor });
    },
  },
  {
    method: 'GET',
    path: /^\/api\/items\/(?<id>\d+)$/,
    access: 'api',
    handler(ctx) {
      const item = findItem(ctx);
      if (!item) return sendJson(ctx.res, 404, { error: 'not_found' });
      sendJson(ctx.res, 200, item);
    },
  },
  {
    method: 'GET',
    path: '/export.csv',
    access: 'page',
    handler(ctx) {
      const items = searchItems(ctx.state.items, ctx.url.searchParams.get('q') ?? '');
      const cols = ['id', 'name', 'category', 'price', 'in_stock', 'created_at'] as const;
      const lines = [cols.join(','), ...items.map((it) => cols.map((c) => csvCell(it[c])).join(','))];
      const csv = `${lines.join('\r\n')}\r\n`; // RFC 4180 line endings
      ctx.res.writeHead(200, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="items.csv"',
        'content-length': Buffer.byteLength(csv),
        'cache-control': 'no-store',
      });
      ctx.res.end(csv);
    },
  },
  {
    method: 'GET',
    path: '/account',
    access: 'page',
    handler(ctx) {
      sendHtml(ctx.res, 200, accountPage(userOf(ctx.state, ctx.session!)));
    },
  },
  {
    method: 'GET',
    path: '/api/account',
    access: 'api',
    handler(ctx) {
      const u = userOf(ctx.state, ctx.session!);
      sendJson(ctx.res, 200, {
        username: u.username,
        display_name: u.displayName,
        email: u.email,
        plan: u.plan,
        balance: u.balance,
        two_factor: Boolean(u.totpSeed),
      });
    },
  },
];
