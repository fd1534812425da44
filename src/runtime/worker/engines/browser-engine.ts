// The browser engine: runs in the sandbox and drives a page that lives in the parent process
// (the shared Chromium) over RPC, so the sandbox never holds the browser or its CDP socket.
// Extraction runs here on a DOM snapshot with the same extractors as the http engine.
import type { BrowserDefinition, BrowserStep, Matcher } from '../../../formats/definition/types.js';
import { render, renderJson, renderText } from '../../../formats/definition/template.js';
import type { RunContext } from './context.js';
import { DEFAULT_ANTI_BOT, extractValue, View } from './extract.js';
import { egressFailure, RunFailure } from '../../shared/failure.js';

const truthy = (v: unknown) =>
  !(v === undefined || v === null || v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0));
const DEFAULT_TIMEOUT = 15_000;

/** RPC to the parent's page, mapping Playwright failures onto RunError types. */
export async function pageCall(ctx: RunContext, method: string, params: Record<string, unknown>, what: string): Promise<any> {
  try {
    return await ctx.host.rpc(method, params);
  } catch (e) {
    const err = e as { name?: string; message?: string };
    const msg = String(err.message ?? e).split('\n')[0];
    // The parent's egress policy refused it (src/egress/browser-guard.ts): say so, not "network error".
    if (err.name === 'EgressDenied') throw egressFailure({ rule: 'browser', message: msg });
    // (Chromium's word for a sign-in it had nothing to answer with: no basic_auth, or another origin's.)
    if (/net::ERR_INVALID_AUTH_CREDENTIALS/.test(msg))
      throw new RunFailure(
        'auth_required',
        `${what}: the site asks for HTTP credentials the connector has none for (basic_auth answers only the first page's origin)`,
        {
          details: { action: what },
        },
      );
    if (/net::ERR_|ECONNREFUSED|NS_ERROR/.test(msg)) throw new RunFailure('site_unavailable', `${what}: ${msg}`, { retryable: true });
    const timedOut = err.name === 'TimeoutError' || /Timeout .*exceeded/.test(msg);
    if (timedOut && method === 'page.goto')
      throw new RunFailure('site_unavailable', `${what}: the page did not load in time (${msg})`, { retryable: true });
    if (timedOut) {
      throw new RunFailure('site_changed', `${what}: not found or not ready in time (${msg})`, { details: { action: what } });
    }
    throw e;
  }
}

export class BrowserEngine {
  private relogged = false;
  private loopDepth = 0;
  /** Progress: each top-level login step and step is one of `total`; a loop's pages only relabel it. */
  private readonly total: number;
  private current = 0;

  constructor(
    private readonly def: BrowserDefinition,
    private readonly ctx: RunContext,
  ) {
    this.total = (def.login?.steps.length ?? 0) + def.steps.length;
  }

  async run(): Promise<unknown> {
    await this.ctx.host.rpc('browser.open', this.def.basic_auth ? { credentials: this.httpAuth(this.def.basic_auth) } : {});
    if (this.def.login) await this.login();
    await this.steps(this.def.steps, false);
    return renderJson(this.def.result, this.ctx.lookup);
  }

  /**
   * The slot and origin the browser answers HTTP Basic/Digest challenges for: the origin of the
   * first page the connector opens. The parent reads the slot's values; they never pass here.
   */
  private httpAuth(slot: string): { slot: string; origin: string } {
    if (this.ctx.job.secrets[slot]?.type !== 'login')
      throw new RunFailure('auth_required', `no login bound to slot '${slot}' (basic_auth)`);
    const first = [...(this.def.login?.steps ?? []), ...this.def.steps].find((st) => st.action === 'navigate');
    const url = first?.action === 'navigate' ? URL.parse(renderText(first.url, this.ctx.lookup)) : null;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new RunFailure('invalid_input', 'basic_auth: the connector opens no web page first (a navigate step) to answer for');
    return { slot, origin: url.origin };
  }

  private async login(): Promise<void> {
    const slot = this.def.login!.slot;
    if (!this.ctx.job.secrets[slot]) throw new RunFailure('auth_required', `no secret bound to login slot '${slot}'`);
    this.ctx.log(`login chain (slot ${slot})`);
    const codesBefore = new Map(this.ctx.totpHeld);
    await this.steps(this.def.login!.steps, true);
    const v = await this.snapshot();
    if (this.matchesAny(v, this.def.detect?.login_page)) {
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

  private async snapshot(status?: number): Promise<View> {
    const s = await pageCall(this.ctx, 'page.snapshot', {}, 'snapshot');
    return new View({ status, url: s.url, text: s.html });
  }

  private async steps(steps: BrowserStep[], inLogin: boolean): Promise<void> {
    const top = this.loopDepth === 0;
    // Login steps come first; a re-login after a logout counts them again from 1.
    const base = inLogin ? 0 : (this.def.login?.steps.length ?? 0);
    for (const [i, s] of steps.entries()) {
      const name = s.id ?? `${inLogin ? 'login.' : ''}${s.action}#${i}`;
      if (top) {
        this.current = base + i + 1;
        this.ctx.progress(this.current, this.total, name);
      }
      await this.step(s, inLogin, name);
    }
  }

  private async step(s: BrowserStep, inLogin: boolean, name: string): Promise<void> {
    const L = this.ctx.lookup;
    if (s.when !== undefined && !truthy(render(s.when, L))) return;
    // A TOTP code is claimed from the parent's ledger only for an action that types it (single-use).
    if (s.action !== 'loop') await this.ctx.claimTotpFor(s);
    const timeout = s.timeout_ms ?? DEFAULT_TIMEOUT;
    switch (s.action) {
      case 'navigate': {
        const url = renderText(s.url, L);
        const r = await pageCall(this.ctx, 'page.goto', { url, timeout }, `${name} (navigate)`);
        this.ctx.log(`${name}: navigate ${url} → ${r.status ?? '?'}`);
        for (const b of r.blocked ?? []) this.ctx.log(`${name}: the page's request was refused: ${b}`);
        await this.checkPage(name, r.status, inLogin, () => this.step(s, inLogin, name));
        return;
      }
      case 'click': {
        const r = await pageCall(this.ctx, 'page.click', { selector: s.selector, timeout }, `${name} (click ${s.selector})`);
        this.ctx.log(`${name}: click ${s.selector}${r.navigated ? ` → ${r.url}` : ''}`);
        for (const b of r.blocked ?? []) this.ctx.log(`${name}: the page's request was refused: ${b}`);
        if (r.navigated) await this.checkPage(name, r.status, true, async () => {});
        return;
      }
      case 'type':
        await pageCall(
          this.ctx,
          'page.fill',
          { selector: s.selector, text: renderText(s.text, L), timeout },
          `${name} (type into ${s.selector})`,
        );
        this.ctx.log(`${name}: type into ${s.selector}`);
        return;
      case 'select':
        await pageCall(
          this.ctx,
          'page.select',
          { selector: s.selector, value: renderText(s.value, L), timeout },
          `${name} (select ${s.selector})`,
        );
        return;
      case 'press':
        await pageCall(this.ctx, 'page.press', { selector: s.selector ?? null, key: s.key, timeout }, `${name} (press ${s.key})`);
        return;
      case 'wait':
        await pageCall(
          this.ctx,
          'page.wait',
          { selector: s.selector ?? null, state: s.state ?? null, url: s.url ?? null, load: s.load ?? null, ms: s.ms ?? null, timeout },
          `${name} (wait)`,
        );
        return;
      case 'extract': {
        const v = await this.snapshot();
        for (const [k, x] of Object.entries(s.values)) {
          const got = extractValue(x, v, `${name}.values.${k}`, this.ctx.lookup);
          // Inside a loop, `all` extracts accumulate across iterations.
          this.ctx.vars[k] =
            x.all && this.loopDepth > 0 && Array.isArray(this.ctx.vars[k])
              ? [...(this.ctx.vars[k] as unknown[]), ...(got as unknown[])]
              : got;
        }
        return;
      }
      case 'loop': {
        this.loopDepth++;
        const fresh = new Set<string>();
        for (const st of s.steps) if (st.action === 'extract') for (const [k, x] of Object.entries(st.values)) if (x.all) fresh.add(k);
        for (const k of fresh) this.ctx.vars[k] = [];
        try {
          const max = s.max_iterations ?? 50;
          for (let i = 0; i < max; i++) {
            this.ctx.page = { number: i + 1, index: i };
            if (i > 0) this.ctx.progress(this.current, this.total, `${name}: page ${i + 1}`);
            await this.steps(s.steps, inLogin);
            if (!s.while_selector) continue;
            const present = await pageCall(this.ctx, 'page.exists', { selector: s.while_selector }, `${name} (loop)`);
            if (!present || i === max - 1) break;
            const r = await pageCall(
              this.ctx,
              'page.click',
              { selector: s.while_selector, timeout },
              `${name} (click ${s.while_selector})`,
            );
            this.ctx.log(`${name}: next ${s.while_selector}${r.navigated ? ` → ${r.url}` : ''}`);
            if (r.navigated) await this.checkPage(name, r.status, true, async () => {});
          }
        } finally {
          this.loopDepth--;
          this.ctx.page = {};
        }
        return;
      }
    }
  }

  /** After a navigation: challenge → anti_bot, 5xx → site_unavailable, login page → re-login once. */
  private async checkPage(name: string, status: number | undefined, noRelogin: boolean, retry: () => Promise<void>): Promise<void> {
    const v = await this.snapshot(status);
    if (this.matchesAny(v, [...(this.def.detect?.anti_bot ?? []), ...DEFAULT_ANTI_BOT])) {
      throw new RunFailure('anti_bot', `${name}: the site showed a bot challenge`, {
        details: { step: name, status: status ?? null, url: v.src.url },
      });
    }
    if (status !== undefined && (status >= 500 || status === 429)) {
      throw new RunFailure('site_unavailable', `${name}: the site answered HTTP ${status}`, {
        retryable: true,
        details: { step: name, status },
      });
    }
    // (With basic_auth, Chromium answered the challenge: a 401 still is the site refusing that login.)
    if (status === 401 && this.def.basic_auth)
      throw new RunFailure('auth_required', `${name}: the site refused the HTTP credentials of login '${this.def.basic_auth}'`, {
        details: { step: name, status },
      });
    if (noRelogin || !this.matchesAny(v, this.def.detect?.login_page)) return;
    if (this.def.login && !this.relogged) {
      this.relogged = true;
      this.ctx.log(`${name}: landed on the login page; running the login chain again`);
      const current = this.current;
      await this.login();
      // Back to the step that found itself logged out.
      this.current = current;
      if (this.loopDepth === 0) this.ctx.progress(current, this.total, name);
      return retry();
    }
    throw new RunFailure('auth_required', `${name}: the site wants a login`, { details: { step: name, url: v.src.url } });
  }
}
