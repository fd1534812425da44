// Detail pages: the main content block (the descent to where most text is), its label/value pairs
// and "Label: value" lines, and the page's heading, as one record.
import type * as cheerio from 'cheerio';
import type { CssField } from '../formats/definition/types.js';
import type { Schema } from './schema-infer.js';
import { contentLength, inTemplate, type SiteTemplate, templateText } from './page-template.js';
import { clean, cssq, tagOf } from './dom-text.js';
import {
  type El,
  fieldName,
  foldedAway,
  inChrome,
  namedMenu,
  nullable,
  ownText,
  pathOf,
  relPath,
  shortRel,
  SKIP,
  stableId,
  type StructuralCandidate,
  textWithoutChrome,
  typed,
} from './html-dom.js';
import { isPairTable, pairFields } from './html-tables.js';
import { readableText, visibleText } from '../runtime/worker/engines/extract.js';

const labelLine = (text: string) => /^([A-Za-z][\w .()/-]{0,38}?)\s*:\s+(\S.{0,300})$/.exec(text);

/** A "Label: value" paragraph that reads as prose ("Day 1 in the orchard: grafting along row 1.",
 * "Note: this needs a ladder."): a long label or a sentence for a value, among paragraphs that are
 * mostly not such lines. Its colon names no field. */
function inProse($: cheerio.CheerioAPI, el: El, m: RegExpExecArray): boolean {
  if (tagOf(el) !== 'p') return false;
  const sentence = m[1].trim().split(/\s+/).length >= 4 || (/[.!?]$/.test(m[2]) && m[2].trim().split(/\s+/).length >= 3);
  if (!sentence) return false;
  const ps = el.parent().children('p').toArray();
  return ps.length > 1 && ps.filter((p) => labelLine(clean($(p).text()))).length * 2 <= ps.length;
}

/**
 * A "Label: value" line that is a message's words, not a field: a "label" of four words or more
 * ("Change 128 of atlas: tests work on…"), or one lower-case word alone of its kind among its
 * siblings — a commit subject in the conventional form ("tests: add empty layers", "docs: fix
 * typo"), where a record's attributes come as several lines of one shape ("Status: open").
 */
function messageLine($: cheerio.CheerioAPI, el: El, m: RegExpExecArray): boolean {
  const label = m[1].trim();
  if (label.split(/\s+/).length >= 4) return true;
  if (!/^[a-z]+$/.test(label)) return false;
  return !el
    .siblings()
    .toArray()
    .some((x) => {
      const other = labelLine(clean($(x).text()));
      return !!other && other[1].trim().split(/\s+/).length < 4;
    });
}

/**
 * The page's links to itself in other formats ("Also available in: Atom | PDF" → `/issues/7.atom`,
 * `/issues/7.pdf`; "Download in other formats: CSV, RSS" → `?format=csv`): two links or more to
 * one address, each in another format. Page furniture, not a value of the record.
 */
function otherFormats(el: El): boolean {
  const hrefs = el
    .find('a[href]')
    .toArray()
    .map((a) => a.attribs.href ?? '');
  if (hrefs.length < 2) return false;
  // (Each link as its address without the format, and the format: an extension or `format=`.)
  const links = hrefs.map((h) => {
    const m = /^([^?#]*?)(?:\.([A-Za-z0-9]{2,5}))?(?:\?([^#]*))?(?:#.*)?$/.exec(h);
    return { stem: m?.[1], format: (m?.[2] ?? new URLSearchParams(m?.[3] ?? '').get('format'))?.toLowerCase() };
  });
  return (
    links.every((l) => l.format) &&
    new Set(links.map((l) => l.stem)).size === 1 &&
    new Set(links.map((l) => l.format)).size === links.length
  );
}

/** Text that is labels only ("Due date:", "Subject: Owner: Due:"): an empty value's neighbours, no value. */
const ONLY_LABELS = /^([^:]{1,40}:\s*)+$/;

/** <dl> pairs, "Label: value" lines and the heading of the main content block. */
export function detailBlock($: cheerio.CheerioAPI, site: SiteTemplate): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  const template = site.elements;
  const main = mainBlock($, template);
  if (!main) return out;
  const root = pathOf($, main);
  const fields: Record<string, CssField> = {};
  const props: Record<string, Schema> = {};
  const taken = new Set<string>();
  // (The site's name in an <h1> of its header is the template's heading, not this page's.)
  const ownHeading = (e: El) => !inChrome(e) && !inTemplate(template, e);
  const h1 = main
    .find('h1')
    .filter((_, e) => ownHeading($(e)))
    .first();
  // (h3: an issue tracker's subject under the block's own "Bug #31" line.)
  const heading = h1.length
    ? h1
    : main
        .find('h2, h3')
        .filter((_, e) => ownHeading($(e)))
        .first();
  if (heading.length && clean(heading.text())) {
    fields.title = { selector: shortRel(main, heading, [tagOf(heading)]), required: false };
    props.title = nullable({ type: 'string' });
    taken.add('title');
  }
  main.find('dl').each((_, d) => {
    const dl = $(d);
    if (inChrome(dl)) return;
    // <dt>/<dd> pairs, also wrapped in a <div> each (allowed by HTML).
    const dts = dl.find('dt').filter((_, e) => $(e).closest('dl').is(dl));
    // A <dl> of records (search hits: a linked title and several <dd> each) is a list, not labels.
    const linked = dts.filter((_, e) => $(e).find('a[href]').length > 0).length;
    const multi = dts.filter((_, e) => $(e).nextUntil('dt', 'dd').length > 1).length;
    if (dts.length >= 2 && (linked * 2 >= dts.length || multi * 2 >= dts.length)) return;
    const labels = dts.toArray().map((e) => clean($(e).text()));
    dts.each((i, dt) => {
      const dd = $(dt).next('dd');
      const label = labels[i];
      if (!dd.length || !label || labels.filter((l) => l === label).length > 1 || /"/.test(label) || dd.find('dl, table').length) return;
      const value = clean(dd.text());
      if (!value) return;
      const name = fieldName(label, taken, `field_${i + 1}`);
      const ty = typed(value);
      fields[name] = {
        selector: shortRel(main, $(dt).next('dd'), [
          `dt:contains(${cssq(label)}) + dd`,
          `${relPath(main, dl)} dt:contains(${cssq(label)}) + dd`,
        ]),
        ...(ty.type ? { type: ty.type } : {}),
        required: false,
      };
      props[name] = nullable(ty.schema);
    });
  });
  const pairTables = new Set<unknown>();
  main.find('table').each((_, t) => {
    const table = $(t);
    // (A table of labelled controls is a form's layout — cgit's diff options — not a record.)
    if (inChrome(table) || !isPairTable($, table) || table.find('select, textarea, input:not([type=hidden])').length) return;
    pairTables.add(t);
    const kv = pairFields($, table, main, taken);
    Object.assign(fields, kv.fields);
    Object.assign(props, kv.props);
  });
  // A label element ("Status:") followed by its value element: attribute grids of admin apps
  // (<div><div>Status:</div><div>New</div></div>, <span>Owner:</span> <a>ann</a>).
  const paired = new Set<any>();
  // A label that occurs more than once ("Last modified:" in every search hit) is a list's
  // template, not a field of one record.
  const labelCount = new Map<string, number>();
  main.find('*').each((_, e) => {
    const own = clean(
      $(e)
        .contents()
        .toArray()
        .filter((n: any) => n.type === 'text')
        .map((n: any) => n.data ?? '')
        .join(' '),
    );
    // (Own text, or a leaf's: a wrapper's text starts with its first label too, and would count
    // every first label of an attribute grid twice.)
    const m = /^([^:]{1,40}):/.exec(own || ($(e).children().length ? '' : clean($(e).text())));
    if (m) labelCount.set(m[1].trim().toLowerCase(), (labelCount.get(m[1].trim().toLowerCase()) ?? 0) + 1);
  });
  const once = (label: string) => (labelCount.get(label.replace(/:$/, '').trim().toLowerCase()) ?? 0) <= 2;
  // (Labels of an editor inside the block — an inline-edit or merge form, its captions beside
  // controls — and of a footer named so are not the record's.)
  const block = main.get(0);
  const aside = (el: El) =>
    namedMenu(el) ||
    el
      .parents('form')
      .toArray()
      .some((f) => $.contains(block, f));
  main.find('div, span, strong, b, label, th, td').each((_, e) => {
    const el = $(e);
    const label = clean(el.text());
    const val = el.next();
    if (
      inChrome(el) ||
      aside(el) ||
      pairTables.has(el.closest('table').get(0)) || // (its rows are fields already)
      !/^[^:]{1,40}:$/.test(label) ||
      !once(label) ||
      /"/.test(label) ||
      !val.length ||
      el.find('input, select, textarea').length ||
      val.find('input, select, textarea, table, dl').length
    )
      return;
    // (Text right after the label is its value, not the element after that text: "Subject: " then
    // the subject, then an "Open in new window" link.)
    const after = e.nextSibling as { type?: string; data?: string } | null;
    if (after?.type === 'text' && clean(after.data ?? '')) return;
    const value = clean(val.text());
    // (An empty value's label is followed by the next label, "Start date:" then "Due date:", or by
    // an empty form's captions only, "Subject: Owner: Due:".)
    if (!value || value.length > 300 || ONLY_LABELS.test(value)) return;
    const name = fieldName(label, taken, 'value');
    const ty = typed(value);
    const tag = tagOf(el);
    fields[name] = {
      selector: shortRel(main, val, [`${tag}:contains(${cssq(label)}) + ${tagOf(val)}`]),
      ...(ty.type ? { type: ty.type } : {}),
      required: false,
    };
    props[name] = nullable(ty.schema);
    paired.add(e);
  });
  // "Label: value" in one element (a paragraph or list item with little markup).
  main.find('p, li, div, span').each((_, e) => {
    const el = $(e);
    if (
      inChrome(el) ||
      aside(el) ||
      el.find('input:not([type=hidden]), select, textarea').length > 0 || // a form's captions and controls
      el.children('p, div, ul, ol, table, dl, li').length ||
      el
        .find('*')
        .toArray()
        .some((c) => paired.has(c)) ||
      paired.has(e)
    )
      return;
    const m = labelLine(clean(el.text()));
    if (!m || /https?$/i.test(m[1]) || !once(m[1]) || ONLY_LABELS.test(m[2]) || inProse($, el, m) || otherFormats(el)) return;
    // (Not a link's words — a commit's linked subject "tests: add empty layers" — nor the first of
    // several lines: a message whose subject has a colon; nor a message's line.)
    const links = el.find('a[href]');
    if ((links.length === 1 && clean(visibleText(links)) === clean(visibleText(el))) || readableText(el).includes('\n')) return;
    if (messageLine($, el, m)) return;
    const name = fieldName(m[1], taken, 'value');
    const ty = typed(m[2]);
    const esc = m[1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    fields[name] = {
      selector: /"/.test(m[1]) ? relPath(main, el) : shortRel(main, el, [`${tagOf(el)}:contains(${cssq(`${m[1]}:`)})`]),
      pattern: `^\\s*${esc}\\s*:\\s*(.*)$`,
      ...(ty.type ? { type: ty.type } : {}),
      required: false,
    };
    props[name] = nullable(ty.schema);
  });
  const pairs = Object.keys(fields).filter((k) => k !== 'title').length;
  // A heading between the title and the fields names the record ("Bug #31", then its subject).
  const ownFields = Object.entries(fields).flatMap(([k, f]) => (k === 'title' ? [] : [f]));
  const sub = pairs && heading.length ? subHeading($, main, heading, ownFields, ownHeading) : null;
  if (sub && !fields.subtitle) {
    fields.subtitle = { selector: shortRel(main, sub, [tagOf(sub)]), required: false };
    props.subtitle = nullable({ type: 'string' });
  }
  // The record's own text beside its fields (a message's body under its headers, an issue's
  // description under its attributes).
  const prose = pairs ? proseBody($, main, Object.values(fields), heading, site) : null;
  if (prose && !fields.content) {
    fields.content = { selector: shortRel(main, prose, stableIdOf($, prose)), required: false };
    props.content = nullable({ type: 'string' });
    // (A line of its own just before that text, read by nothing else, is its summary: a commit's
    // subject over its message when no heading holds it.)
    const lead = leadLine(prose, heading);
    if (lead && !fields.summary && !fields.title) {
      fields.summary = { selector: shortRel(main, lead, []), required: false };
      props.summary = nullable({ type: 'string' });
    }
  }
  const rec = (!h1.length && pageHeading($, main, ownHeading, fields, props)) || { root, fields, props };
  if (pairs)
    out.push({
      kind: 'detail',
      extractor: { from: 'css', selector: rec.root, fields: rec.fields },
      schema: { type: 'object', properties: rec.props, required: Object.keys(rec.props) },
      why: `detail block ${root}: ${pairs} label/value pair(s)${fields.title ? ' and its heading' : ''}`,
      labelled: true,
      text: clean(main.text()),
      records: 1,
      fieldCount: Object.keys(rec.fields).length,
      main: true,
    });
  // The main content block as a whole: its heading and its text (an article, a wiki page). A page
  // title right beside the block (gitit's <h1> over its #wikipage) is its title, not the block's
  // first section heading.
  const beside = h1.length ? null : besideHeading($, main, ownHeading, heading.length > 0);
  const body = contentOf($, main, beside ? $() : heading, site);
  const toc = contentsTable($, body ?? main);
  const content: CssField = {
    ...(body && !body.is(main) ? { selector: shortRel(main, body, stableIdOf($, body)) } : {}),
    ...(toc ? { except: toc } : {}),
  };
  const tfields: Record<string, CssField> = beside
    ? {
        title: { selector: shortRel(beside.holder, beside.h1, ['h1']), required: false },
        content: {
          ...content,
          selector: `${shortRel(beside.holder, main, stableIdOf($, main))}${content.selector ? ` ${content.selector}` : ''}`,
        },
      }
    : { ...(fields.title ? { title: fields.title } : {}), content };
  const whole = beside ? pathOf($, beside.holder) : root;
  out.push({
    kind: 'detail',
    extractor: { from: 'css', selector: whole, fields: tfields },
    schema: {
      type: 'object',
      properties: { ...(tfields.title ? { title: nullable({ type: 'string' }) } : {}), content: { type: 'string' } },
      required: [...(tfields.title ? ['title'] : []), 'content'],
    },
    why: `main content block ${whole} (heading and text)`,
    text: clean(main.text()),
    records: 1,
    fieldCount: Object.keys(tfields).length,
    main: true,
    block: main,
  });
  return out;
}

/**
 * The page's own <h1> when it stands outside the content block (a page header over a content
 * column: "#3: Order pear saplings" above the ticket's fields): the record is then read from the
 * nearest element holding both, the block's fields under their path to the block, the heading as
 * `title` (else `heading`, beside a block's own section heading). Null when the page has no single
 * own one outside the block (asked only when the block has no <h1> of its own).
 */
function pageHeading(
  $: cheerio.CheerioAPI,
  main: El,
  own: (e: El) => boolean,
  fields: Record<string, CssField>,
  props: Record<string, Schema>,
): { root: string; fields: Record<string, CssField>; props: Record<string, Schema> } | null {
  const outer = outerH1($, main, own);
  if (outer.length !== 1) return null;
  const holder = main
    .parents()
    .filter((_, p) => $.contains(p, outer.get(0)!))
    .first();
  if (!holder.length) return null;
  const inner = relPath(holder, main);
  const name = fields.title ? 'heading' : 'title';
  const wide: Record<string, CssField> = { [name]: { selector: shortRel(holder, outer, ['h1']), required: false } };
  for (const [k, f] of Object.entries(fields)) wide[k] = { ...f, selector: f.selector ? `${inner} ${f.selector}` : inner };
  return { root: pathOf($, holder), fields: wide, props: { [name]: nullable({ type: 'string' }), ...props } };
}

/**
 * The page's one own <h1> right beside a block that has none (a sibling of the block or of its
 * parent, under the nearest element holding both): the block's title. Null otherwise — a site's
 * name further up is no page's title. A block without any heading of its own, on a page without
 * an <h1>, is titled by the one element outside it that shows the document's own title (ikiwiki's
 * `<span class="title">` in its page header, the same words as `<title>`).
 */
function besideHeading($: cheerio.CheerioAPI, main: El, own: (e: El) => boolean, headed: boolean): { h1: El; holder: El } | null {
  const outer = outerH1($, main, own);
  if (outer.length > 1 || (!outer.length && headed)) return null;
  if (!outer.length) return titleBeside($, main, own);
  const holder = main.parent().has(outer).length ? main.parent() : main.parent().parent();
  return holder.length && outer.parent().is(holder) && $.contains(holder.get(0)!, main.get(0)!) ? { h1: outer, holder } : null;
}

/**
 * The one element outside `main` (not a link, control or chrome) whose whole text is the
 * document's <title>, or its first part before a site name ("Connect to the VPN - Handbook"), and
 * the nearest element holding it and the block. Null when none or several show it.
 */
function titleBeside($: cheerio.CheerioAPI, main: El, own: (e: El) => boolean): { h1: El; holder: El } | null {
  const doc = clean($('head > title').first().text());
  if (!doc) return null;
  const names = new Set([doc, doc.split(/\s+[-|–—·:]\s+/)[0]]);
  const shows = $('body *').filter((_, e) => {
    const el = $(e);
    if (el.is(main) || $.contains(main.get(0)!, e) || $.contains(e, main.get(0)!) || !own(el)) return false;
    if (/^(a|button|option|select|label|textarea|script|style)$/.test(tagOf(el)) || el.closest('a, button, form').length) return false;
    const t = clean(visibleText(el));
    return (
      names.has(t) &&
      !el
        .children()
        .toArray()
        .some((c) => clean(visibleText($(c))) === t)
    );
  });
  if (shows.length !== 1) return null;
  const holder = main
    .parents()
    .filter((_, p) => $.contains(p, shows.get(0)!))
    .first();
  return holder.length && !holder.is('body, html') ? { h1: shows, holder } : null;
}

/** The page's own <h1>s with words outside `main`. */
const outerH1 = ($: cheerio.CheerioAPI, main: El, own: (e: El) => boolean) =>
  $('h1').filter((_, e) => own($(e)) && !$.contains(main.get(0)!, e) && !!clean($(e).text()));

/** The first heading after the title that comes before every field of the record: its subject. */
function subHeading($: cheerio.CheerioAPI, main: El, title: El, fields: CssField[], own: (e: El) => boolean): El | null {
  const els = fields.flatMap((f) => (f.selector ? main.find(f.selector).toArray() : []));
  const all = main.find('*').toArray();
  const at = (e: any) => all.indexOf(e);
  const first = Math.min(...els.map(at).filter((i) => i >= 0));
  const t = at(title.get(0));
  const h = main
    .find('h2, h3, h4')
    .filter((_, e) => own($(e)) && at(e) > t && at(e) < first && !!clean($(e).text()) && clean($(e).text()).length <= 200)
    .first();
  return h.length ? h : null;
}

/**
 * The prose of a record's block that none of its fields reads: the nearest element holding every
 * sentence-like text (six words or more of its own, not "Label: value", not hidden) outside the
 * fields' elements and the heading, widened to the outermost wrapper with a stable id that adds no
 * text. Null when there is none, or when it would hold a field (it would repeat the fields).
 */
function proseBody($: cheerio.CheerioAPI, main: El, fields: CssField[], heading: El, site: SiteTemplate): El | null {
  const taken = [...fields.flatMap((f) => (f.selector ? main.find(f.selector).toArray() : [])), ...heading.toArray()];
  const near = (e: any) => taken.some((t) => t === e || $.contains(t, e) || $.contains(e, t));
  const leaves = main
    .find('*')
    .toArray()
    .filter((d) => {
      const e = $(d);
      const own = ownText(e);
      const line = labelLine(own);
      return (
        own.length >= 30 &&
        own.split(/\s+/).length >= 6 &&
        // (A message of several lines is prose though its first has a colon: "tests: add …"; so
        // is a message's line.)
        !(line && !readableText(e).includes('\n') && !messageLine($, e, line)) &&
        // (Nor text the site's other pages print too: a project's description in every footer.)
        !site.texts.has(templateText(e.text())) &&
        !e.is(SKIP) &&
        !e.closest(`${SKIP}, form`).length &&
        !foldedAway($, e) &&
        !near(d)
      );
    });
  if (!leaves.length) return null;
  const lift = (e: El) => {
    let up = e;
    while (!up.is(main) && /^(p|span|a|b|i|em|strong|code|li|td|dd)$/.test(tagOf(up))) up = up.parent();
    return up;
  };
  let lca = $(leaves[0]);
  for (const d of leaves.slice(1)) while (lca.length && !lca.is(main) && !$(d).closest(lca).length) lca = lca.parent();
  lca = lift(lca);
  // (Sentences spread over the whole block — a commit's message, then its diff's summary — have
  // the block for their common part: the first of them is the record's when it comes right after
  // the fields, at most one element between them.)
  if (lca.is(main)) {
    const first = lift($(leaves[0]));
    const after = first
      .prevAll()
      .slice(0, 2)
      .toArray()
      .some((b) => taken.some((t) => t === b || $.contains(b, t)));
    if (after) lca = first;
  }
  if (lca.is(main) || !lca.closest(main).length || near(lca.get(0))) return null;
  // (A wrapper with an id that holds the same text reads the same on a page with more parts.)
  const text = clean(visibleText(lca));
  for (let up = lca.parent(); !up.is(main) && up.length && clean(visibleText(up)) === text; up = up.parent())
    if (stableIdOf($, up).length) lca = up;
  return lca;
}

/**
 * The element just before the record's prose when it is a line of plain text of its own — no
 * child elements, two words or more, no label's colon at its end, not the page's heading (cgit's
 * `<div class='commit-subject'>` before `<div class='commit-msg'>`). Null otherwise.
 */
function leadLine(prose: El, heading: El): El | null {
  const lead = prose.prev();
  if (!lead.length || !/^(div|p)$/.test(tagOf(lead)) || lead.children().length || lead.is(heading)) return null;
  const text = clean(lead.text());
  return text.split(/\s+/).length >= 2 && text.length <= 200 && !/:$/.test(text) ? lead : null;
}

/**
 * A table of contents inside `body` — an element whose words are all those of two or more links
 * within the page (`#owners`, `#runbook`) but for a caption ("Contents") — as a selector for the
 * text read to leave out (`except`): it repeats the headings below it. The outermost one.
 */
function contentsTable($: cheerio.CheerioAPI, body: El): string | null {
  const found = body
    .find('ul, ol, div, nav, table')
    .toArray()
    .map((e) => $(e))
    .find((e) => {
      const links = e.find('a[href]');
      if (links.length < 2 || links.toArray().some((a) => !/^#./.test($(a).attr('href') ?? ''))) return false;
      const linked = clean(links.text()).length;
      return linked > 0 && clean(e.text()).length - linked <= 20;
    });
  return found ? shortRel(body, found, stableIdOf($, found)) : null;
}

/** `#id` when `e` has a stable id that is unique on the page (a selector that survives layout changes). */
function stableIdOf($: cheerio.CheerioAPI, e: El): string[] {
  const id = e.attr('id');
  return id && stableId(id) && $(`#${id}`).length === 1 ? [`#${id}`] : [];
}

/**
 * The part of the main block that holds the page's own content: the nearest common ancestor of
 * the text that the site's template does not print on its other recorded pages ("From <site>",
 * skip links, a print footer are template), widened from a lone paragraph to its block. Null when
 * there is nothing to compare with or no such text.
 */
function contentOf($: cheerio.CheerioAPI, main: El, heading: El, site: SiteTemplate): El | null {
  if (!site.pages) return null;
  const template = site.texts;
  const data: El[] = [];
  main.find('*').each((_, d) => {
    const e = $(d);
    if (e.is(SKIP) || e.closest(SKIP).length || (heading.length && (e.is(heading) || e.closest(heading).length))) return;
    const own = ownText(e);
    if (!own) return;
    // The element's whole text, or the text of the nearest block that holds it, is the template's.
    const block = e.closest('p, div, li, td, dd, section, span, a');
    if (template.has(templateText(e.text())) || (block.length && template.has(templateText(block.text())))) return;
    data.push(e);
  });
  if (!data.length) return null;
  let lca = data[0];
  for (const e of data.slice(1)) while (lca.length && !lca.is(main) && !e.closest(lca).length) lca = lca.parent();
  while (!lca.is(main) && /^(p|span|a|b|i|em|strong|code|li|td|dd|h\d)$/.test(tagOf(lca))) lca = lca.parent();
  return lca.closest(main).length ? lca : null;
}

/**
 * The page's main block: <main> (or its one <article>), one <article>, else the element that holds
 * most of the page's text. With the site's other recorded pages, text they also print at the same
 * place (header, menus, footer: `template`) does not count, so a wiki page whose menus outweigh its
 * few lines still finds them.
 */
export function mainBlock($: cheerio.CheerioAPI, template: Set<unknown> = new Set()): El | null {
  const marked = $('main, [role=main]').first();
  if (marked.length) {
    const art = marked.find('article');
    return art.length === 1 ? art : marked;
  }
  const art = $('article');
  if (art.length === 1) return art;
  const body = $('body');
  // (A page recorded twice is all "template": then every text counts.)
  const own = template.size > 0 && contentLength($, body, SKIP, template) >= 20;
  const size = (e: El) => (own ? contentLength($, e, SKIP, template) : textWithoutChrome($, e));
  const total = size(body);
  if (!total) return null;
  let cur = body;
  // Descend while one child still holds most of the text.
  for (;;) {
    const kids = cur
      .children()
      .toArray()
      .map((c) => $(c))
      .filter((c) => !c.is(SKIP) && !namedMenu(c)); // (a menu of plain <ul>s is never the content)
    const best = kids.map((k) => ({ k, n: size(k) })).sort((a, b) => b.n - a.n)[0];
    if (!best || best.n < total * 0.6 || /^(p|span|a|li|td|h\d)$/.test(tagOf(best.k))) break;
    cur = best.k;
  }
  return cur;
}
