// Request loggers built on first use: same lines as pino's child, no child for a quiet request.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { makeLogger } from '../../src/lib/logger.js';
import { RequestLogController, lazyChildLogger } from '../../src/http/request-logger.js';

async function appAt(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  const logger = makeLogger(level, sink);
  const app = Fastify({
    loggerInstance: logger,
    childLoggerFactory: lazyChildLogger,
    logController: new RequestLogController({ requestIdLogLabel: 'request_id' }),
    genReqId: () => `r-${Math.random().toString(36).slice(2)}`,
  });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/warns', async (req) => {
    req.log.info('not at warn');
    req.log.warn({ n: 1 }, 'first');
    req.log.child({ part: 'x' }).warn('from a grandchild');
    req.log.error('second');
    return { ok: true };
  });
  app.get('/silenced', { logLevel: 'silent' }, async (req) => {
    req.log.error('never written');
    return { ok: true };
  });
  await app.ready();
  const child = vi.spyOn(logger, 'child');
  return { app, lines, child };
}

describe('request loggers', () => {
  it('build no pino child for a request that writes no line (warn level)', async () => {
    const { app, lines, child } = await appAt('warn');
    const r = await app.inject({ method: 'GET', url: '/quiet' });
    expect(r.statusCode).toBe(200);
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    await app.close();
  });

  it('write enabled lines with the request id, through one child per request', async () => {
    const { app, lines, child } = await appAt('warn');
    const r = await app.inject({ method: 'GET', url: '/warns' });
    expect(r.statusCode).toBe(200);
    const id = lines[0]?.request_id;
    expect(id).toMatch(/^r-/);
    expect(lines.map((l) => [l.msg, l.request_id])).toEqual([
      ['first', id],
      ['from a grandchild', id],
      ['second', id],
    ]);
    expect(lines[0].n).toBe(1);
    expect(lines[1].part).toBe('x');
    // pino's children inherit `child`: the grandchild's call is counted too, with its own bindings.
    expect(child.mock.calls.filter(([b]) => 'request_id' in b)).toHaveLength(1);
    await app.close();
  });

  it('keep the request lines at info, with the request id', async () => {
    const { app, lines } = await appAt('info');
    await app.inject({ method: 'GET', url: '/quiet' });
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    expect(lines[0].request_id).toBe(lines[1].request_id);
    expect(lines[1].responseTime).toEqual(expect.any(Number));
    await app.close();
  });

  it("honour a route's own log level", async () => {
    const { app, lines } = await appAt('info');
    await app.inject({ method: 'GET', url: '/silenced' });
    expect(lines).toEqual([]);
    await app.close();
  });
});
