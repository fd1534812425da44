// Plugs the connector family's services into the task family's ports (ports.ts): manual
// sessions are capture sessions, synthesis is the connectors' synthesizer, runs are runs.
import { DomainError, InvalidInput } from '../../lib/errors.js';
import { recordingSourceOf } from '../../formats/definition/types.js';
import { SynthesisFailed } from '../connectors/synthesis.js';
import type { CaptureSessionsService } from '../capture-sessions/service.js';
import type { ConnectorsService } from '../connectors/service.js';
import type { PublishInput } from '../connectors/schemas.js';
import type { RunsService } from '../runs/service.js';
import { TaskSynthesisError, type SynthesisRequest, type SynthesizedConnector, type TaskPorts } from './ports.js';
import { checkGivenSchemas } from './given-schemas.js';
import type { FailureCategory } from './schemas.js';

export interface TaskWiringDeps {
  connectors: ConnectorsService;
  captureSessions: CaptureSessionsService;
  runs: RunsService;
}

/** Runs `fn`; not_found from it means "not there" (null). */
async function orNull<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof DomainError && e.code === 'not_found') return null;
    throw e;
  }
}

/** A synthesis failure as a failure the task can show to the person, by the stage that failed. */
function asTaskFailure(e: InvalidInput): TaskSynthesisError {
  const stage = e instanceof SynthesisFailed ? e.stage : '';
  const category: FailureCategory =
    stage === 'read'
      ? 'no_recording'
      : stage === 'target'
        ? 'no_target_found'
        : stage === 'replay'
          ? 'validation_failed'
          : 'synthesis_failed';
  const message = e.problems.map((x) => x.msg.replace(/^Value error, /, '')).join('; ');
  return new TaskSynthesisError(
    category,
    `${message}. Start a new manual session and record the task again, making sure its result appears on screen.`,
  );
}

async function synthesize(deps: TaskWiringDeps, userId: string, req: SynthesisRequest): Promise<SynthesizedConnector> {
  const { connectors } = deps;
  const synthesis = connectors.synthesis;
  if (!synthesis) throw new TaskSynthesisError('internal_error', 'Synthesis is not available on this server.');
  const body: PublishInput = {
    display_name: req.displayName,
    purpose: req.purpose,
    website: req.website,
    capture_session_id: req.captureSessionId,
    ...(Object.keys(req.secretBindings).length ? { hints: { secrets: req.secretBindings } } : {}),
  };
  // A re-recording becomes the next revision; the previous recording tells constants from dynamic values.
  const previous = req.connectorId ? await orNull(() => connectors.definition(userId, req.connectorId!)) : null;
  const prevSource = recordingSourceOf(previous?.definition);
  let built;
  try {
    built = await synthesis.build(userId, body, prevSource && 'capture_session_id' in prevSource ? prevSource : null);
  } catch (e) {
    if (e instanceof InvalidInput) throw asTaskFailure(e);
    throw e;
  }
  const mismatch = checkGivenSchemas(built, req.inputSchema, req.outputSchema);
  if (mismatch) throw new TaskSynthesisError('schema_mismatch', mismatch);
  const publish: PublishInput = {
    display_name: req.displayName,
    purpose: req.purpose,
    website: req.website,
    definition: built.definition as unknown as Record<string, unknown>,
    input_schema: (req.inputSchema ?? built.input_schema) as Record<string, unknown>,
    output_schema: (req.outputSchema ?? built.output_schema) as Record<string, unknown>,
    required_secrets: built.required_secrets,
  };
  let c;
  try {
    c = req.connectorId && previous ? await connectors.revise(userId, req.connectorId, publish) : await connectors.publish(userId, publish);
  } catch (e) {
    // The given schemas and the plan disagree in a way only publishing sees (e.g. an argument name).
    if (e instanceof InvalidInput)
      throw new TaskSynthesisError(req.inputSchema ? 'schema_mismatch' : 'synthesis_failed', e.problems.map((x) => x.msg).join('; '));
    throw e;
  }
  return { connector_id: c.id, input_schema: c.input_schema, output_schema: c.output_schema, required_secrets: c.required_secrets ?? [] };
}

export function taskPorts(deps: TaskWiringDeps): TaskPorts {
  const { captureSessions, connectors, runs } = deps;
  return {
    sessions: {
      async start(userId, opts) {
        const s = await captureSessions.create(userId, opts);
        return { id: s.id, iframe_url: s.iframe_url! };
      },
      state: async (userId, id) => (await orNull(() => captureSessions.get(userId, id)))?.state ?? null,
      async abandon(userId, id) {
        await orNull(() => captureSessions.abandon(userId, id));
      },
    },
    synthesis: { synthesize: (userId, req) => synthesize(deps, userId, req) },
    runs: {
      async runSync(userId, req) {
        const { view } = await runs.create(userId, { ...req, async: false });
        return view;
      },
      async retireConnector(userId, connectorId) {
        await orNull(() => connectors.delete(userId, connectorId));
      },
    },
  };
}
