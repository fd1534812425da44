// The browser fallback for page flows: a `browser`-engine plan replayed from a capture session's
// action log — navigate, type, select, click/submit (full-page form submits included), wait — that
// extracts from the live DOM with the extractors chosen for the recorded page (output.ts), so
// a browser run returns what the http plan would. Pure: the caller decides when to use it.
import * as cheerio from 'cheerio';
import type { Action, ElementInfo } from '../formats/recording/types.js';
import type { BrowserDefinition, BrowserStep, Extractor, JsonTemplate } from '../formats/definition/types.js';
import type { SecretPlan } from './secrets.js';
import type { ArgValue } from './substitute.js';
import type { Exchange, Recording } from './types.js';

/** A page whose DOM the plan extracts from, right after the action that led to it. */
export interface ExtractPoint {
  exchange: Exchange;
  extract: Record<string, Extractor>;
}

export interface BrowserPlanInput {
  rec: Recording;
  points: ExtractPoint[];
  result: JsonTemplate;
  args: ArgValue[];
  secrets: SecretPlan;
  /** Texts the person saw as data (recorded output values): a selector naming one only finds this record. */
  data: string[];
  meta: BrowserDefinition['meta'];
}

export type BrowserPlan =
  | { ok: true; definition: BrowserDefinition; usedArgs: Set<string>; usedSlots: Set<string>; steps: number }
  | { ok: false; reason: string };

const PLACEHOLDER = /\{\{secret:([^:}]+):(\w+)\}\}/g;
const FOCUS_ONLY = new Set(['textarea', 'select', 'label', 'option', 'html', 'body']);

class NoPlan extends Error {}

const isDocument = (x: Exchange) => x.isNavigation || x.resourceType === 'document';

/**
 * The most robust CSS selector the recorder noted for an element. Only CSS (the engine and the
 * publish-time validator take CSS); never one that names data the person saw or typed — the
 * link "Delta Lantern" must still be found when the run searches for something else.
 */
export function cssSelector(el: ElementInfo | null | undefined, avoid: string[]): string | null {
  for (const s of el?.selectors ?? []) {
    if (!s.unique || !['testid', 'id', 'name', 'css'].includes(s.kind)) continue;
    const css = s.playwright.replace(/^css=/, '');
    const low = css.toLowerCase();
    if (avoid.some((v) => v.length >= 2 && low.includes(v.toLowerCase()))) continue;
    try {
      cheerio.load('<p></p>')(css);
      return css;
    } catch {
      /* not CSS (a Playwright engine string) */
    }
  }
  return null;
}

export function buildBrowserPlan(inp: BrowserPlanInput): BrowserPlan {
  try {
    return build(inp);
  } catch (e) {
    if (e instanceof NoPlan) return { ok: false, reason: e.message };
    throw e;
  }
}

function build(inp: BrowserPlanInput): BrowserPlan {
  const { rec, points, args, secrets } = inp;
  if (!rec.actions.length)
    throw new NoPlan(
      'the recording has no action log (an uploaded HAR holds traffic only: what was typed and clicked, and where, is unknown); record the flow in a capture session',
    );
  for (const p of points) {
    if (!isDocument(p.exchange))
      throw new NoPlan(
        `the result comes from a background request (${p.exchange.method} ${p.exchange.url}, ${p.exchange.mime || 'no type'}), not from a page the browser shows`,
      );
    if (Object.values(p.extract).some((x) => x.from === 'body' || x.from === 'header' || x.from === 'cookie' || x.from === 'json'))
      throw new NoPlan(`the result of ${p.exchange.method} ${p.exchange.url} is not read from the page's HTML (a download or JSON)`);
  }
  const actions = [...rec.actions].sort((a, b) => a.seq - b.seq);
  const seqOf = (id: string | null) => (id ? (actions.find((a) => a.id === id)?.seq ?? 0) : 0);
  const pointSeq = points.map((p) => seqOf(p.exchange.actionId));
  const end = Math.max(...pointSeq);
  const flow = actions.filter((a) => a.seq <= end);
  const other = flow.find((a) => a.page !== flow[0].page || a.type === 'tab');
  if (other) throw new NoPlan(`the flow continues in another tab or popup (action ${other.id}); the browser engine drives one page`);
  // (Without the file, the page would be submitted as if none were chosen: no connector beats a wrong one.)
  const chosen = flow.find((a) => a.type === 'upload');
  if (chosen)
    throw new NoPlan(
      `the flow gives the page a file (action ${chosen.id}), which a browser connector cannot do: only an HTTP plan sends the caller's file`,
    );

  const usedArgs = new Set<string>();
  const usedSlots = new Set<string>();
  const needles = [...new Map(rec.exchanges.flatMap((x) => secrets.needlesFor(x)).map((n) => [n.needle, n])).values()];
  const avoid = [...args.map((a) => a.example), ...inp.data.filter((v) => v.length >= 3)];

  /** A recorded value as a template: secrets → {{secrets.slot.field}}, typed arguments → {{args.x}}. */
  const template = (value: string, url = false): { text: string; secret: boolean } => {
    let secret = false;
    let text = value.replace(PLACEHOLDER, (_m, id: string, field: string) => {
      const slot = secrets.slotOfSecretId(id, field as never);
      if (!slot) throw new NoPlan(`a pasted secret (${field}) has no secret slot`);
      usedSlots.add(slot);
      secret = true;
      return `{{secrets.${slot}.${field}}}`;
    });
    if (secret) return { text, secret };
    const n = needles.find((x) => x.needle === value);
    if (n) {
      usedSlots.add(n.slot);
      return { text: `{{secrets.${n.slot}.${n.field}}}`, secret: true };
    }
    if (url) {
      // An argument in a typed URL (a search page's ?q=…): encoded in the URL, so encoded again.
      for (const a of args.filter((x) => x.example.length >= 2)) {
        for (const enc of new Set([encodeURIComponent(a.example), encodeURIComponent(a.example).replace(/%20/g, '+')])) {
          if (!text.includes(`=${enc}`) && !text.includes(`/${enc}`)) continue;
          usedArgs.add(a.name);
          text = text.split(`=${enc}`).join(`={{args.${a.name} | urlencode}}`).split(`/${enc}`).join(`/{{args.${a.name} | urlencode}}`);
        }
      }
      return { text, secret: false };
    }
    const a = args.find((x) => x.example === value) ?? args.find((x) => x.example.length >= 3 && value.includes(x.example));
    if (a) {
      usedArgs.add(a.name);
      text = value.split(a.example).join(`{{args.${a.name}}}`);
    }
    return { text, secret: false };
  };
  const selectorOf = (a: Action, el: ElementInfo | null | undefined) => {
    const s = cssSelector(el, avoid);
    if (!s)
      throw new NoPlan(
        `no CSS selector the recorder noted for the element of action ${a.id} (${a.type} on ${el?.tag ?? 'nothing'}) is unique and free of recorded data`,
      );
    return s;
  };
  const isSecret = (v: string) => new RegExp(PLACEHOLDER.source).test(v) || needles.some((n) => n.needle === v);
  const carriesSecret = (a: Action) =>
    (a.type === 'fill' && isSecret(a.value)) || (a.type === 'submit' && a.fields.some((f) => isSecret(f.value)));

  // Login: from the start up to the last form submit that carries a secret (then TOTP steps too).
  const lastSecret = flow.reduce((k, a, i) => (carriesSecret(a) ? i : k), -1);
  let loginEnd = -1;
  if (lastSecret >= 0) {
    loginEnd = flow.findIndex((a, i) => i >= lastSecret && a.type === 'submit');
    if (loginEnd < 0)
      loginEnd = flow.findIndex((a, i) => i > lastSecret && (a.type === 'click' || (a.type === 'key' && a.key === 'Enter')));
    if (loginEnd < 0) throw new NoPlan('the sign-in form with the secrets was never submitted');
    // A result shown by the sign-in itself (the page it landed on) is opened again after the login.
    pointSeq.forEach((s, i) => {
      if (s > flow[loginEnd].seq) return;
      if (points[i].exchange.method !== 'GET')
        throw new NoPlan(
          `secrets are typed into the form whose submit is the result (${points[i].exchange.method} ${points[i].exchange.url}); no sign-in separate from the task to replay`,
        );
      pointSeq[i] = 0;
    });
  }

  const emit = (part: Action[], extractAt: Map<number, ExtractPoint[]>): BrowserStep[] => {
    const out: BrowserStep[] = [];
    /** Drops an earlier edit of the same field when nothing happened in between: the last value wins. */
    const replaceEdit = (action: 'type' | 'select', sel: string) => {
      let k = out.length - 1;
      while (
        k >= 0 &&
        out[k].action !== 'click' &&
        out[k].action !== 'navigate' &&
        !(out[k].action === action && (out[k] as { selector?: string }).selector === sel)
      )
        k--;
      if (k >= 0 && out[k].action === action) out.splice(k, 1);
    };
    const first = part.find((a) => a.type !== 'navigate' || a.cause === 'typed' || a.cause === 'start');
    if (first && first.type !== 'navigate')
      out.push({ action: 'navigate', url: template(first.url, true).text, note: 'the page the person was on' });
    let lastField: string | null = null;
    for (const [i, a] of part.entries()) {
      const next = part.slice(i + 1).find((b) => b.type !== 'key' && b.type !== 'submit');
      const navigates = next?.type === 'navigate' && next.cause === 'page';
      switch (a.type) {
        case 'navigate':
          if (a.cause === 'typed' || a.cause === 'start' || a.cause === 'reload')
            out.push({ action: 'navigate', url: template(a.to, true).text, note: `typed into the address bar (${a.id})` });
          break;
        case 'fill': {
          const sel = selectorOf(a, a.target);
          replaceEdit('type', sel);
          const v = template(a.value);
          // A password typed by hand that no slot claims would be written into the plan: refuse.
          if (!v.secret && (a.secret || a.target?.type === 'password' || /password|one-time-code/.test(a.target?.autocomplete ?? '')))
            throw new NoPlan(
              `a value typed into a password or one-time-code field (action ${a.id}) is not a known secret; paste it from the vault or name it in hints.secrets`,
            );
          out.push({ action: 'type', selector: sel, text: v.text, note: `fill (${a.id})` });
          lastField = sel;
          break;
        }
        case 'select': {
          const sel = selectorOf(a, a.target);
          replaceEdit('select', sel);
          out.push({ action: 'select', selector: sel, value: template(a.values[0] ?? '').text, note: `select (${a.id})` });
          break;
        }
        case 'check':
          // The page loads in its recorded state, so one click changes it the same way.
          out.push({ action: 'click', selector: selectorOf(a, a.target), note: `${a.checked ? 'check' : 'uncheck'} (${a.id})` });
          break;
        case 'click': {
          const t = a.target;
          if (!t || FOCUS_ONLY.has(t.tag) || (t.tag === 'input' && !['submit', 'button', 'image', 'reset'].includes(t.type ?? 'text')))
            break;
          const sel = selectorOf(a, t);
          // Clicking into a result (a list's first hit): with no such element the run has nothing
          // to open; say so as an extractor finding nothing, like the http plan's id extractor.
          if (out.at(-1)?.action === 'extract')
            out.push({
              action: 'extract',
              values: {
                [`opened_${a.id}`]: {
                  from: 'css',
                  selector: sel,
                  attr: 'href',
                  note: 'the element the person clicked to open the next page',
                },
              },
            });
          out.push({ action: 'click', selector: sel, note: `click (${a.id})` });
          if (navigates) out.push({ action: 'wait', load: 'load', note: 'the click loads a page' });
          break;
        }
        case 'submit': {
          // Usually the button click (or Enter, recorded as a click) that submitted it is already a step.
          const prior = out.at(-1)?.action === 'wait' ? out.at(-2) : out.at(-1);
          if (prior?.action === 'click' && !String(prior.note).startsWith('check')) break;
          if (a.submitter)
            out.push({ action: 'click', selector: selectorOf(a, a.submitter), note: `submit the form ${a.form.css} (${a.id})` });
          else if (lastField)
            out.push({ action: 'press', key: 'Enter', selector: lastField, note: `submit the form ${a.form.css} with Enter (${a.id})` });
          else throw new NoPlan(`form ${a.form.css} was submitted without a button or a typed field (action ${a.id})`);
          out.push({ action: 'wait', load: 'load', note: 'the form submit loads a page' });
          break;
        }
        case 'key': {
          // Enter that submitted a form shows up as a click/submit next; otherwise a page script
          // listens for it (a search box without a form), so press it.
          const then = part.slice(i + 1).find((b) => b.type !== 'key');
          if (a.key !== 'Enter' || a.modifiers.length || then?.type === 'submit' || then?.type === 'click') break;
          out.push({ action: 'press', key: 'Enter', ...(a.target ? { selector: selectorOf(a, a.target) } : {}), note: `Enter (${a.id})` });
          if (then?.type === 'navigate' && then.cause === 'page') out.push({ action: 'wait', load: 'load', note: 'Enter loads a page' });
          break;
        }
        default:
          break; // arrows are covered by select, paste by the fill that carries it, tab
      }
      for (const p of extractAt.get(a.seq) ?? []) {
        if (out.at(-1)?.action !== 'wait') out.push({ action: 'wait', load: 'load', note: 'the page of the result' });
        out.push({
          action: 'extract',
          values: p.extract,
          note: `what the recorded page ${p.exchange.finalUrl} showed`,
          provenance: {
            entries: [p.exchange.id.replace(/~final$/, '')],
            reason: 'extraction chosen on the recorded page, run on the live DOM',
          },
        });
      }
    }
    return out;
  };

  const extractAt = new Map<number, ExtractPoint[]>();
  points.forEach((p, i) => extractAt.set(pointSeq[i], [...(extractAt.get(pointSeq[i]) ?? []), p]));
  // Traffic before the first action (the start page itself): navigate there and extract.
  const before = extractAt.get(0) ?? [];
  const login = loginEnd >= 0 ? emit(flow.slice(0, loginEnd + 1), new Map()) : [];
  if (login.length && login.at(-1)!.action !== 'wait') login.push({ action: 'wait', load: 'load', note: 'signed in' });
  const mainActions = flow.slice(loginEnd + 1);
  const steps = emit(mainActions, extractAt);
  if (before.length) {
    const start = before[0].exchange.finalUrl;
    steps.unshift(
      { action: 'navigate', url: template(start, true).text, note: 'the page of the result' },
      ...before.map((p) => ({ action: 'extract' as const, values: p.extract })),
    );
  }
  if (!steps.some((s) => s.action === 'extract')) throw new NoPlan('the page of the result is not reached by any recorded action');
  if (!steps.some((s) => s.action === 'navigate')) {
    // The flow began on the page a sign-in landed on: open it again after the login.
    steps.unshift({
      action: 'navigate',
      url: template(mainActions[0]?.url ?? points[0].exchange.finalUrl, true).text,
      note: 'the page the person was on after signing in',
    });
  }
  const loginForms = [
    ...new Set(
      flow
        .slice(0, loginEnd + 1)
        .flatMap((a) => (a.type === 'submit' && a.form.id && /^[A-Za-z][\w-]*$/.test(a.form.id) ? [`#${a.form.id}`] : [])),
    ),
  ];
  const slot = [...usedSlots].find((s) => secrets.slots.find((x) => x.name === s)?.type === 'login');
  if (login.length && !slot) throw new NoPlan('the sign-in uses no login secret slot');
  const definition: BrowserDefinition = {
    format: 'connector-definition/v1',
    engine: 'browser',
    meta: inp.meta,
    ...(login.length ? { login: { slot: slot!, steps: login, note: 'the sign-in the person did, replayed in the page' } } : {}),
    ...(loginForms.length
      ? {
          detect: {
            login_page: loginForms.map((css) => ({
              css,
              note: 'a sign-in form of the recorded login: seeing it later means the session ended',
            })),
          },
        }
      : {}),
    steps,
    result: inp.result,
  };
  return { ok: true, definition, usedArgs, usedSlots, steps: login.length + steps.length };
}
