// Users and API keys. A key is shown once; only its SHA-256 is stored (keys carry 256 bits of
// randomness, so a fast hash is enough — there is nothing to brute-force).
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../adapters/db/schema.js';
import { newId, nowIso } from '../../lib/ids.js';
import { prepared } from '../../adapters/db/prepared.js';
import type { ChangeSignal } from '../../adapters/db/change-signal.js';
import { VerifiedKeys } from './verified-keys.js';

export const KEY_PREFIX = 'csk_';

export interface User {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeyInfo {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

// One-shot hashing (Node ≥ 20.12) costs a fraction of a Hash object; it runs on every request.
const sha256Hex: (data: string) => string =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'hex')
    : (data) => crypto.createHash('sha256').update(data).digest('hex');

export function hashKey(key: string): string {
  return sha256Hex(key);
}

export class UsersService {
  /** Runs on every authenticated request: compiled once. */
  private readonly keyByHash;
  private readonly verified: VerifiedKeys;

  constructor(
    private readonly db: Kysely<Database>,
    /** Tells this process about key changes made by others (and them about ours). */
    private readonly keyChanges: ChangeSignal,
  ) {
    this.verified = new VerifiedKeys(keyChanges);
    this.keyByHash = prepared<Database, { user_id: string; revoked_at: string | null }, [string]>(db, (p) =>
      db.selectFrom('api_keys').select(['user_id', 'revoked_at']).where('key_hash', '=', p(0)),
    );
  }

  async createUser(name: string): Promise<User> {
    const user = { id: newId(), name, created_at: nowIso() };
    await this.db.insertInto('users').values(user).execute();
    return user;
  }

  async getUser(id: string): Promise<User | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listUsers(): Promise<User[]> {
    return this.db.selectFrom('users').selectAll().orderBy('created_at').execute();
  }

  async countUsers(): Promise<number> {
    const r = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Creates a key and returns it in clear text; this is the only time it exists outside the caller. */
  async createKey(userId: string, name = 'default'): Promise<{ key: string; info: ApiKeyInfo }> {
    if (!(await this.getUser(userId))) throw new Error(`user ${userId} not found`);
    const key = KEY_PREFIX + crypto.randomBytes(32).toString('base64url');
    const info: ApiKeyInfo = { id: newId(), user_id: userId, name, prefix: key.slice(0, 10), created_at: nowIso(), revoked_at: null };
    await this.db
      .insertInto('api_keys')
      .values({ ...info, key_hash: hashKey(key) })
      .execute();
    return { key, info };
  }

  async listKeys(userId?: string): Promise<ApiKeyInfo[]> {
    let q = this.db.selectFrom('api_keys').select(['id', 'user_id', 'name', 'prefix', 'created_at', 'revoked_at']);
    if (userId) q = q.where('user_id', '=', userId);
    return q.orderBy('created_at').execute();
  }

  /** Revokes a key; every process refuses it from its next request on (see verified-keys.ts). */
  async revokeKey(keyId: string): Promise<boolean> {
    const revoked = await this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('api_keys')
        .set({ revoked_at: nowIso() })
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .returning('key_hash')
        .executeTakeFirst();
      if (r) await this.keyChanges.announce(trx, 'revoked');
      return r?.key_hash ?? null;
    });
    if (revoked) this.verified.evict(revoked);
    return revoked !== null;
  }

  /** Resolves a presented bearer key to its user id, or null for unknown/revoked keys. */
  authenticate(key: string): string | null | Promise<string | null> {
    if (!key.startsWith(KEY_PREFIX) || key.length > 200) return null;
    const hash = hashKey(key);
    // A key verified before is answered at once (the request path's hook needs no promise then).
    return this.verified.get(hash) ?? this.lookUp(hash);
  }

  private async lookUp(hash: string): Promise<string | null> {
    const seen = this.verified.generation;
    const [row] = await this.keyByHash(hash);
    if (!row || row.revoked_at) return null;
    this.verified.set(hash, row.user_id, seen);
    return row.user_id;
  }

  async close(): Promise<void> {
    await this.keyChanges.close();
  }

  /** First start on an empty database: one user and one key, printed once by the caller. */
  async bootstrap(): Promise<{ user: User; key: string } | null> {
    if ((await this.countUsers()) > 0) return null;
    const user = await this.createUser('admin');
    const { key } = await this.createKey(user.id, 'bootstrap');
    return { user, key };
  }
}
