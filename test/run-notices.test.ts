// Run notices on PostgreSQL: a terminal write announces the ids of the runs a caller may be
// waiting for (sync runs) on the runs_ended channel, and only those — a bulk of async runs, which
// nobody waits on, sends nothing (each NOTIFY serializes commits on PostgreSQL's queue).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelName } from '../src/adapters/db/notify.js';
import { backends, type Harness, PG_URL, startHarness } from './helpers/harness.js';
import { publish, run, waitRun } from './helpers/runs.js';

const withPg = (await backends()).includes('postgres');

describe.skipIf(!withPg)('run notices (postgres)', () => {
  let h: Harness;
  let target: http.Server;
  let listener: pg.Client;
  const heard: string[] = [];
  beforeAll(async () => {
    target = http.createServer((_req, res) => res.end('{}'));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    h = await startHarness('postgres');
    listener = new pg.Client({ connectionString: PG_URL });
    await listener.connect();
    listener.on('notification', (n) => heard.push(...(n.payload ?? '').split(',')));
    await listener.query(`LISTEN ${channelName('runs_ended', h.pgSchema)}`);
  });
  afterAll(async () => {
    await listener?.end();
    await h?.close();
    await new Promise((r) => target?.close(r));
  });

  it('a sync run is announced when it ends; async runs are not', async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        steps: [{ id: 'get', url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/` }],
        result: {},
      },
    });
    const queued = await Promise.all(
      Array.from(
        { length: 5 },
        async () => (await h.api('POST', '/v1beta/runs', { connector_id: c.id, arguments: {}, async: true })).json.id,
      ),
    );
    for (const id of queued) expect((await waitRun(h, id)).status).toBe('success');
    const sync = await run(h, { connector_id: c.id, arguments: {} });
    expect(sync.status).toBe('success');
    await expect.poll(() => heard.includes(sync.id)).toBe(true);
    expect(heard.filter((id) => queued.includes(id))).toEqual([]);
  });
});
