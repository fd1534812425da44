// What a write said. A form that creates or changes something is often answered by a redirect to a
// list (Django's change list, Adminer's table, a WordPress screen) that shows a short message at
// the top: "The book “X” was added successfully.", "Item 64 has been inserted." The list is not the
// outcome — it may not even hold the new record on its first page. The message is, with the link
// it usually carries to what was made. Found by the conventions sites use to mark such messages,
// for people and assistive technology alike: role=alert/status, aria-live, a class or id token
// naming a message (message, notice, flash, alert, success…), or a dismiss control of its own —
// or, whatever its markup, an element showing the words the landing page's own address carries
// (`/?message=Process%20web%20stopped`: the site put them there to be shown). Text the site's other
// recorded pages also show (a standing banner) is no outcome. Selected structurally, like every
// other rule.
import type * as cheerio from 'cheerio';
import { loadHtml } from './html-load.js';
import type { Extractor } from '../formats/definition/types.js';
import { DISMISS, visibleText } from '../runtime/worker/engines/extract.js';
import { clean } from './dom-text.js';
import { pathOf } from './html-dom.js';
import type { Schema } from './schema-infer.js';

const MARKED = '[role=alert], [role=status], [aria-live]';
/** Class or id tokens that name a status message in the usual frameworks and CMSs. */
const TOKEN =
  /^(messages?|messagelist|msg|status_?(msg|message)|notices?|notification|alert|alert-(success|info)|flash|flash[-_](notice|success|info)|success|updated|toast)$/i;

/**
 * A framework's compound token naming a message (`pure-alert-success`, `header-alert-message`,
 * `flash_notice`, `shaarli-success-alert`), not a part of one (`alert-close`, `notification-bell`).
 */
function compoundToken(t: string): boolean {
  const words = t.toLowerCase().split(/[-_]+/);
  return (
    words.length > 1 &&
    words.some((w) => /^(alert|flash|notice|notification|toast)$/.test(w)) &&
    !words.some((w) =>
      /^(icon|close|closable|dismiss|dismissible|btn|button|badge|count|bell|dropdown|menu|toggle|trigger|settings)$/.test(w),
    )
  );
}

export interface OutcomeRule {
  extract: Record<string, Extractor>;
  result: Record<string, string>;
  schema: Schema;
  /** The recorded message (for the report). */
  text: string;
}

/**
 * Words a page's address carries to be shown (`?message=Process%20web%20stopped`, `?msg=Saved.`):
 * query values of two words or more, letters among them. Ids, tokens and single words are not.
 */
export function addressedTexts(url: string | undefined): string[] {
  if (!url) return [];
  try {
    return [...new URL(url).searchParams.values()].map(clean).filter((v) => v.length <= 300 && /\p{L}{2}.*\s\S/u.test(v));
  } catch {
    return [];
  }
}

/**
 * The status message a write's landing page shows, as a rule; null when it shows none. `landedAt`:
 * the landing page's address, whose message words mark the element showing them.
 */
export function outcomeMessage(html: string, otherPages: string[] = [], landedAt?: string): OutcomeRule | null {
  const $ = loadHtml(html);
  const elsewhere = otherPages.map((p) => clean(loadHtml(p)('body').text()));
  const echoed = addressedTexts(landedAt);
  // (The cheap whole text first: the visible text is read only where those words are.)
  const echoes = (e: cheerio.Cheerio<any>) => {
    const all = clean(e.text());
    return echoed.some((t) => all.includes(t)) && echoed.includes(clean(visibleText(e)));
  };
  // (A box with its own dismiss control is a message too, whatever its class: HAProxy's `[X]`.)
  const marked = (e: cheerio.Cheerio<any>) =>
    e.is(MARKED) ||
    [...(e.attr('class') ?? '').split(/\s+/), e.attr('id') ?? ''].some((t) => TOKEN.test(t) || compoundToken(t)) ||
    e.children(DISMISS).length > 0 ||
    (echoed.length > 0 && echoes(e));
  const found = $('body *')
    .toArray()
    .map((el) => $(el))
    .find((e) => {
      if (!marked(e) || e.closest('nav, script, template, [hidden], [aria-hidden=true]').length) return false;
      // (The outermost marked element: Django's <ul class="messagelist"> rather than its <li class="success">.)
      if (
        e
          .parents()
          .toArray()
          .some((p) => marked($(p)))
      )
        return false;
      const text = clean(visibleText(e));
      return text.length >= 3 && text.length <= 300 && !elsewhere.some((t) => t.includes(text));
    });
  if (!found) return null;
  const selector = pathOf($, found);
  if ($(selector).first().get(0) !== found.get(0)) return null;
  // (Not its dismiss control: that link leads back to the page without the message.)
  const link = found.find('a[href]').first().not(DISMISS);
  const extract: Record<string, Extractor> = {
    message: { from: 'css', selector, required: false, note: "the site's message about the write" },
  };
  const result: Record<string, string> = { message: '{{vars.message}}' };
  const properties: Record<string, Schema> = { message: { type: ['string', 'null'] } as Schema };
  if (link.length && !/^(#|javascript:)/i.test(link.attr('href') ?? '')) {
    extract.message_url = {
      from: 'css',
      selector: `${selector} a[href]`,
      attr: 'href',
      required: false,
      note: 'the link the message carries (what was made)',
    };
    result.message_url = '{{vars.message_url}}';
    properties.message_url = { type: ['string', 'null'] } as Schema;
  }
  return { extract, result, schema: { type: 'object', properties, required: Object.keys(properties) }, text: clean(visibleText(found)) };
}
