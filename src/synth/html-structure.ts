// Stage 6c: extraction from ordinary HTML, without markup conventions. Candidates are found BY
// STRUCTURE — tables (header cells → keys), repeated sibling records (same tag and child shape:
// lists, cards, search hits), label/value detail blocks (<dl>, two-column and <th>-row tables,
// "Label: value" lines, the page's heading) — and ranked by the signals we have: the hinted
// result values (ground truth), the values the person typed (search hits echo the query), size.
// Selectors are structural (tag + position under a stable id, or under <body>) and label-text
// based; class names are never used to select (they are hashed or utility classes on many sites).
// This file holds repeated records and paging, and gathers every candidate; tables and detail
// blocks are in html-tables.ts and html-detail.ts, shared helpers in html-dom.ts.
import type * as cheerio from 'cheerio';
import { loadHtml } from './html-load.js';
import type { CssField } from '../formats/definition/types.js';
import type { Schema } from './schema-infer.js';
import { argName } from './values.js';
import { visibleText } from '../runtime/worker/engines/extract.js';
import { inTemplate, siteTemplate } from './page-template.js';
import { clean, cssq, tagOf, unslug } from './dom-text.js';
import {
  type El,
  hidden,
  inChrome,
  classWords,
  inMain,
  namedMenu,
  nullable,
  ownText,
  pathOf,
  relPath,
  type StructuralCandidate,
  typed,
} from './html-dom.js';
import { tables } from './html-tables.js';
import { tableRecords } from './html-table-records.js';
import { detailBlock } from './html-detail.js';

// ------------------------------------------------------------------------ repeated records

/** Tag + the tags of its element children: siblings of one record type share it. */
const signature = ($: cheerio.CheerioAPI, e: El) =>
  `${tagOf(e)}(${e
    .children()
    .toArray()
    .map((c) => tagOf($(c)))
    .join(',')})`;

interface Leaf {
  path: string;
  attr?: string;
  kind: 'text' | 'link' | 'time' | 'img';
  hint: string;
}

/** Value-bearing descendants of one record: elements with their own text, links, times, images. */
function leavesOf($: cheerio.CheerioAPI, rec: El): Leaf[] {
  const out: Leaf[] = [];
  const visit = (e: El) => {
    const tag = tagOf(e);
    if (/^(script|style|svg|button|input|select|textarea)$/.test(tag) || hidden($, e)) return;
    if (!e.is(rec)) {
      const path = relPath(rec, e);
      const ownHint = e.attr('itemprop') ?? e.attr('data-field') ?? classWords(e.attr('class'))[0] ?? '';
      // (A link is named by what wraps it alone or what it alone holds: `<span class="author"><a>`,
      // `<a><span class="subject">` — gitit's history.)
      const wrapped = tag === 'a' ? linkHint(rec, e) : '';
      const nameHint = ownHint || wrapped;
      if (tag === 'a' && e.attr('href')) out.push({ path, attr: 'href', kind: 'link', hint: nameHint });
      if (tag === 'time' && e.attr('datetime')) out.push({ path, attr: 'datetime', kind: 'time', hint: 'date' });
      if (tag === 'img' && e.attr('src')) out.push({ path, attr: 'src', kind: 'img', hint: 'image' });
      const own = ownText(e);
      const kids = e.children().length;
      if (own || (kids === 0 && clean(e.text())))
        out.push({ path, kind: 'text', hint: tag === 'a' ? wrapped || 'title' : /^h[1-6]$/.test(tag) ? 'title' : nameHint });
      if (tag === 'a' && own) return; // the link's text is its value; don't split it further
    }
    e.children().each((_, c) => visit($(c)));
  };
  visit(rec);
  return out;
}

/**
 * The class word of the element that wraps link `a` alone (inside the record), else of the one
 * element it alone holds — for a link with words (an icon's classes name no value).
 */
function linkHint(rec: El, a: El): string {
  if (!/[\p{L}\p{N}]/u.test(a.text())) return '';
  const p = a.parent();
  // (A heading's link is its title, whatever the heading's class: WordPress's `h2.entry-title > a`.)
  if (/^h[1-6]$/.test(tagOf(p))) return '';
  if (!p.is(rec) && p.children().length === 1 && !ownText(p)) {
    const w = classWords(p.attr('class'))[0];
    if (w) return w;
  }
  const kids = a.children();
  return kids.length === 1 && !ownText(a) ? (classWords(kids.attr('class'))[0] ?? '') : '';
}

/**
 * A list rule over `members` (records found by structure), or null when they hold no data. One
 * member (a search's only hit, html-single-hit.ts) gives a rule for the records like it: every
 * value it holds is a field, none required.
 */
export function listCandidate(
  $: cheerio.CheerioAPI,
  members: El[],
  sel: string,
  parent: El,
  typedValues: string[] = [],
): StructuralCandidate | null {
  // Copies of one block (a pager printed above and below a list) are not records.
  const copy = (m: El) =>
    `${clean(m.text())} ${m
      .find('a[href]')
      .map((_, a) => $(a).attr('href'))
      .get()
      .join(' ')}`;
  if (members.length > 1 && new Set(members.map(copy)).size === 1) return null;
  // Record fields: leaf paths of the first record that most records also have.
  const perRec = members.map((m) => leavesOf($, m));
  const counts = new Map<string, number>();
  for (const ls of perRec)
    for (const key of new Set(ls.map((l) => `${l.path}@${l.attr ?? ''}`))) counts.set(key, (counts.get(key) ?? 0) + 1);
  const fields: Record<string, CssField> = {};
  const props: Record<string, Schema> = {};
  const taken = new Set<string>();
  for (const leaf of perRec[0]) {
    const key = `${leaf.path}@${leaf.attr ?? ''}`;
    const n = counts.get(key) ?? 0;
    if (n < (members.length === 1 ? 1 : Math.max(2, Math.ceil(members.length / 2)))) continue;
    const vals = members.map((m) => {
      const t = m.find(leaf.path).first();
      return t.length ? clean(leaf.attr ? (t.attr(leaf.attr) ?? '') : t.text()) : '';
    });
    // Template parts (the same text in every record: labels, separators) are not data; a lone
    // record shows its labels only by their colon ("Last modified:"). A value the person typed is
    // data though every record shows it: the author whose changes were asked for (gitit's
    // activity) — but for a search's highlight of the words (`<strong>`, `<mark>`) in each hit.
    const asked =
      typedValues.some((t) => sameWords(t, vals[0]!)) && !/^(b|strong|em|i|mark)$/.test(tagOf(members[0]!.find(leaf.path).first()));
    if (new Set(vals).size === 1 && members.length >= 3 && !asked) continue;
    if (members.length === 1 && leaf.kind === 'text' && /:$/.test(vals[0])) continue;
    if (!vals[0]) continue;
    const base =
      leaf.kind === 'link'
        ? leaf.hint
          ? `${leaf.hint}_url`
          : 'url'
        : leaf.kind === 'time'
          ? 'date'
          : leaf.kind === 'img'
            ? 'image'
            : leaf.hint || 'text';
    const name = argName(base, taken);
    const ty = leaf.kind === 'text' ? typed(vals[0]) : { type: undefined, schema: { type: 'string' } as Schema };
    // Two records are too few to call a field part of every record (a tag marker on both).
    const all = n === members.length && members.length >= 3;
    fields[name] = {
      selector: leaf.path,
      ...(leaf.attr ? { attr: leaf.attr } : {}),
      ...(ty.type && vals.every((v) => typed(v).type === ty.type) ? { type: ty.type } : {}),
      ...(all ? {} : { required: false }),
    };
    props[name] = all ? (fields[name].type ? ty.schema : { type: 'string' }) : nullable(fields[name].type ? ty.schema : { type: 'string' });
  }
  const count = Object.keys(fields).length;
  if (!count) return null;
  return {
    kind: 'list',
    extractor: { from: 'css', selector: sel, all: true, required: false, fields },
    schema: {
      type: 'array',
      items: { type: 'object', properties: props, required: Object.keys(props).filter((k) => fields[k].required !== false) },
    },
    why: `${members.length} repeated ${signature($, members[0])} records under ${pathOf($, parent)} (${Object.keys(fields).join(', ')})`,
    text: clean(members.map((m) => m.text()).join(' ')),
    records: members.length,
    fieldCount: count,
    main: inMain(parent),
  };
}

/** Whether two texts are the same words, whatever their case and separators ("Ada_Moreno", "ada moreno"). */
const sameWords = (a: string, b: string) => unslug(a) !== '' && unslug(a) === unslug(b);

/**
 * Repeated items inside repeated groups (`ul > li` under each letter of an index, rows under each
 * day of a history): the tag path, relative to a group, of the shallowest element that repeats
 * among its siblings in some group and is found in most groups — when the groups hold more items
 * than there are groups, in varying numbers (or as list items). Null when the groups are the records.
 */
function groupedItems($: cheerio.CheerioAPI, groups: El[]): { path: string; records: El[] } | null {
  const textOf = (es: El[]) => es.reduce((n, e) => n + clean(visibleText(e)).length, 0);
  const byPath = new Map<string, { records: El[]; groups: Set<number>; perGroup: number[]; repeats: boolean; depth: number }>();
  groups.forEach((g, gi) => {
    g.find('*').each((_, d) => {
      const el = $(d);
      const tags: string[] = [];
      for (let cur = el; cur.length && !cur.is(g); cur = cur.parent()) tags.unshift(tagOf(cur));
      if (tags.length > 3 || /^(br|hr|script|style|input|option|td|th|tr|span|b|i|em|strong|a)$/.test(tags[tags.length - 1])) return;
      const key = tags.join(' > ');
      const e = byPath.get(key) ?? {
        records: [],
        groups: new Set<number>(),
        perGroup: groups.map(() => 0),
        repeats: false,
        depth: tags.length,
      };
      e.records.push(el);
      e.groups.add(gi);
      e.perGroup[gi]++;
      if (el.parent().children(tags[tags.length - 1]).length > 1) e.repeats = true;
      byPath.set(key, e);
    });
  });
  // A count that is the same in every group (a dt and two dd per search hit) is the group's own
  // template, not a list in it — unless the items are list items.
  const fits = [...byPath.entries()].filter(
    ([key, e]) =>
      e.repeats &&
      e.groups.size >= Math.ceil(groups.length / 2) &&
      e.records.length > groups.length &&
      (new Set(e.perGroup).size > 1 || key.endsWith('li')) &&
      // The items are most of the groups' text (a heading and its list), not a part each record
      // has some of (a ticket history's entries, each with a few attachment links).
      textOf(e.records) >= textOf(groups) * 0.5,
  );
  fits.sort((a, b) => a[1].depth - b[1].depth || b[1].records.length - a[1].records.length);
  return fits.length ? { path: fits[0][0], records: fits[0][1].records } : null;
}

export function repeated($: cheerio.CheerioAPI, template: Set<unknown>, typedValues: string[] = []): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  $('body *').each((_, p) => {
    const parent = $(p);
    const kids = parent.children();
    if (kids.length < 2 || /^(table|thead|tbody|tfoot|tr|select|head|script|svg)$/.test(tagOf(parent))) return;
    // Menus: page chrome, or a list the site's other recorded pages print at the same place.
    if (inChrome(parent) || inTemplate(template, parent)) return;
    const groups = new Map<string, El[]>();
    const byTag = new Map<string, El[]>();
    kids.each((_, c) => {
      const k = signature($, $(c));
      groups.set(k, [...(groups.get(k) ?? []), $(c)]);
      byTag.set(tagOf($(c)), [...(byTag.get(tagOf($(c))) ?? []), $(c)]);
    });
    // Records whose shape varies (a post with or without a thumbnail): the same tag, most of the
    // parent's children, split over several signatures — one group too.
    for (const [tag, members] of byTag) {
      const largest = Math.max(...[...groups.entries()].filter(([k]) => k.startsWith(`${tag}(`)).map(([, g]) => g.length));
      // (Two list items of a list are records too: the newest entry of a history has no "cur" link.)
      const listItems = members.length === kids.length && /^(ul|ol)$/.test(tagOf(parent));
      // (Line breaks between the records — `<table/><br/><table/>` — are spacing, not children that count.)
      const counted = kids.filter((_, c) => !/^(br|hr)$/.test(tagOf($(c)))).length;
      if ((members.length >= 3 || listItems) && members.length > largest && members.length >= counted * 0.6)
        groups.set(`${tag}(*)`, members);
    }
    for (const [, members] of groups) {
      if (members.length < 2) continue;
      const tag = tagOf(members[0]);
      // (Labels are a form's captions, the filter checkboxes of a search page, not records.)
      if (/^(br|hr|script|style|input|option|label|meta|link|td|th|dt|dd)$/.test(tag)) continue;
      if (members.some(inChrome) || namedMenu(parent) || members.some(namedMenu)) continue; // menus: a sidebar's <nav> portlets, a <ul id=app-nav>
      if (members.every((m) => inTemplate(template, m))) continue;
      const sel = `${pathOf($, parent)} > ${tag}`;
      const got = $(sel);
      if (got.length !== members.length && !members.every((m) => got.is(m))) continue;
      // Groups of records (a letter or date heading + its list): the items are the records; a
      // rule over the groups would return only each group's first item.
      const items = groupedItems($, members);
      const itemSel = items && `${sel} > ${items.path}`;
      const itemRule =
        items && itemSel && $(itemSel).length === items.records.length
          ? listCandidate($, items.records, itemSel, parent, typedValues)
          : null;
      const rule = listCandidate($, members, sel, parent, typedValues);
      const groupRule = got.length > members.length ? onlyMembers($, rule, got, members) : rule;
      if (itemRule) out.push({ ...itemRule, why: `${itemRule.why}, grouped in ${members.length} ${signature($, members[0])}` });
      else if (groupRule) out.push(groupRule);
    }
  });
  return out;
}

/**
 * A rule whose selector also matches siblings that are not records (an empty feed-link `<div>` before
 * ikiwiki's tag entries) keeps only the records: those that hold a required field's element, which
 * no other sibling holds (`#content > div:has(> a)`). Null when no field tells them apart.
 */
function onlyMembers($: cheerio.CheerioAPI, rule: StructuralCandidate | null, got: El, members: El[]): StructuralCandidate | null {
  if (!rule) return null;
  const others = got.toArray().filter((e) => !members.some((m) => m.is(e)));
  for (const f of Object.values(rule.extractor.fields as Record<string, CssField>)) {
    if (f.required === false || !f.selector?.startsWith('>')) continue;
    const holds = (e: unknown) => $(e as never).find(f.selector!).length > 0;
    if (members.every((m) => holds(m[0])) && !others.some(holds))
      return { ...rule, extractor: { ...rule.extractor, selector: `${rule.extractor.selector}:has(${f.selector})` } };
  }
  return null;
}

/**
 * A <dl> of records (search hits: a linked <dt> each, with the <dd> after it): the <dt>s are the
 * records, and the fields of their <dd>s are read from each <dt> by `+ dd …`. (A <dl> of labels
 * is a detail block's.)
 */
export function dlRecords($: cheerio.CheerioAPI, template: Set<unknown>): StructuralCandidate[] {
  const out: StructuralCandidate[] = [];
  $('dl').each((_, d) => {
    const dl = $(d);
    if (inChrome(dl) || inTemplate(template, dl)) return;
    const dts = dl.children('dt');
    const linked = dts.filter((_, e) => $(e).find('a[href]').length > 0).length;
    if (dts.length < 2 || linked * 2 < dts.length) return;
    const rule = dlRecordRule($, dl);
    if (rule) out.push(rule);
  });
  return out;
}

/** The list rule over a <dl>'s <dt>s, each with the fields of the <dd> after it (one <dt> too: html-single-hit.ts). */
export function dlRecordRule($: cheerio.CheerioAPI, dl: El): StructuralCandidate | null {
  const dts = dl.children('dt');
  const head = listCandidate(
    $,
    dts.toArray().map((e) => $(e)),
    `${pathOf($, dl)} > dt`,
    dl,
  );
  if (!head) return null;
  const fields = { ...head.extractor.fields } as Record<string, CssField>;
  const items = head.schema.items as { properties: Record<string, Schema>; required: string[] };
  const props = { ...items.properties };
  const dds = dts.toArray().map((e) => $(e).next('dd'));
  if (dds.every((x) => x.length)) {
    const tail = listCandidate($, dds, `${pathOf($, dl)} > dd`, dl);
    const taken = new Set(Object.keys(fields));
    for (const [k, f] of Object.entries((tail?.extractor.fields ?? {}) as Record<string, CssField>)) {
      const name = argName(k === 'text' ? 'description' : k, taken);
      fields[name] = { ...f, selector: `+ dd ${f.selector}`, required: false };
      props[name] = nullable((tail!.schema.items as { properties: Record<string, Schema> }).properties[k]!);
    }
    // A <dd> of plain text has no leaf of its own: the whole <dd> is the description.
    if (!tail && dds.every((x) => ownText(x))) {
      const name = argName('description', taken);
      fields[name] = { selector: '+ dd', required: false };
      props[name] = nullable({ type: 'string' });
    }
  }
  return {
    ...head,
    extractor: { ...head.extractor, fields },
    schema: { type: 'array', items: { type: 'object', properties: props, required: items.required } },
    why: `${dts.length} <dt> records with their <dd> under ${pathOf($, dl)} (${Object.keys(fields).join(', ')})`,
    text: clean(dl.text()),
    fieldCount: Object.keys(fields).length,
  };
}

// ---------------------------------------------------------------------------------- paging

/** A link to the next page of results: rel=next, a link labelled "next"/"›"/"»"/"older", else the head's <link rel=next>. */
export function nextPageLink($: cheerio.CheerioAPI): string | null {
  const rel = $('a[rel~=next][href]').first();
  // (Pagers are often printed above and below the list: the same link twice is one link.)
  const rels = new Set(
    $('a[rel~=next][href]')
      .map((_, e) => $(e).attr('href'))
      .get(),
  );
  if (rel.length) return rels.size === 1 ? 'a[rel~=next][href]' : pathOf($, rel);
  const a = $('a[href]')
    .filter((_, e) => {
      // (Bracketed as some pagers print it: cgit's "[next]".)
      const t = clean($(e).text() || $(e).attr('aria-label') || $(e).attr('title') || '').replace(/^\[(.+)\]$/, '$1');
      return /^(next( page| \d+)?|next ›|next »|›|»|older( posts| entries| \d+)?|more results)$/i.test(t);
    })
    .first();
  // (A theme that loads later pages by script as one scrolls still names the next page in its
  // head, as <link rel="next">: the pages a reader reaches.)
  if (!a.length) return $('head link[rel~=next][href]').length ? 'head link[rel~=next][href]' : null;
  // The link's own classes make a sturdier selector than its position (a pager's numbered links
  // come and go around it), when they pick out only links to the same place.
  const href = a.attr('href');
  for (const c of (a.attr('class') ?? '').split(/\s+/).filter((c) => /^[a-z][\w-]*$/i.test(c) && !/\d/.test(c))) {
    const hits = $(`a.${c}[href]`);
    if (hits.length && hits.toArray().every((e) => $(e).attr('href') === href)) return `a.${c}[href]`;
  }
  // Else its access key (gitweb's `accesskey="n"`) or its own words, when they pick out only it: the
  // pager's other links ("first ⋅ prev") come and go before it from page to page.
  const key = a.attr('accesskey');
  const byKey = key && /^\w$/.test(key) ? `a[accesskey=${cssq(key)}][href]` : '';
  const only = (sel: string) =>
    !!sel &&
    $(sel)
      .toArray()
      .every((e) => $(e).attr('href') === href);
  if (only(byKey)) return byKey;
  const words = clean(a.text());
  const byText = words && !/"/.test(words) ? `a[href]:contains(${cssq(words)})` : '';
  if (only(byText)) return byText;
  return pathOf($, a);
}

/** The next-page link of a recorded page: its selector and where it pointed. */
export function nextLinkOf(html: string): { selector: string; href: string } | null {
  const $ = loadHtml(html);
  const selector = nextPageLink($);
  const href = selector ? $(selector).first().attr('href') : undefined;
  return selector && href ? { selector, href } : null;
}

/** A producer of candidates beside the ones here (html-form-record.ts), given the parsed page and its template. */
export type CandidateSource = ($: cheerio.CheerioAPI, template: Set<unknown>) => StructuralCandidate[];

export function structuralCandidates(
  html: string,
  otherPages: string[] = [],
  more: CandidateSource[] = [],
  typedValues: string[] = [], // the values the person typed: data, though every record shows one
): StructuralCandidate[] {
  const $ = loadHtml(html);
  const site = siteTemplate($, otherPages);
  const template = site.elements;
  return [
    ...tables($, template),
    ...tableRecords($, template),
    ...repeated($, template, typedValues),
    ...dlRecords($, template),
    ...detailBlock($, site),
    ...more.flatMap((m) => m($, template)),
  ];
}
