// Secrets: metadata rows in SQL, credential values only in the vault. The type rules of the API
// live here so every caller (routes, runs, capture-session paste) applies the same ones.
import type { Kysely } from 'kysely';
import type { Database, SecretsTable } from '../../adapters/db/schema.js';
import type { CredentialVault, SecretValue } from '../../adapters/vault/port.js';
import { InvalidInput, conflict, notFound, type Problem } from '../../lib/errors.js';
import { isUuid, newId, nowIso } from '../../lib/ids.js';
import { parseTotpSecret, totpCode } from '../../lib/totp.js';

export type SecretType = 'login' | 'string';

export interface SecretMeta {
  id: string;
  user_id: string;
  name: string;
  secret_type: SecretType;
  website: string | null;
  has_totp: boolean;
  created_at: string;
  updated_at: string;
}

export interface CreateSecretInput {
  name: string;
  secret_type: SecretType;
  username?: string | null;
  password?: string | null;
  totp_secret?: string | null;
  value?: string | null;
  website?: string | null;
}

const FIELDS_OF: Record<SecretType, readonly ('username' | 'password' | 'totp_secret' | 'value')[]> = {
  login: ['username', 'password', 'totp_secret'],
  string: ['value'],
};

const toMeta = (r: SecretsTable): SecretMeta => ({ ...r, has_totp: !!r.has_totp });

/** Applies the type rules; returns the value to store. Entries carry no `input` (credentials). */
export function secretValueFrom(input: CreateSecretInput): SecretValue {
  const t = input.secret_type;
  const errors: Problem[] = [];
  const present = (f: keyof CreateSecretInput) => input[f] !== undefined && input[f] !== null;
  for (const f of ['username', 'password', 'totp_secret', 'value'] as const) {
    if (present(f) && !FIELDS_OF[t].includes(f)) {
      errors.push({ loc: ['body', f], type: 'value_error', msg: `Value error, ${f} is not allowed when secret_type is '${t}'` });
    }
  }
  const required = t === 'login' ? (['username', 'password'] as const) : (['value'] as const);
  for (const f of required) {
    if (!present(f)) errors.push({ loc: ['body', f], type: 'missing', msg: `Field required when secret_type is '${t}'` });
  }
  let totp: string | null = null;
  if (t === 'login' && present('totp_secret')) {
    totp = parseTotpSecret(input.totp_secret!);
    if (!totp) {
      errors.push({
        loc: ['body', 'totp_secret'],
        type: 'value_error',
        msg: 'Value error, totp_secret must be base32 (letters A-Z and digits 2-7; spaces, dashes and = padding are ignored) with at least 16 characters',
      });
    }
  }
  if (errors.length) throw new InvalidInput(errors);
  return t === 'login'
    ? { type: 'login', username: input.username!, password: input.password!, totp_secret: totp }
    : { type: 'string', value: input.value! };
}

export class SecretsService {
  constructor(private readonly deps: { db: Kysely<Database>; vault: CredentialVault }) {}

  async list(userId: string): Promise<SecretMeta[]> {
    const rows = await this.deps.db
      .selectFrom('secrets')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toMeta);
  }

  /** Metadata of a user's secret; null for a malformed, unknown or another user's id. */
  async get(userId: string, id: string): Promise<SecretMeta | null> {
    if (!isUuid(id)) return null;
    const row = await this.deps.db.selectFrom('secrets').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return row ? toMeta(row) : null;
  }

  /**
   * Creates metadata and vault entry together: the row is inserted inside a transaction that
   * commits only after the vault accepted the value, so a failed put leaves no row behind.
   */
  async create(userId: string, input: CreateSecretInput): Promise<SecretMeta> {
    const value = secretValueFrom(input);
    const now = nowIso();
    const row: SecretsTable = {
      id: newId(),
      user_id: userId,
      name: input.name,
      secret_type: input.secret_type,
      website: input.website ?? null,
      has_totp: value.type === 'login' && value.totp_secret ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    const ref = { ownerId: userId, secretId: row.id };
    let stored = false;
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        await trx.insertInto('secrets').values(row).execute();
        await this.deps.vault.put(ref, value);
        stored = true;
      });
    } catch (e) {
      // The commit failed after the put: remove the orphaned vault entry.
      if (stored) await this.deps.vault.delete(ref).catch(() => {});
      throw e;
    }
    return toMeta(row);
  }

  /** Metadata and credential of a user's secret (for runs and capture-session paste). */
  async resolve(userId: string, secretId: string): Promise<{ meta: SecretMeta; value: SecretValue } | null> {
    const meta = await this.get(userId, secretId);
    if (!meta) return null;
    const value = await this.deps.vault.get({ ownerId: userId, secretId });
    // A row without a vault entry is a secret being deleted right now: delete() removes the
    // entry before its transaction commits, so a reader can still see the row (PostgreSQL
    // shows it until the commit). To the caller it is gone: not found, never a 500.
    if (!value) return null;
    return { meta, value };
  }

  /** The current TOTP code; 404 for an unknown secret, 409 when it has no TOTP seed. */
  async currentTotp(userId: string, secretId: string, atMs: number = Date.now()): Promise<string> {
    const meta = await this.get(userId, secretId);
    if (!meta) throw notFound('Secret');
    if (meta.secret_type !== 'login') {
      throw conflict('Secret is a string secret; TOTP codes exist only for login secrets with a TOTP seed');
    }
    if (!meta.has_totp) throw conflict('Secret has no TOTP seed configured');
    const r = await this.resolve(userId, secretId);
    if (!r) throw notFound('Secret'); // deleted meanwhile
    if (r.value.type !== 'login' || !r.value.totp_secret) throw conflict('Secret has no TOTP seed configured');
    return totpCode(r.value.totp_secret, atMs);
  }

  /**
   * Deletes metadata and vault entry. The row is deleted inside a transaction that commits only
   * after the vault entry is gone, so a failed vault delete leaves the secret intact (retryable).
   */
  async delete(userId: string, secretId: string): Promise<boolean> {
    if (!isUuid(secretId)) return false;
    return this.deps.db.transaction().execute(async (trx) => {
      const r = await trx.deleteFrom('secrets').where('id', '=', secretId).where('user_id', '=', userId).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) return false;
      await this.deps.vault.delete({ ownerId: userId, secretId });
      return true;
    });
  }
}
