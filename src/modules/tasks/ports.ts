// What the task family needs from the connector family. Tasks are a thin layer: a manual session
// is a capture session, "ready" means a connector was synthesized from its recording, and a
// task-based run is an ordinary run of that connector. services.ts plugs the real services in.
import type { FailureCategory, SessionCookie } from './schemas.js';

export type CaptureState = 'active' | 'completing' | 'completed' | 'abandoned' | 'failed';

export interface ManualSessionPort {
  /** Starts a capture session for the user that opens `start_url`. */
  start(
    userId: string,
    opts: { use_proxy: boolean; cookies: SessionCookie[]; start_url: string },
  ): Promise<{ id: string; iframe_url: string }>;
  /** The session's state; null when it does not exist (or is not the user's). */
  state(userId: string, sessionId: string): Promise<CaptureState | null>;
  /** Ends an active session without keeping its recording (task deleted mid-session). */
  abandon(userId: string, sessionId: string): Promise<void>;
}

export interface SynthesisRequest {
  /** The task's connector when it has one: the result is published as its next revision. */
  connectorId: string | null;
  captureSessionId: string;
  displayName: string;
  purpose: string;
  website: string;
  /** Given schemas (auto_generate_schemas false): the connector must satisfy them. */
  inputSchema: object | null;
  outputSchema: object | null;
  /** Slot name → secret id, from the task's creation parameters. */
  secretBindings: Record<string, string>;
}

export interface SynthesizedConnector {
  connector_id: string;
  input_schema: object;
  output_schema: object;
  required_secrets: { name: string; type: 'login' | 'string'; supports_totp?: boolean }[];
}

/** A synthesis that could not produce a working connector, with advice for the person. */
export class TaskSynthesisError extends Error {
  constructor(
    readonly category: FailureCategory,
    message: string,
  ) {
    super(message);
  }
}

export interface TaskSynthesisPort {
  synthesize(userId: string, req: SynthesisRequest): Promise<SynthesizedConnector>;
}

export interface RunOutcome {
  id: string;
  status: string;
  result: unknown;
  created_at: string;
  finished_at: string | null;
}

export interface TaskRunPort {
  /** Runs the connector synchronously (validation errors surface as the runs API's 422s). */
  runSync(
    userId: string,
    req: { connector_id: string; arguments: Record<string, unknown>; secret_bindings: Record<string, string> },
  ): Promise<RunOutcome>;
  /** Soft-deletes the task's connector: its runs stay readable, it can't run any more. */
  retireConnector(userId: string, connectorId: string): Promise<void>;
}

export interface TaskPorts {
  sessions: ManualSessionPort;
  synthesis: TaskSynthesisPort;
  runs: TaskRunPort;
}
