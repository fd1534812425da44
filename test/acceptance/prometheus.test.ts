// Acceptance on a nineteenth real application we did not write: Prometheus 2.42 (Debian's build,
// with its classic jQuery UI; a fresh server per run that scrapes itself every second). Each flow is
// recorded here and now in Chromium, synthesized, replay-validated, published and RUN with a NEW
// expression; results are checked against its HTTP API. What Prometheus brings: every query carries
// the browser's clock — `time=<seconds.millis>` for the console, `start`/`end` an hour apart for the
// graph, and jQuery's `_=<ms>` cache-buster. Replayed as recorded, a connector run next week asks
// for this week's values (or, past the retention, for nothing). Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, prometheusApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.prometheus);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Prometheus (%s)', (backend) => {
  // (No sign-in: the login secret of the harness is unused.)
  const live = liveApp(APPS.prometheus, backend, 'nobody', 'no-password');
  const { flow } = live;
  const answer = (page: Page, path: string) => page.waitForResponse((r) => r.url().includes(`/api/v1/${path}`) && r.status() === 200);
  /** Records a flow on the classic UI's graph page once the server has scraped itself a few times. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      for (let n = 0; n < 50 && !(await prometheusApi(base, '/query?query=up')).result.length; n++)
        await new Promise((r) => setTimeout(r, 200));
      await page.goto(`${base}/graph`);
      await page.waitForSelector('#expr0');
      await steps(page);
    });

  it('an expression evaluated in the console, run with a NEW expression at the time of the run', async () => {
    const har = await record('console', async (page) => {
      await page.fill('#expr0', 'prometheus_build_info');
      await Promise.all([answer(page, 'query?query=prometheus_build_info'), page.click('input.execute_btn')]);
      await page.waitForSelector('text=goversion');
    });
    await new Promise((r) => setTimeout(r, 1500));
    const t = Date.now() / 1000;
    const { result, def } = await flow(
      'pm-console',
      har,
      { hints: { arguments: { expression: 'prometheus_build_info' } } },
      { arguments: { expression: 'up{job="orchard-metrics"}' } },
    );
    const text = JSON.stringify(result);
    expect(text).toContain('"orchard-metrics"');
    expect(text).not.toContain('goversion');
    // Evaluated at the run's time, not the recording's.
    const at = result.data.result[0].value[0] as number;
    expect(at).toBeGreaterThanOrEqual(Math.floor(t) - 1);
    expect(JSON.stringify(def)).toContain('{{run.now_s}}');
  });

  it('an expression graphed over the last hour, run with a NEW expression over the hour before the run', async () => {
    const har = await record('graph', async (page) => {
      await page.fill('#expr0', 'prometheus_http_requests_total');
      await page.click('a.nav-link:has-text("Graph") >> nth=-1');
      await Promise.all([answer(page, 'query_range?query=prometheus_http_requests_total'), page.click('input.execute_btn')]);
    });
    await new Promise((r) => setTimeout(r, 1500));
    const t = Date.now() / 1000;
    const { result, def } = await flow(
      'pm-graph',
      har,
      { hints: { arguments: { expression: 'prometheus_http_requests_total' } } },
      { arguments: { expression: 'scrape_duration_seconds' } },
    );
    const series = result.data.result as { metric: Record<string, string>; values: [number, string][] }[];
    expect(series.length).toBeGreaterThan(0);
    expect(series[0]!.metric.__name__).toBe('scrape_duration_seconds');
    // The range ends at the run's time (its last point is recent), and starts about an hour before it.
    const last = Math.max(...series.flatMap((s) => s.values.map((v) => v[0])));
    expect(last).toBeGreaterThanOrEqual(Math.floor(t) - 30);
    expect(def.steps.at(-1).query).toMatchObject({ start: '{{run.now_s | add:-3600}}', end: '{{run.now_s}}' });
  });
});
