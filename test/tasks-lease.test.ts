// Several server processes share one database: a task whose manual session completed is
// synthesized by exactly one of them (a lease in the tasks row), and another takes over when
// the holder died (its lease expired). Two TasksService instances over the same real database
// stand for two processes; the capture and synthesis ports are recorders, because what is under
// test is the claim, not the synthesizer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/adapters/db/connect.js';
import type { Database } from '../src/adapters/db/schema.js';
import { TasksService } from '../src/modules/tasks/service.js';
import type { TaskPorts } from '../src/modules/tasks/ports.js';
import { backends } from './helpers/harness.js';
import { openScratchDb } from './helpers/scratch-db.js';

describe.each(await backends())('task synthesis lease (%s)', (backend) => {
  let h: DbHandle<Database>;
  const calls: string[] = [];

  const ports = (name: string): TaskPorts => ({
    sessions: { start: async () => ({ id: 's', iframe_url: 'x' }), state: async () => 'completed', abandon: async () => {} },
    synthesis: {
      async synthesize() {
        calls.push(name);
        await new Promise((r) => setTimeout(r, 200));
        return { connector_id: `c-${name}`, input_schema: { type: 'object' }, output_schema: { type: 'object' }, required_secrets: [] };
      },
    },
    runs: { runSync: async () => Promise.reject(new Error('unused')), retireConnector: async () => {} },
  });

  beforeAll(async () => {
    h = await openScratchDb(backend);
    await h.db.insertInto('users').values({ id: 'u1', name: 'one', created_at: new Date().toISOString() }).execute();
  });
  afterAll(async () => {
    await h?.close();
  });

  const waitingTask = async (id: string, lease: string | null = null) => {
    const now = new Date().toISOString();
    await h.db
      .insertInto('tasks')
      .values({
        id,
        user_id: 'u1',
        display_name: 'd',
        task: 't',
        website: 'http://127.0.0.1:9/',
        current_state: 'waiting_for_manual_completion',
        input_schema: null,
        output_schema: null,
        creation: JSON.stringify({ auto_generate_schemas: true, secrets: [], secret_bindings: {} }),
        connector_id: null,
        required_secrets: null,
        capture_session_id: 's',
        synthesis_lease: lease,
        failure_category: null,
        failure_message: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  };
  const stateOf = (id: string) =>
    h.db.selectFrom('tasks').select(['current_state', 'connector_id', 'synthesis_lease']).where('id', '=', id).executeTakeFirstOrThrow();

  it('synthesizes a completed session once when two processes sweep at the same time', async () => {
    calls.length = 0;
    await waitingTask('0190aaaa-0000-7000-8000-000000000001');
    const a = new TasksService({ db: h.db, ports: ports('a'), ownsSecret: async () => true });
    const b = new TasksService({ db: h.db, ports: ports('b'), ownsSecret: async () => true });
    await Promise.all([a.settleWaiting(), b.settleWaiting()]);
    expect(calls).toHaveLength(1);
    const row = await stateOf('0190aaaa-0000-7000-8000-000000000001');
    expect(row).toEqual({ current_state: 'ready', connector_id: `c-${calls[0]}`, synthesis_lease: null });
  });

  it('leaves a task alone while another process holds its lease, and takes over an expired one', async () => {
    calls.length = 0;
    const future = new Date(Date.now() + 60_000).toISOString();
    const past = new Date(Date.now() - 1000).toISOString();
    await waitingTask('0190aaaa-0000-7000-8000-000000000002', future);
    await waitingTask('0190aaaa-0000-7000-8000-000000000003', past);
    const c = new TasksService({ db: h.db, ports: ports('c'), ownsSecret: async () => true });
    await c.settleWaiting();
    expect(calls).toEqual(['c']);
    expect((await stateOf('0190aaaa-0000-7000-8000-000000000002')).current_state).toBe('waiting_for_manual_completion');
    expect(await stateOf('0190aaaa-0000-7000-8000-000000000003')).toEqual({
      current_state: 'ready',
      connector_id: 'c-c',
      synthesis_lease: null,
    });
  });
});
