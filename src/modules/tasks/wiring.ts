// Plugs the connector family's services into the task family's ports (ports.ts).
import { HttpError } from '../../http/errors.js';
import type { ConnectorsService } from '../connectors/service.js';
import type { TaskPorts } from './ports.js';

export interface TaskWiringDeps {
  connectors: ConnectorsService;
}

const unavailable = (what: string) => async (): Promise<never> => {
  throw new HttpError(503, `${what} is not available in this build`);
};

export function taskPorts(deps: TaskWiringDeps): TaskPorts {
  return {
    // TODO(merge): capture sessions, synthesis and runs plug in here when their modules land.
    sessions: { start: unavailable('Capture sessions'), state: async () => null, abandon: async () => {} },
    synthesis: { synthesize: unavailable('Synthesis') },
    runs: {
      runSync: unavailable('Runs'),
      async retireConnector(userId, connectorId) {
        await deps.connectors.delete(userId, connectorId).catch((e) => {
          // Already gone is fine: the task is being deleted either way.
          if (!(e instanceof HttpError && e.statusCode === 404)) throw e;
        });
      },
    },
  };
}
