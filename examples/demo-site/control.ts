// Test hooks (/__reset, /__control) and the public "misbehaving" endpoints that later tests use
// to produce site_unavailable and timeout failures on purpose.
import { once } from 'node:events';
import { HttpError, readJson, sendJson, type Route } from './http.js';
import { resetState, type Toggles } from './state.js';

const BOOLEAN_TOGGLES = ['challenge', 'changed_markup', 'outage', 'single_use_totp'] as const;

function applyControl(toggles: Toggles, body: Record<string, unknown>, expireSessions: () => void): void {
  for (const [key, value] of Object.entries(body)) {
    if ((BOOLEAN_TOGGLES as readonly string[]).includes(key)) {
      if (typeof value !== 'boolean') throw new HttpError(400, `${key} must be a boolean`);
      toggles[key as (typeof BOOLEAN_TOGGLES)[number]] = value;
    } else if (key === 'flaky') {
      const ok = typeof value === 'boolean' || (typeof value === 'number' && Number.isInteger(value) && value >= 0);
      if (!ok) throw new HttpError(400, 'flaky must be a boolean or a non-negative integer');
      toggles.flaky = value as boolean | number;
    } else if (key === 'expire_sessions') {
      if (value !== true) throw new HttpError(400, 'expire_sessions must be true');
      expireSessions();
    } else {
      throw new HttpError(400, `unknown control ${key}`);
    }
  }
}

export const controlRoutes: Route[] = [
  {
    method: 'POST',
    path: '/__reset',
    access: 'control',
    handler(ctx) {
      resetState(ctx.state);
      ctx.res.writeHead(204).end();
    },
  },
  {
    method: 'GET',
    path: '/__control',
    access: 'control',
    handler(ctx) {
      sendJson(ctx.res, 200, ctx.state.toggles);
    },
  },
  {
    method: 'POST',
    path: '/__control',
    access: 'control',
    async handler(ctx) {
      const body = await readJson(ctx.req);
      // Validate everything on a copy first, so a bad request changes nothing.
      const draft = { ...ctx.state.toggles };
      let expire = false;
      applyControl(draft, body, () => (expire = true));
      ctx.state.toggles = draft;
      if (expire) ctx.state.sessions.clear();
      sendJson(ctx.res, 200, ctx.state.toggles);
    },
  },
  {
    method: 'GET',
    path: '/api/flaky',
    access: 'public',
    handler(ctx) {
      const t = ctx.state.toggles;
      const fail = ctx.url.searchParams.get('fail') === '1' || t.flaky === true || (typeof t.flaky === 'number' && t.flaky > 0);
      if (typeof t.flaky === 'number' && t.flaky > 0) t.flaky -= 1;
      if (!fail) return sendJson(ctx.res, 200, { ok: true, status: 'operational' });
      ctx.res.setHeader('retry-after', '1');
      sendJson(ctx.res, 503, { error: 'service_unavailable', detail: 'try again later' });
    },
  },
  {
    method: 'GET',
    path: '/api/slow',
    access: 'public',
    async handler(ctx) {
      const ms = Number(ctx.url.searchParams.get('ms') ?? '1000');
      if (!Number.isInteger(ms) || ms < 0 || ms > 60_000) throw new HttpError(400, 'ms must be an integer 0..60000');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        // A caller that gives up (a run timing out) should not keep the timer alive.
        ctx.req.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (!ctx.res.destroyed) sendJson(ctx.res, 200, { ok: true, waited_ms: ms });
    },
  },
  {
    method: 'GET',
    path: '/api/bulk',
    access: 'public',
    async handler(ctx) {
      // A deterministic JSON document of at least `kb` KiB, streamed, for result-size limits.
      const kb = Number(ctx.url.searchParams.get('kb') ?? '1');
      if (!Number.isInteger(kb) || kb < 1 || kb > 200 * 1024) throw new HttpError(400, 'kb must be an integer 1..204800');
      ctx.res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      const target = kb * 1024;
      const pad = 'x'.repeat(64);
      let written = 0;
      let i = 0;
      ctx.res.write('{"records":[');
      while (written < target && !ctx.res.destroyed) {
        let chunk = '';
        while (chunk.length < 65_536 && written + chunk.length < target) {
          chunk += `${i ? ',' : ''}{"i":${i},"name":"record ${i}","pad":"${pad}"}`;
          i++;
        }
        written += chunk.length;
        if (!ctx.res.write(chunk)) await Promise.race([once(ctx.res, 'drain'), once(ctx.res, 'close')]);
      }
      ctx.res.end(`],"count":${i}}`);
    },
  },
];
