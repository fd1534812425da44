// The shapes a worker may send to the parent. A worker is treated as hostile (it runs connector
// code; a bug or an escape could make it send anything), so pool.ts checks every message against
// these before believing any of it; a message that fits none stops the worker and fails the run.
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { MAX_PROGRESS_LABEL, MAX_PROGRESS_STEP } from './progress.js';

const ERROR_TYPES = [
  'auth_required',
  'invalid_input',
  'site_unavailable',
  'anti_bot',
  'site_changed',
  'internal_error',
  'crash',
  'unhandled',
] as const;

const LogLines = Type.Array(Type.Object({ at: Type.String({ maxLength: 64 }), line: Type.String() }));
/** The worker's cumulative count of log lines it dropped over RUN_LOG_MAX_BYTES (log-cap.ts). */
const Dropped = Type.Optional(Type.Integer({ minimum: 0 }));
const RunErrorShape = Type.Object({
  type: Type.Union(ERROR_TYPES.map((t) => Type.Literal(t))),
  message: Type.String({ maxLength: 100_000 }),
  retryable: Type.Union([Type.Boolean(), Type.Null()]),
  exception: Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]),
  details: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
});

const Count = Type.Integer({ minimum: 0, maximum: MAX_PROGRESS_STEP });
/** Which of the worker's jobs a message is about: the number the parent gave it with the job. */
const Seq = Type.Integer({ minimum: 1 });

const Message = Type.Union([
  Type.Object({ t: Type.Literal('logs'), seq: Seq, lines: LogLines, dropped: Dropped }),
  // "step n of m" (of null: not known ahead, e.g. a script's requests). The parent keeps the latest.
  Type.Object(
    {
      t: Type.Literal('progress'),
      seq: Seq,
      step: Count,
      of: Type.Union([Count, Type.Null()]),
      label: Type.String({ maxLength: MAX_PROGRESS_LABEL }),
    },
    { additionalProperties: false },
  ),
  Type.Object({
    t: Type.Literal('rpc'),
    seq: Seq,
    id: Type.Integer({ minimum: 0 }),
    method: Type.String({ maxLength: 200 }),
    params: Type.Unknown(),
  }),
  // `size` from the worker is ignored: the parent measures the JSON it received (finding 6).
  Type.Object({
    t: Type.Literal('done'),
    seq: Seq,
    outcome: Type.Literal('ok'),
    json: Type.String(),
    logs: Type.Optional(LogLines),
    logsDropped: Dropped,
  }),
  Type.Object({
    t: Type.Literal('done'),
    seq: Seq,
    outcome: Type.Literal('too_large'),
    size: Type.Integer({ minimum: 0 }),
    logs: Type.Optional(LogLines),
    logsDropped: Dropped,
  }),
  Type.Object({
    t: Type.Literal('done'),
    seq: Seq,
    outcome: Type.Literal('error'),
    error: RunErrorShape,
    logs: Type.Optional(LogLines),
    logsDropped: Dropped,
  }),
  Type.Object({ t: Type.Literal('done'), seq: Seq, outcome: Type.Literal('timeout'), logs: Type.Optional(LogLines), logsDropped: Dropped }),
  // The answer to the parent's `stop` of a run it gave up on (a shared worker's timeout or cancel).
  Type.Object({ t: Type.Literal('done'), seq: Seq, outcome: Type.Literal('stopped') }),
]);
export type WorkerMessage = Static<typeof Message>;
const check = TypeCompiler.Compile(Message);

/** Largest details object of a RunError a worker may report (stored with the run). */
const MAX_DETAILS_BYTES = 100_000;

/** The message if it has a known shape, else why not. */
export function parseWorkerMessage(m: unknown): WorkerMessage | { invalid: string } {
  if (!check.Check(m)) {
    const t = m && typeof m === 'object' && typeof (m as { t?: unknown }).t === 'string' ? (m as { t: string }).t.slice(0, 40) : typeof m;
    return { invalid: `a malformed or unknown message (${t})` };
  }
  if (m.t === 'progress' && m.of !== null && m.step > m.of) return { invalid: `progress step ${m.step} of ${m.of}` };
  if (m.t === 'done' && m.outcome === 'error' && m.error.details !== null) {
    // Details are stored as JSON: only plain JSON data of a bounded size (the structured-clone
    // channel could carry Maps, BigInts, cycles).
    let json: string | undefined;
    try {
      json = JSON.stringify(m.error.details);
    } catch {
      json = undefined;
    }
    if (json === undefined || Buffer.byteLength(json) > MAX_DETAILS_BYTES)
      return { invalid: 'an error whose details are not plain JSON of at most 100 kB' };
    m.error.details = JSON.parse(json);
  }
  return m;
}
