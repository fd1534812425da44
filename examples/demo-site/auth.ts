// Sign-in: a form with a CSRF token tied to a pre-session cookie, an optional TOTP second step,
// and an HttpOnly session cookie. Shaped like a typical server-rendered site so that recording
// it exercises the synthesizer's "trace the token back to the page that produced it" logic.
import { Secret, TOTP } from 'otpauth';
import { readFields, redirect, safeNext, sendHtml, setCookie, type Ctx, type Route } from './http.js';
import { loginPage, messagePage, totpPage } from './pages.js';
import { createSession, newToken, type PreSession } from './state.js';

export const SESSION_COOKIE = 'demo_session';
export const PRE_SESSION_COOKIE = 'demo_pre';

function currentPreSession(ctx: Ctx): PreSession | undefined {
  const id = ctx.cookies[PRE_SESSION_COOKIE];
  return id ? ctx.state.preSessions.get(id) : undefined;
}

/** Reuses the visitor's pre-session (two tabs keep working) or starts a fresh one. */
function ensurePreSession(ctx: Ctx): PreSession {
  const existing = currentPreSession(ctx);
  if (existing) return existing;
  const pre: PreSession = { id: newToken(), csrf: newToken() };
  ctx.state.preSessions.set(pre.id, pre);
  setCookie(ctx.res, PRE_SESSION_COOKIE, pre.id, { httpOnly: true });
  return pre;
}

function startSession(ctx: Ctx, pre: PreSession, username: string, next: string): void {
  const session = createSession(ctx.state, username);
  ctx.state.preSessions.delete(pre.id);
  setCookie(ctx.res, PRE_SESSION_COOKIE, '', { httpOnly: true, maxAge: 0 });
  setCookie(ctx.res, SESSION_COOKIE, session.id, { httpOnly: true });
  redirect(ctx.res, next);
}

/** 403, not a re-shown form: a missing/forged token is a client bug, not a typo by the user. */
function csrfRejected(ctx: Ctx): void {
  sendHtml(ctx.res, 403, messagePage('Forbidden', 'Invalid or missing CSRF token. Reload the sign-in page and try again.'));
}

export function verifyTotp(seed: string, code: string): boolean {
  return totpStep(seed, code) !== null;
}

/** The 30 s step the code belongs to, or null when it is not valid now. */
function totpStep(seed: string, code: string): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  // window 1 = accept the previous and the next 30 s step too (clock skew, slow typing).
  const delta = TOTP.validate({ token: code, secret: Secret.fromBase32(seed), algorithm: 'SHA1', digits: 6, period: 30, window: 1 });
  return delta === null ? null : Math.floor(Date.now() / 30_000) + delta;
}

/**
 * Checks the code; with the single_use_totp toggle, a code of a step this user already signed in
 * with is refused, as sites with replay protection do (DokuWiki, Gitea, most TOTP libraries).
 */
function acceptTotp(ctx: Ctx, username: string, seed: string, code: string): boolean {
  const step = totpStep(seed, code);
  if (step === null) return false;
  const key = `${username}:${step}`;
  const reused = ctx.state.toggles.single_use_totp && ctx.state.usedTotpSteps.has(key);
  ctx.state.totpLog.push({ username, step, accepted: !reused, reused });
  if (reused) return false;
  ctx.state.usedTotpSteps.add(key);
  return true;
}

export const authRoutes: Route[] = [
  {
    method: 'GET',
    path: '/login',
    access: 'public',
    handler(ctx) {
      const next = safeNext(ctx.url.searchParams.get('next'));
      if (ctx.session) return redirect(ctx.res, next);
      const pre = ensurePreSession(ctx);
      sendHtml(ctx.res, 200, loginPage(pre.csrf, next));
    },
  },
  {
    method: 'POST',
    path: '/login',
    access: 'public',
    async handler(ctx) {
      const fields = await readFields(ctx.req);
      const pre = currentPreSession(ctx);
      if (!pre || !fields.csrf_token || fields.csrf_token !== pre.csrf) return csrfRejected(ctx);
      const next = safeNext(fields.next);
      const user = ctx.state.users.find((u) => u.username === fields.username);
      if (!user || user.password !== fields.password) {
        // 200 with the form again, like most real sites: callers must recognise the login page.
        return sendHtml(ctx.res, 200, loginPage(pre.csrf, next, 'Invalid username or password.'));
      }
      if (user.totpSeed) {
        pre.pendingUser = user.username;
        pre.next = next;
        return redirect(ctx.res, '/login/totp');
      }
      startSession(ctx, pre, user.username, next);
    },
  },
  {
    method: 'GET',
    path: '/login/totp',
    access: 'public',
    handler(ctx) {
      const pre = currentPreSession(ctx);
      if (!pre?.pendingUser) return redirect(ctx.res, '/login');
      sendHtml(ctx.res, 200, totpPage(pre.csrf));
    },
  },
  {
    method: 'POST',
    path: '/login/totp',
    access: 'public',
    async handler(ctx) {
      const fields = await readFields(ctx.req);
      const pre = currentPreSession(ctx);
      if (!pre || !fields.csrf_token || fields.csrf_token !== pre.csrf) return csrfRejected(ctx);
      const user = ctx.state.users.find((u) => u.username === pre.pendingUser);
      if (!user?.totpSeed) return redirect(ctx.res, '/login');
      if (!acceptTotp(ctx, user.username, user.totpSeed, (fields.code ?? '').trim())) {
        return sendHtml(ctx.res, 200, totpPage(pre.csrf, 'Invalid authentication code.'));
      }
      startSession(ctx, pre, user.username, safeNext(pre.next));
    },
  },
  {
    method: 'POST',
    path: '/logout',
    access: 'public',
    handler(ctx) {
      if (ctx.session) ctx.state.sessions.delete(ctx.session.id);
      setCookie(ctx.res, SESSION_COOKIE, '', { httpOnly: true, maxAge: 0 });
      redirect(ctx.res, '/login');
    },
  },
];
