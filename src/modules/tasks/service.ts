// The task family's rules: a task's life (not_ready → waiting_for_manual_completion → ready |
// failed), built on capture sessions, synthesis and runs through the ports in ports.ts.
// docs/tasks.md describes the states and failure categories.
import type { Kysely } from 'kysely';
import type { Database, TasksTable } from '../../adapters/db/schema.js';
import { conflict, invalid, notFound } from '../../lib/errors.js';
import { afterCursor, decodeCursor, toPage, type Page } from '../../lib/cursor.js';
import { newId, nowIso } from '../../lib/ids.js';
import { checkCreateTask } from './create-input.js';
import { TaskSynthesisError, type TaskPorts } from './ports.js';
import type {
  CreateTaskBody,
  FailureCategory,
  ListTasksQuery,
  StartManualSessionBody,
  TaskRunBody,
  TaskRunView,
  TaskView,
} from './schemas.js';
import { taskView } from './view.js';

type TaskRow = TasksTable;

/** States a task rests in until someone acts (each arrival is an event for webhooks). */
const SETTLED: readonly TaskRow['current_state'][] = ['ready', 'failed'];

/** Told of a task that became ready or failed, inside the transaction that recorded it (webhooks). */
export type TaskSettled = (trx: Kysely<Database>, row: TaskRow) => Promise<void>;

/** Longest a synthesis may hold a task before another process may take it over. */
const SYNTHESIS_LEASE_MS = 10 * 60_000;

export class TasksService {
  /** Syntheses in flight in this process, by task id: a task is synthesized once at a time. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      ports: TaskPorts;
      ownsSecret: (userId: string, secretId: string) => Promise<boolean>;
      log?: { error(obj: object, msg: string): void };
      /** Why a webhook_url can't be used (the webhooks module's rule), or null. */
      checkWebhookUrl?: (url: string) => Promise<string | null>;
      onSettled?: TaskSettled;
    },
  ) {}

  private get db() {
    return this.deps.db;
  }

  async create(userId: string, body: CreateTaskBody): Promise<TaskView> {
    const input = await checkCreateTask(body, (id) => this.deps.ownsSecret(userId, id));
    const webhookUrl = body.webhook_url ?? null;
    const refused = webhookUrl && this.deps.checkWebhookUrl ? await this.deps.checkWebhookUrl(webhookUrl) : null;
    if (refused) throw invalid(['body', 'webhook_url'], `Value error, ${refused}`, 'value_error', { input: webhookUrl });
    const now = nowIso();
    const row: TaskRow = {
      id: newId(),
      user_id: userId,
      display_name: body.display_name,
      task: body.task,
      website: body.website,
      current_state: 'not_ready',
      // Given schemas show from the start; generated ones once the connector exists.
      input_schema: input.inputSchema ? JSON.stringify(input.inputSchema) : null,
      output_schema: input.outputSchema ? JSON.stringify(input.outputSchema) : null,
      creation: JSON.stringify({
        auto_generate_schemas: input.autoGenerate,
        secrets: body.secrets ?? [],
        secret_bindings: body.secret_bindings ?? {},
      }),
      connector_id: null,
      required_secrets: null,
      capture_session_id: null,
      synthesis_lease: null,
      failure_category: null,
      failure_message: null,
      webhook_url: webhookUrl,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('tasks').values(row).execute();
    return taskView(row);
  }

  /** The caller's task or 404 (route and body schemas already made `id` a UUID). */
  private async row(userId: string, id: string): Promise<TaskRow> {
    const row = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    if (!row) throw notFound('Task');
    return row;
  }

  /**
   * The task, after catching up with a manual session that ended since it was last looked at.
   * A completed session starts synthesis in the background; the task stays waiting until it is done.
   */
  private async current(userId: string, id: string): Promise<TaskRow> {
    const row = await this.row(userId, id);
    if (row.current_state !== 'waiting_for_manual_completion' || !row.capture_session_id) return row;
    await this.settle(row, { background: true });
    return this.row(userId, id);
  }

  async get(userId: string, id: string): Promise<TaskView> {
    return taskView(await this.current(userId, id));
  }

  async list(userId: string, q: ListTasksQuery): Promise<Page<TaskView>> {
    const cursor = decodeCursor(q.cursor, 'created_at', 'desc');
    let query = this.db.selectFrom('tasks').selectAll().where('user_id', '=', userId);
    if (cursor) query = query.where((eb) => afterCursor(eb, 'created_at', cursor));
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute();
    return toPage(rows, q.limit, 'created_at', 'desc', (r) => r.created_at, taskView);
  }

  async delete(userId: string, id: string): Promise<{ id: string; deleted: true }> {
    const row = await this.row(userId, id);
    await this.db.deleteFrom('tasks').where('id', '=', row.id).execute();
    if (row.current_state === 'waiting_for_manual_completion' && row.capture_session_id) {
      const state = await this.deps.ports.sessions.state(userId, row.capture_session_id);
      if (state === 'active') await this.deps.ports.sessions.abandon(userId, row.capture_session_id).catch(() => {});
    }
    if (row.connector_id) await this.deps.ports.runs.retireConnector(userId, row.connector_id);
    return { id: row.id, deleted: true };
  }

  async startManualSession(userId: string, id: string, body: StartManualSessionBody): Promise<{ session_id: string; iframe_url: string }> {
    const row = await this.current(userId, id);
    if (row.current_state === 'waiting_for_manual_completion') {
      throw conflict(`A manual session (${row.capture_session_id}) is already in progress for this task; complete or abandon it first`);
    }
    const session = await this.deps.ports.sessions.start(userId, {
      use_proxy: body?.use_proxy ?? false,
      cookies: body?.cookies ?? [],
      start_url: row.website,
    });
    await this.update(row.id, {
      current_state: 'waiting_for_manual_completion',
      capture_session_id: session.id,
      failure_category: null,
      failure_message: null,
    });
    return { session_id: session.id, iframe_url: session.iframe_url };
  }

  /**
   * Moves every waiting task whose session has ended on (the sweep timer calls this; reads of a
   * single task do the same for it). Returns once the syntheses it started are done.
   */
  async settleWaiting(): Promise<void> {
    const rows = await this.db.selectFrom('tasks').selectAll().where('current_state', '=', 'waiting_for_manual_completion').execute();
    await Promise.all(rows.map((row) => this.settle(row, { background: false })));
  }

  /** Checks waiting tasks every `everyMs` until close(). */
  startSweeper(everyMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.settleWaiting()
        .catch((err) => this.deps.log?.error({ err }, 'task sweep failed'))
        .finally(() => (this.sweeping = null));
    }, everyMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  async retry(userId: string, id: string): Promise<TaskView> {
    const row = await this.current(userId, id);
    if (row.current_state !== 'failed') {
      throw conflict(`Only a failed task can be retried; this task is ${row.current_state}`);
    }
    const recording = row.capture_session_id ? await this.deps.ports.sessions.state(userId, row.capture_session_id) : null;
    if (recording === 'completed') {
      await this.synthesize(row, row.capture_session_id!);
    } else {
      // Nothing to build from: back to the start, ready for a new manual session.
      await this.update(row.id, { current_state: 'not_ready', failure_category: null, failure_message: null });
    }
    return taskView(await this.row(userId, id));
  }

  async run(userId: string, body: TaskRunBody): Promise<TaskRunView> {
    // task_id is a UUID already (body schema), so a miss here is a plain 404.
    const row = await this.current(userId, body.task_id);
    if (row.current_state !== 'ready' || !row.connector_id) {
      throw conflict(`Task is ${row.current_state}, not ready: complete a manual session first`);
    }
    const creation = JSON.parse(row.creation) as { secret_bindings: Record<string, string> };
    const bindings = { ...creation.secret_bindings, ...(body.secret_bindings ?? {}) };
    const args = body.arguments ?? {};
    const run = await this.deps.ports.runs.runSync(userId, { connector_id: row.connector_id, arguments: args, secret_bindings: bindings });
    return {
      id: run.id,
      task_id: row.id,
      arguments: args,
      success: run.status === 'success',
      result_json: run.status === 'success' && run.result !== null && run.result !== undefined ? JSON.stringify(run.result) : null,
      created_at: run.created_at,
      finished_at: run.finished_at,
      secret_bindings: bindings,
    };
  }

  /** Brings a waiting task up to date with its session: synthesize, fail, or keep waiting. */
  private async settle(row: TaskRow, opts: { background: boolean }): Promise<void> {
    const sessionId = row.capture_session_id!;
    const state = await this.deps.ports.sessions.state(row.user_id, sessionId);
    if (state === 'active' || state === 'completing') return;
    if (state === 'completed') {
      const job = this.synthesize(row, sessionId);
      return opts.background ? undefined : job;
    }
    const [category, message]: [FailureCategory, string] =
      state === 'abandoned'
        ? [
            'session_abandoned',
            'The manual session was abandoned before it was completed. Start a new manual session and complete it when the task is done.',
          ]
        : state === 'failed'
          ? ['session_failed', 'The manual session’s browser failed. Start a new manual session and try again.']
          : ['no_recording', 'The manual session no longer exists. Start a new manual session.'];
    // Only from waiting: two processes settling the same task fail it (and tell of it) once.
    await this.fail(row.id, sessionId, category, message, 'waiting_for_manual_completion');
  }

  private synthesize(row: TaskRow, sessionId: string): Promise<void> {
    const running = this.inFlight.get(row.id);
    if (running) return running;
    const job = this.synthesizeOnce(row, sessionId).finally(() => this.inFlight.delete(row.id));
    this.inFlight.set(row.id, job);
    return job;
  }

  /**
   * Takes the task for synthesis across processes (a shared PostgreSQL): false when another
   * process holds an unexpired lease. The lease ends with the task's next state.
   */
  private async claim(id: string): Promise<boolean> {
    const now = nowIso();
    const r = await this.db
      .updateTable('tasks')
      .set({ synthesis_lease: new Date(Date.now() + SYNTHESIS_LEASE_MS).toISOString() })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('synthesis_lease', 'is', null), eb('synthesis_lease', '<', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  private async synthesizeOnce(row: TaskRow, sessionId: string): Promise<void> {
    if (!(await this.claim(row.id))) return;
    const creation = JSON.parse(row.creation) as { auto_generate_schemas: boolean; secret_bindings: Record<string, string> };
    const given = (s: string | null) => (!creation.auto_generate_schemas && s ? (JSON.parse(s) as object) : null);
    try {
      const c = await this.deps.ports.synthesis.synthesize(row.user_id, {
        connectorId: row.connector_id,
        captureSessionId: sessionId,
        displayName: row.display_name,
        purpose: row.task,
        website: row.website,
        inputSchema: given(row.input_schema),
        outputSchema: given(row.output_schema),
        secretBindings: creation.secret_bindings,
      });
      const slots = c.required_secrets.map((s) => ({ name: s.name, type: s.type, requires_totp: !!s.supports_totp }));
      await this.update(row.id, {
        current_state: 'ready',
        connector_id: c.connector_id,
        input_schema: JSON.stringify(c.input_schema),
        output_schema: JSON.stringify(c.output_schema),
        required_secrets: JSON.stringify(slots),
        capture_session_id: sessionId,
        synthesis_lease: null,
        failure_category: null,
        failure_message: null,
      });
    } catch (e) {
      if (e instanceof TaskSynthesisError) return this.fail(row.id, sessionId, e.category, e.message);
      this.deps.log?.error({ err: e, task_id: row.id }, 'task synthesis failed');
      await this.fail(
        row.id,
        sessionId,
        'internal_error',
        'Building the connector failed unexpectedly. Retry the task; if it fails again, record the flow again.',
      );
    }
  }

  private async fail(
    id: string,
    sessionId: string,
    category: FailureCategory,
    message: string,
    from?: TaskRow['current_state'],
  ): Promise<void> {
    await this.update(
      id,
      {
        current_state: 'failed',
        capture_session_id: sessionId,
        synthesis_lease: null,
        failure_category: category,
        failure_message: message,
      },
      from,
    );
  }

  /** Writes `patch` (only while the task is in state `from`, if given); a task that settles tells onSettled in the same transaction. */
  private async update(id: string, patch: Partial<TaskRow>, from?: TaskRow['current_state']): Promise<void> {
    const write = async (db: Kysely<Database>) => {
      let q = db
        .updateTable('tasks')
        .set({ ...patch, updated_at: nowIso() })
        .where('id', '=', id);
      if (from) q = q.where('current_state', '=', from);
      return Number((await q.executeTakeFirst()).numUpdatedRows) > 0;
    };
    const onSettled = this.deps.onSettled;
    if (!onSettled || !patch.current_state || !SETTLED.includes(patch.current_state)) {
      await write(this.db);
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      if (!(await write(trx))) return;
      const row = await trx.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
      if (row) await onSettled(trx, row);
    });
  }
}
