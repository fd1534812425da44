// What a site says when it does not take a form: the page it answers with instead of its redirect
// shows the form again with its errors (Django's errorlist, Rails' error explanation, Bootstrap's
// alert and help blocks, Yesod's message and error block). The run's error carries those words.
import { HIDDEN_TEXT, type View, visibleText } from './extract.js';

/** Elements that hold a form's errors or the page's notice, in the ways sites mark them. */
const SAYS = [
  '[role=alert]',
  '[class*=error]',
  '[id*=error]',
  '[class*=invalid]',
  '.alert',
  '.notice',
  '.flash',
  '.message',
  '#message',
  '.warning',
].join(', ');

/** Up to three of the page's error or notice texts, or '' (a JSON answer: its `error`/`message`). */
export function refusalMessage(view: View): string {
  const json = view.parsedJson();
  if (json.ok) {
    const o = json.value as Record<string, unknown> | null;
    const said = o && typeof o === 'object' ? [o.error, o.message, o.detail].find((v) => typeof v === 'string') : undefined;
    return typeof said === 'string' ? said.slice(0, 300) : '';
  }
  if (!/<html|<body|<form|<div/i.test(view.src.text.slice(0, 5000))) return '';
  const $ = view.$();
  const texts: string[] = [];
  $(SAYS)
    .not($(HIDDEN_TEXT).find('*'))
    .not(HIDDEN_TEXT)
    .each((_, el) => {
      const node = $(el);
      // (A wrapper around the field itself — Bootstrap's `has-error` form group — is not the words.)
      if (node.is('input, select, textarea, form, body, html') || node.find('input, select, textarea, form').length) return;
      const text = visibleText(node).replace(/\s+/g, ' ').trim();
      if (text && text.length <= 300 && !texts.some((t) => t.includes(text))) texts.push(text);
    });
  return texts.slice(0, 3).join(' — ');
}
