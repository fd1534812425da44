// Plugs the connector family's services into the task family's ports (ports.ts).
import { HttpError } from '../../http/errors.js';
import type { CaptureSessionsService } from '../capture-sessions/service.js';
import type { ConnectorsService } from '../connectors/service.js';
import type { TaskPorts } from './ports.js';

export interface TaskWiringDeps {
  connectors: ConnectorsService;
  captureSessions: CaptureSessionsService;
}

const unavailable = (what: string) => async (): Promise<never> => {
  throw new HttpError(503, `${what} is not available in this build`);
};

/** Runs `fn`; a 404 from it means "not there" (null). */
async function orNull<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof HttpError && e.statusCode === 404) return null;
    throw e;
  }
}

export function taskPorts(deps: TaskWiringDeps): TaskPorts {
  const { captureSessions, connectors } = deps;
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
    // TODO(merge): synthesis and runs plug in here when their modules land.
    synthesis: { synthesize: unavailable('Synthesis') },
    runs: {
      runSync: unavailable('Runs'),
      async retireConnector(userId, connectorId) {
        await orNull(() => connectors.delete(userId, connectorId));
      },
    },
  };
}
