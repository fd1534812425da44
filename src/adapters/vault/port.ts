// The credential vault: the only place secret values live. Metadata stays in SQL.
import type { SecretValue } from '../../formats/secret.js';

export type { SecretValue };

export interface VaultRef {
  ownerId: string;
  secretId: string;
}

export interface CredentialVault {
  put(ref: VaultRef, value: SecretValue): Promise<void>;
  /** null when the entry does not exist (or belongs to another owner). */
  get(ref: VaultRef): Promise<SecretValue | null>;
  delete(ref: VaultRef): Promise<void>;
  close(): Promise<void>;
}
