// What the run runtime needs from the rest of the service, and nothing more. The composition root
// (src/services.ts) plugs the connectors, secrets and files services in; the runtime never
// imports a module.
import type { Readable } from 'node:stream';
import type { Kysely, Selectable } from 'kysely';
import type { Database, RunsTable } from '../adapters/db/schema.js';
import type { ConnectorDefinition, SecretSlot } from '../formats/definition/types.js';
import type { SecretValue } from '../formats/secret.js';

/** One published version of a connector, as a run executes it. */
export interface ConnectorVersion {
  connectorId: string;
  userId: string;
  version: number;
  deleted: boolean;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  requiredSecrets: SecretSlot[];
  definition: ConnectorDefinition;
}

/** Published versions by owner, id and number (null when missing or not the owner's). */
export interface VersionSource {
  resolveVersion(userId: string, connectorId: string, version: number): Promise<ConnectorVersion | null>;
}

/** Stored secrets bound to a run's slots. */
export interface SecretResolver {
  resolve(userId: string, secretId: string): Promise<{ value: SecretValue } | null>;
}

/** Where a run's output files go. */
export interface RunOutputSink {
  saveRunOutput(input: {
    userId: string;
    runId: string;
    connectorId: string | null;
    name: string;
    contentType: string;
    body: Buffer | Readable;
  }): Promise<{
    id: string;
    name: string;
    size_bytes: number;
  }>;
}

/** Uploaded files a run sends (a `file` body or part): the caller's own, available ones. */
export interface RunInputSource {
  /**
   * The bytes of the user's available file, or null when there is none (missing, pending, another
   * user's). `maxBytes`: a larger file is refused before a byte is read ('too_large').
   */
  readRunInput(
    userId: string,
    fileId: string,
    maxBytes: number,
  ): Promise<{ name: string; contentType: string; data: Buffer } | null | 'too_large'>;
}

/**
 * Told of runs that reached a terminal status, inside the transaction that wrote it (with the
 * rows as written), so whatever it records commits together with the terminal state (webhooks).
 */
export type RunsFinished = (trx: Kysely<Database>, rows: Selectable<RunsTable>[]) => Promise<void>;
