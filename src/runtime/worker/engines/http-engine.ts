// The http engine: login chain, steps with templated requests, response classification onto
// RunError types (docs/connector-definition.md), extraction, pagination, and the result template.
import type { ErrorRule, Extractor, HttpDefinition, HttpStep, JsonTemplate, Matcher } from '../../../formats/definition/types.js';
import { type Lookup, PatchMiss, render, renderJson, renderText, toText } from '../../../formats/definition/template.js';
import type { RunContext } from './context.js';
import { DEFAULT_ANTI_BOT, extractValue, View } from './extract.js';
import { RunFailure } from '../../shared/failure.js';
import type { SessionResponse } from './http-session.js';
import { ChallengeAnswer, parseChallenges, pickChallenge } from './http-auth.js';
import { refusalMessage } from './refusal.js';

const truthy = (v: unknown) =>
  !(v === undefined || v === null || v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0));

/**
 * The records of a page compared by what they say: links drop out, as they carry the page's own
 * query (a list's links keep its filters, `?_changelist_filters=p%3D1`), so the same records
 * reached at another URL compare equal.
 */
function recordsKey(items: unknown[]): string {
  const isLink = (v: unknown) => typeof v === 'string' && /^(https?:\/\/|\/|\?)/.test(v);
  // (A record's link field drops out; a list of bare strings keeps every one.)
  return JSON.stringify(items, function (this: unknown, _k, v) {
    return !Array.isArray(this) && isLink(v) ? undefined : v;
  });
}

export class HttpEngine {
  private relogged = false;
  /** The HTTP challenge (Basic or Digest) `basic_auth` answered: every request to its origin carries the answer. */
  private answer: ChallengeAnswer | null = null;
  /** Stale Digest nonces renewed since the last answer that was no 401 (a server calling every new nonce stale is not asked forever). */
  private renewals = 0;
  private lastLoginView: View | null = null;
  /** Progress: each login step and step is one of `total`, numbered by its place in the definition. */
  private readonly total: number;
  private readonly place = new Map<HttpStep, number>();

  constructor(
    private readonly def: HttpDefinition,
    private readonly ctx: RunContext,
  ) {
    for (const s of [...(def.login?.steps ?? []), ...def.steps]) this.place.set(s, this.place.size + 1);
    this.total = this.place.size;
  }

  /** "step n of m: id" (a page beyond the first adds ": page k", never a step). */
  private progress(step: HttpStep, inLogin: boolean, page?: number): void {
    const label = `${inLogin ? 'login ' : ''}${step.id}${page && page > 1 ? `: page ${page}` : ''}`;
    this.ctx.progress(this.place.get(step) ?? 0, this.total, label);
  }

  async run(): Promise<unknown> {
    if (this.def.login) await this.login();
    for (const step of this.def.steps) await this.step(step, false);
    await this.ctx.readFilesFor(this.def.result);
    return renderJson(this.def.result, this.ctx.lookup);
  }

  private async login(): Promise<void> {
    const slot = this.def.login!.slot;
    if (!this.ctx.job.secrets[slot]) throw new RunFailure('auth_required', `no secret bound to login slot '${slot}'`);
    this.ctx.log(`login chain (slot ${slot})`);
    const codesBefore = new Map(this.ctx.totpHeld);
    for (const step of this.def.login!.steps) await this.step(step, true);
    const v = this.lastLoginView;
    if (v && this.matchesAny(v, this.def.detect?.login_page)) {
      const totp = this.ctx.totpRejection(codesBefore);
      throw new RunFailure('auth_required', totp ?? 'the site rejected the login: the login page came back after signing in', {
        retryable: false,
        details: { url: v.src.url },
      });
    }
  }

  private matchesAny(v: View, ms: Matcher[] | undefined): boolean {
    return (ms ?? []).some((m) => v.matches(m));
  }

  private async step(step: HttpStep, inLogin: boolean): Promise<void> {
    if (step.when !== undefined && !truthy(render(step.when, this.ctx.lookup))) {
      this.ctx.log(`step ${step.id}: skipped (when is false)`);
      return;
    }
    this.progress(step, inLogin);
    // A TOTP code is claimed from the parent's ledger only for a step that sends it (single-use).
    await this.ctx.claimTotpFor(step);
    await this.ctx.readFilesFor(step);
    if (!step.paginate) {
      const view = await this.exchange(step, inLogin);
      Object.assign(this.ctx.vars, this.extractAll(step, view));
      return;
    }
    await this.paginate(step, inLogin);
  }

  private async paginate(step: HttpStep, inLogin: boolean): Promise<void> {
    const p = step.paginate!;
    const maxPages = p.max_pages ?? 100;
    const maxItems = p.max_items === undefined ? null : Number(render(String(p.max_items), this.ctx.lookup));
    const counted = p.stop_when_empty ?? Object.entries(step.extract ?? {}).find(([, x]) => x.all)?.[0];
    const acc: Record<string, unknown> = {};
    let pageNo = p.start ?? 1;
    let cursor: unknown = null;
    let nextUrl: string | null = null;
    const seen = new Set<string>();
    const pagesRead = new Set<string>();
    // (until_found: the pages searched for the named record, and its last "not found".)
    const searched = new Set<string>();
    let missed: RunFailure | null = null;
    for (let i = 0; i < maxPages; i++) {
      this.ctx.page = { number: pageNo, index: i, cursor };
      if (i > 0) this.progress(step, inLogin, i + 1);
      const override: Record<string, string> = {};
      // (No param: the request's own templates read {{page.number}} / {{page.cursor}}.)
      if (p.mode === 'page' && p.param) override[p.param] = String(pageNo);
      if (p.mode === 'cursor' && p.param && i > 0) override[p.param] = toText(cursor);
      let view: View;
      try {
        view = await this.exchange(step, inLogin, override, nextUrl);
      } catch (e) {
        // A numbered page past the last one: some sites answer 404 (Django's ListView), which ends
        // the list rather than the run.
        if (i > 0 && p.mode === 'page' && e instanceof RunFailure && [404, 410].includes(e.opts.details?.status as number)) break;
        throw e;
      }
      // (until_found: a page without the named record moves on; the one that holds it ends here.)
      let got: Record<string, unknown>;
      try {
        got = this.extractAll(step, view);
        if (p.until_found) {
          Object.assign(this.ctx.vars, got);
          missed = null;
          break;
        }
      } catch (e) {
        const pastEnd = i > 0 && e instanceof RunFailure && e.type === 'site_changed';
        const notHere = e instanceof RunFailure && e.type === 'invalid_input' && e.opts.details?.not_found === true;
        if (!p.until_found || !(notHere || pastEnd)) throw e;
        if (pastEnd) break;
        missed = e as RunFailure;
        // (A page number past the end that the site clamps to a page already read.)
        if (searched.has(view.src.text)) break;
        searched.add(view.src.text);
        got = {};
      }
      // A page number past the end that the site answers with a page already read (clamped to the
      // last page, or redirected to the first): the list ends there, without those items again.
      const items = counted && Array.isArray(got[counted]) ? (got[counted] as unknown[]) : null;
      const sig = items?.length ? recordsKey(items) : null;
      if (p.mode === 'page' && sig !== null) {
        if (pagesRead.has(sig)) break;
        pagesRead.add(sig);
      }
      for (const [k, v] of Object.entries(got)) {
        acc[k] = step.extract![k].all ? [...((acc[k] as unknown[]) ?? []), ...(v as unknown[])] : v;
      }
      Object.assign(this.ctx.vars, acc);
      if (
        counted &&
        maxItems !== null &&
        Number.isFinite(maxItems) &&
        Array.isArray(acc[counted]) &&
        (acc[counted] as unknown[]).length >= maxItems
      ) {
        acc[counted] = (acc[counted] as unknown[]).slice(0, maxItems);
        break;
      }
      if (p.stop_when_empty && Array.isArray(got[p.stop_when_empty]) && (got[p.stop_when_empty] as unknown[]).length === 0) break;
      if (p.stop_when_false && !truthy(got[p.stop_when_false])) break;
      if (p.next) {
        const n = extractValue({ ...p.next, required: false } as Extractor, view, `${step.id}.paginate.next`);
        if (!truthy(n)) break;
        if (p.mode === 'cursor') cursor = n;
        else nextUrl = new URL(toText(n), view.src.url).href;
        // A pager that links back (the last page's "next" is the first page) ends here.
        const key = p.mode === 'cursor' ? `c:${toText(n)}` : `u:${nextUrl}`;
        if (seen.has(key)) break;
        seen.add(key);
      }
      pageNo += p.step ?? 1;
    }
    this.ctx.page = {};
    if (missed) throw missed;
    if (!p.until_found) Object.assign(this.ctx.vars, acc);
  }

  /** A step's JSON body; a `$patch` that finds no record the arguments name is the caller's input. */
  private jsonBody(id: string, t: JsonTemplate, L: Lookup): unknown {
    try {
      return renderJson(t, L);
    } catch (e) {
      if (e instanceof PatchMiss) throw new RunFailure('invalid_input', `step ${id}: ${e.message}`, { retryable: false });
      throw e;
    }
  }

  private extractAll(step: HttpStep, view: View): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, x] of Object.entries(step.extract ?? {}))
      out[name] = extractValue(x, view, `${step.id}.extract.${name}`, this.ctx.lookup);
    return out;
  }

  /** Sends the step's request and classifies the response; re-runs the login once when logged out. */
  private async exchange(
    step: HttpStep,
    inLogin: boolean,
    queryOverride: Record<string, string> = {},
    urlOverride: string | null = null,
  ): Promise<View> {
    const res = await this.send(step, queryOverride, urlOverride);
    if (this.answersChallenge(step, res)) return this.exchange(step, inLogin, queryOverride, urlOverride);
    if (res.status !== 401) this.renewals = 0;
    const view = new View({
      status: res.status,
      url: res.url,
      headers: res.headers,
      text: res.text,
      cookie: (n) => this.ctx.http.cookie(res.url, n),
    });
    const ruled = this.byRules(step.error_rules, view);
    if (ruled) throw ruled;
    if (this.matchesAny(view, [...(this.def.detect?.anti_bot ?? []), ...DEFAULT_ANTI_BOT])) {
      throw new RunFailure('anti_bot', `step ${step.id}: the site answered with a bot challenge (HTTP ${res.status})`, {
        details: { step: step.id, status: res.status, url: res.url },
      });
    }
    if (res.status >= 500 || res.status === 429) {
      throw new RunFailure('site_unavailable', `step ${step.id}: the site answered HTTP ${res.status}`, {
        retryable: true,
        details: { step: step.id, status: res.status, retry_after: (res.headers['retry-after'] as string) ?? null },
      });
    }
    if (inLogin) {
      if (res.status === 401 || res.status === 403)
        throw new RunFailure('auth_required', `login step ${step.id}: the site answered HTTP ${res.status}`, {
          details: { step: step.id, status: res.status },
        });
      this.lastLoginView = view;
    } else {
      const loggedOut = res.status === 401 || res.status === 403 || this.matchesAny(view, this.def.detect?.login_page);
      if (loggedOut) {
        if (res.status === 401 && this.answer)
          throw new RunFailure(
            'auth_required',
            `step ${step.id}: the site refused the HTTP ${this.answer.scheme === 'digest' ? 'Digest' : 'Basic'} credentials of login '${this.def.basic_auth}'`,
            {
              details: { step: step.id, status: res.status, url: res.url },
            },
          );
        if (this.def.login && !this.relogged) {
          this.relogged = true;
          this.ctx.log(`step ${step.id}: logged out (HTTP ${res.status}); running the login chain again`);
          // From a clean session, as a person logs in again: the old session's cookies would show
          // some sites' "you are logged in" page instead of the login form the chain expects.
          this.ctx.http.jar.removeAllCookiesSync();
          await this.login();
          this.progress(step, inLogin);
          return this.exchange(step, inLogin, queryOverride, urlOverride);
        }
        // Refused again right after a fresh login: the account may not do this, or the site says
        // why in its answer (a name already taken); the start of it goes with the error.
        // (`by_arguments`: the refused URL names what the caller asked for — some sites answer 403
        // for a record that does not exist rather than say so.)
        if (this.relogged)
          throw new RunFailure(
            'auth_required',
            `step ${step.id}: the site refused the request (HTTP ${res.status}), also after logging in again`,
            {
              details: {
                step: step.id,
                status: res.status,
                url: res.url,
                body: res.text.slice(0, 500),
                after_login: true,
                by_arguments: addressedByArgs(step),
              },
            },
          );
        throw new RunFailure('auth_required', `step ${step.id}: the site wants a login (HTTP ${res.status})`, {
          details: { step: step.id, status: res.status, url: res.url },
        });
      }
    }
    const ok = step.expect_status ? step.expect_status.includes(res.status) : res.status >= 200 && res.status < 300;
    if (!ok) {
      // A page addressed by an argument that the site doesn't have (a detail page of an unknown
      // id) is the caller's input, not a changed site.
      if ((res.status === 404 || res.status === 410) && addressedByArgs(step)) {
        throw new RunFailure('invalid_input', `step ${step.id}: the site has no page for these arguments (HTTP ${res.status})`, {
          details: { step: step.id, status: res.status, not_found: true },
        });
      }
      if (res.status === 400 || res.status === 422) {
        throw new RunFailure('invalid_input', `step ${step.id}: the site rejected the request (HTTP ${res.status})`, {
          details: { step: step.id, status: res.status, body: res.text.slice(0, 500) },
        });
      }
      throw new RunFailure('site_changed', `step ${step.id}: unexpected HTTP ${res.status}`, {
        details: { step: step.id, status: res.status, expected: step.expect_status ?? '2xx' },
      });
    }
    if (step.expect_redirect && !res.redirected && res.status < 300) {
      const says = refusalMessage(view);
      throw new RunFailure('invalid_input', `step ${step.id}: the site did not take the request${says ? `: ${says}` : ''}`, {
        details: { step: step.id, status: res.status, url: res.url, refused: true, message: says || null },
      });
    }
    return view;
  }

  /**
   * A 401 asking for HTTP Basic or Digest credentials, from the site's own origin, when `basic_auth`
   * names a bound login: from now on every request there carries the answer (once: a second 401 is
   * the login refused, but for a Digest nonce the server calls stale, which is renewed).
   */
  private answersChallenge(step: HttpStep, res: SessionResponse): boolean {
    const slot = this.def.basic_auth;
    const login = slot ? this.ctx.job.secrets[slot] : undefined;
    if (res.status !== 401 || login?.type !== 'login') return false;
    const challenges = parseChallenges(res.headers['www-authenticate']);
    if (this.answer) {
      if (new URL(res.url).origin !== this.answer.origin || this.renewals >= 2 || !this.answer.renew(challenges)) return false;
      this.renewals++;
      this.ctx.log(`step ${step.id}: the site's Digest nonce expired; answering its new one`);
      return true;
    }
    const challenge = pickChallenge(challenges);
    const site = new URL(renderText(this.def.base_url ?? this.def.steps[0]!.url, this.ctx.lookup)).origin;
    if (!challenge || new URL(res.url).origin !== site) return false;
    this.answer = new ChallengeAnswer(site, challenge, login);
    const scheme = challenge.scheme === 'digest' ? `Digest (${challenge.params.algorithm ?? 'MD5'})` : 'Basic';
    this.ctx.log(`step ${step.id}: the site asks for HTTP ${scheme} credentials; answering with login '${slot}'`);
    return true;
  }

  private byRules(rules: ErrorRule[] | undefined, view: View): RunFailure | null {
    for (const r of rules ?? []) {
      if (view.matches(r.when))
        return new RunFailure(r.error, r.message, {
          retryable: r.retryable,
          details: { status: view.src.status ?? null, url: view.src.url },
        });
    }
    return null;
  }

  /** The uploaded file a `file` template names (an id the parent resolves; see RunContext.readFile). */
  private async fileOf(step: HttpStep, template: string) {
    const id = renderText(template, this.ctx.lookup).trim();
    if (!id) throw new RunFailure('invalid_input', `step ${step.id} sends an uploaded file, but its id (${template}) is empty`);
    return this.ctx.readFile(id);
  }

  private async send(step: HttpStep, queryOverride: Record<string, string>, urlOverride: string | null): Promise<SessionResponse> {
    const L = this.ctx.lookup;
    const base = this.def.base_url ? renderText(this.def.base_url, L) : undefined;
    const url = urlOverride ?? new URL(renderText(step.url, L), base).href;
    for (const [k, v] of Object.entries(step.cookies ?? {}))
      if (!this.ctx.http.setCookie(url, k, renderText(v, L)))
        throw new RunFailure('site_changed', `step ${step.id}: the value for cookie ${k} holds a character a cookie cannot carry`);
    const headers: Record<string, string> = {};
    const credentialHeaders: string[] = [];
    for (const [k, v] of Object.entries({ ...this.def.headers, ...step.headers })) {
      headers[k] = renderText(v, L);
      if (/\{\{\s*secrets\./.test(v)) credentialHeaders.push(k);
    }
    // (A field's name may be a template too: a row's checkbox `chk_{{vars.device_id}}`.)
    const name = (k: string) => (k.includes('{{') ? renderText(k, L) : k);
    const query: Record<string, unknown> = {};
    if (!urlOverride) for (const [k, v] of Object.entries(step.query ?? {})) query[name(k)] = render(v, L);
    Object.assign(query, queryOverride);
    const b = step.body;
    const mapText = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [name(k), render(v, L)]));
    const file = b?.file !== undefined ? await this.fileOf(step, b.file) : undefined;
    const multipart = b?.multipart
      ? await Promise.all(
          b.multipart.map(async (m) => {
            const f = m.file !== undefined ? await this.fileOf(step, m.file) : undefined;
            return {
              name: renderText(m.name, L),
              value: m.value !== undefined ? renderText(m.value, L) : undefined,
              data: f?.data,
              filename: m.filename !== undefined ? renderText(m.filename, L) : f?.name,
              contentType: m.content_type ?? f?.contentType,
            };
          }),
        )
      : undefined;
    return this.ctx.http.request({
      method: step.method ?? 'GET',
      url,
      headers,
      query,
      json: b?.json !== undefined ? this.jsonBody(step.id, b.json, L) : undefined,
      form: b?.form ? mapText(b.form) : undefined,
      text: b?.text !== undefined ? renderText(b.text, L) : undefined,
      bytes: file?.data,
      contentType: b?.content_type ?? file?.contentType,
      multipart,
      followRedirects: step.follow_redirects,
      followHeader: step.follow_header,
      credentialHeaders,
      authorize: (method, u, body) => {
        const a = this.answer;
        return a && u.origin === a.origin && !Object.keys(headers).some((k) => /^authorization$/i.test(k))
          ? a.authorization(method, u, body)
          : undefined;
      },
    });
  }
}

/** The step's URL or query carries an argument: the page it asks for is the one the caller named. */
const addressedByArgs = (step: HttpStep) => /\{\{\s*args\./.test(step.url + JSON.stringify(step.query ?? {}));
