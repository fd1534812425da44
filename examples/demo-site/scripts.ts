// Client-side JavaScript served inline with the pages. Kept as plain ES2020 strings (no build
// step) so the exact code a recorder sees is readable here.

/** Renders one search hit; shared by /search and /signed so both produce the same DOM. */
export const ROW_JS = `function row(it) {
  const li = document.createElement('li');
  li.setAttribute('data-testid', 'result-row');
  li.dataset.itemId = String(it.id);
  const a = document.createElement('a');
  a.href = '/items/' + it.id;
  a.textContent = it.name;
  const price = document.createElement('span');
  price.className = 'price';
  price.textContent = ' ' + it.price.toFixed(2) + ' USD';
  li.append(a, price);
  return li;
}`;

/**
 * Shared driver: on submit, clear the list and call fetchPage(q, page); "Load more" asks for the
 * next page. #status gets data-state="done" | "error" so a browser step can wait on it.
 */
export const SEARCH_UI_JS = `${ROW_JS}
function searchUi(fetchPage) {
  const form = document.getElementById('search-form');
  const input = document.getElementById('q');
  const list = document.getElementById('results');
  const status = document.getElementById('status');
  const more = document.getElementById('more');
  let q = '';
  let page = 1;
  async function load() {
    status.dataset.state = 'loading';
    status.textContent = 'Loading...';
    try {
      const res = await fetchPage(q, page);
      if (!res.ok) throw new Error('HTTP ' + res.status);
      const data = await res.json();
      for (const it of data.items) list.append(row(it));
      status.textContent = data.total + ' results';
      status.dataset.state = 'done';
      more.hidden = !data.has_more;
    } catch (err) {
      status.textContent = 'Search failed: ' + err.message;
      status.dataset.state = 'error';
      more.hidden = true;
    }
  }
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    q = input.value;
    page = 1;
    list.replaceChildren();
    load();
  });
  more.addEventListener('click', () => {
    page += 1;
    load();
  });
}`;

/** /search: pages of 5 from the plain JSON API, so "gamma" (8 hits) needs "Load more". */
export const searchPageScript = `${SEARCH_UI_JS}
searchUi((q, page) => fetch('/api/search?' + new URLSearchParams({ q, page: String(page), limit: '5' }), {
  headers: { accept: 'application/json' },
}));`;
