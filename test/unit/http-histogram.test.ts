// The request-latency histogram scrapes exactly as prom-client's own Histogram would.
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpHistogram } from '../../src/modules/observability/http-histogram.js';

const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const observations: [string, string, number, number][] = [
  ['GET', '/v1beta/files/:file_id', 200, 0.0004],
  ['GET', '/v1beta/files/:file_id', 200, 0.001],
  ['GET', '/v1beta/files/:file_id', 404, 0.03],
  ['POST', 'unmatched', 404, 100],
  ['GET', '/route/"quoted"\\and\nnewline', 200, 0.0025],
];

describe('HttpHistogram', () => {
  it('gives the same /metrics text as prom-client for the same observations', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const name = 'http_request_duration_seconds';
    const help = 'HTTP request latency by route template, method and status code';
    const h = new Histogram({ name, help, labelNames: ['method', 'route', 'status_code'], buckets, registers: [theirs] });
    const mine = new HttpHistogram(name, help, buckets, ours);
    for (const [method, route, status, s] of observations) {
      h.observe({ method, route, status_code: String(status) }, s);
      mine.observe(method, route, status, s);
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/v1beta/files/:file_id",status_code="200"} 2');
    expect(text).toContain('http_request_duration_seconds_bucket{le="+Inf",method="POST",route="unmatched",status_code="404"} 1');
  });
});
