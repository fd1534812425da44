// HTML templates. Plain strings: valid HTML5, labelled inputs with name/autocomplete, and
// data-testid on the controls a recorder or a browser connector will target.
import type { Item, User } from './data.js';
import { CATEGORIES } from './data.js';
import { escapeHtml as e } from './http.js';

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;color:#222}
header{display:flex;gap:1rem;align-items:center;padding:.6rem 1rem;background:#234;color:#fff}
header a{color:#fff}nav{display:flex;gap:.8rem;align-items:center;flex-wrap:wrap}
main{padding:1rem;max-width:48rem}label{display:block;margin-top:.6rem}
input,select,textarea,button{font:inherit}.error{color:#a00}dt{font-weight:bold}
nav form{display:inline}`;

export interface LayoutOptions {
  user?: User | null;
  /** Inline script appended at the end of <body>. */
  script?: string;
}

export function layout(title: string, body: string, opts: LayoutOptions = {}): string {
  const nav = opts.user
    ? `<nav><a href="/items">Items</a><a href="/search">Live search</a><a href="/signed">Signed search</a>
<a href="/items/new" data-testid="new-item-link">New item</a><a href="/account">Account</a>
<a href="/export.csv" data-testid="export-link">Export CSV</a>
<span data-testid="current-user">${e(opts.user.username)}</span>
<form method="post" action="/logout"><button type="submit" data-testid="logout">Sign out</button></form></nav>`
    : `<nav><a href="/login" data-testid="login-link">Sign in</a></nav>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)} · Demo Shop</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header><a href="/" class="brand">Demo Shop</a>${nav}</header>
<main>
<h1>${e(title)}</h1>
${body}
</main>${opts.script ? `\n<script>${opts.script}</script>` : ''}
</body>
</html>
`;
}

export function homePage(user: User | null): string {
  return layout(
    'Welcome',
    `<p>A small shop used as a fixture by the Connector Service.</p>
<p>${user ? '<a href="/items">Browse items</a>' : '<a href="/login">Sign in</a> to browse items.'}</p>`,
    { user },
  );
}

const errorLine = (error?: string) => (error ? `<p class="error" role="alert" data-testid="form-error">${e(error)}</p>` : '');

export function loginPage(csrf: string, next: string, error?: string): string {
  return layout(
    'Sign in',
    `${errorLine(error)}
<form id="login-form" method="post" action="/login" data-testid="login-form">
<input type="hidden" name="csrf_token" value="${e(csrf)}">
<input type="hidden" name="next" value="${e(next)}">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" required data-testid="username">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required data-testid="password">
<p><button type="submit" data-testid="login-submit">Sign in</button></p>
</form>`,
  );
}

export function totpPage(csrf: string, error?: string): string {
  return layout(
    'Two-factor authentication',
    `${errorLine(error)}
<p>Enter the 6-digit code from your authenticator app.</p>
<form id="totp-form" method="post" action="/login/totp" data-testid="totp-form">
<input type="hidden" name="csrf_token" value="${e(csrf)}">
<label for="code">Authentication code</label>
<input id="code" name="code" type="text" inputmode="numeric" pattern="[0-9]{6}" maxlength="6"
 autocomplete="one-time-code" required data-testid="totp-code">
<p><button type="submit" data-testid="totp-submit">Verify</button></p>
</form>`,
  );
}

function searchForm(action: string, q: string): string {
  return `<form id="search-form" method="get" action="${action}" role="search" data-testid="search-form">
<label for="q">Search items</label>
<input id="q" name="q" type="search" value="${e(q)}" autocomplete="off" data-testid="search-input">
<button type="submit" data-testid="search-submit">Search</button>
</form>`;
}

export interface ListView {
  q: string;
  page: number;
  items: Item[];
  total: number;
  hasMore: boolean;
  changedMarkup: boolean;
}

export function itemsPage(user: User, v: ListView): string {
  const rowId = v.changedMarkup ? 'product-row' : 'item-row';
  const rows = v.items
    .map(
      (it) => `<li data-testid="${rowId}" data-item-id="${it.id}"><a href="/items/${it.id}">${e(it.name)}</a>
 <span class="price">${it.price.toFixed(2)} USD</span></li>`,
    )
    .join('\n');
  const link = (page: number) => `/items?${new URLSearchParams({ q: v.q, page: String(page) })}`;
  const pager = [
    v.page > 1 ? `<a rel="prev" href="${e(link(v.page - 1))}" data-testid="prev-page">Previous</a>` : '',
    v.hasMore ? `<a rel="next" href="${e(link(v.page + 1))}" data-testid="next-page">Next</a>` : '',
  ].join(' ');
  return layout(
    'Items',
    `${searchForm('/items', v.q)}
<p id="summary" data-testid="summary">${v.total} items, page ${v.page}</p>
<ul id="results">
${rows}
</ul>
<nav class="pager" aria-label="Pagination">${pager}</nav>`,
    { user },
  );
}

export function itemPage(user: User, it: Item, changedMarkup: boolean): string {
  // The "site changed" toggle renames the hooks an extractor would use, keeping what a human sees.
  const f = changedMarkup ? 'data-prop' : 'data-field';
  return layout(
    it.name,
    `<article id="${changedMarkup ? 'product' : 'item'}" data-item-id="${it.id}">
<dl>
<dt>ID</dt><dd ${f}="id">${it.id}</dd>
<dt>Name</dt><dd ${f}="name">${e(it.name)}</dd>
<dt>Category</dt><dd ${f}="category">${e(it.category)}</dd>
<dt>Price</dt><dd><span ${f}="price">${it.price.toFixed(2)}</span> USD</dd>
<dt>In stock</dt><dd ${f}="in_stock">${it.in_stock ? 'yes' : 'no'}</dd>
<dt>Added</dt><dd><time ${f}="created_at" datetime="${e(it.created_at)}">${e(it.created_at)}</time></dd>
<dt>Description</dt><dd ${f}="description">${e(it.description)}</dd>
</dl>
</article>
<p><a href="/items">Back to items</a></p>`,
    { user },
  );
}

export function newItemPage(user: User, csrf: string, error?: string, values: Record<string, string> = {}): string {
  const options = CATEGORIES.map((c) => `<option value="${c}"${values.category === c ? ' selected' : ''}>${c}</option>`).join('');
  return layout(
    'New item',
    `${errorLine(error)}
<form id="new-item-form" method="post" action="/items" data-testid="new-item-form">
<input type="hidden" name="csrf_token" value="${e(csrf)}">
<label for="name">Name</label>
<input id="name" name="name" type="text" maxlength="100" required autocomplete="off" value="${e(values.name ?? '')}" data-testid="item-name">
<label for="category">Category</label>
<select id="category" name="category" data-testid="item-category">${options}</select>
<label for="price">Price (USD)</label>
<input id="price" name="price" type="number" min="0" step="0.01" required value="${e(values.price ?? '')}" data-testid="item-price">
<label for="in_stock"><input id="in_stock" name="in_stock" type="checkbox" value="on" data-testid="item-in-stock"> In stock</label>
<label for="description">Description</label>
<textarea id="description" name="description" maxlength="500" data-testid="item-description">${e(values.description ?? '')}</textarea>
<p><button type="submit" data-testid="item-submit">Create item</button></p>
</form>`,
    { user },
  );
}

export function accountPage(user: User): string {
  return layout(
    'Account',
    `<dl id="account">
<dt>Username</dt><dd data-field="username">${e(user.username)}</dd>
<dt>Name</dt><dd data-field="display_name">${e(user.displayName)}</dd>
<dt>Email</dt><dd data-field="email">${e(user.email)}</dd>
<dt>Plan</dt><dd data-field="plan">${e(user.plan)}</dd>
<dt>Balance</dt><dd><span data-field="balance">${user.balance.toFixed(2)}</span> USD</dd>
<dt>Two-factor</dt><dd data-field="two_factor">${user.totpSeed ? 'enabled' : 'disabled'}</dd>
</dl>`,
    { user },
  );
}

/** What an anti-bot wall looks like: recognisable by status 403 and #challenge. */
export function challengePage(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Just a moment...</title><link rel="icon" href="data:,"></head>
<body>
<div id="challenge" data-testid="challenge">
<h1>Verify you are human</h1>
<p>This site needs to check that you are not a robot before you continue.</p>
<label><input type="checkbox" disabled> I am not a robot</label>
</div>
</body>
</html>
`;
}

export function messagePage(title: string, message: string, user: User | null = null): string {
  return layout(title, `<p data-testid="message">${e(message)}</p>`, { user });
}
