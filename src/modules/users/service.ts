// Users and API keys. A key is shown once; only its SHA-256 is stored (keys carry 256 bits of
// randomness, so a fast hash is enough — there is nothing to brute-force).
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../adapters/db/schema.js';
import { newId, nowIso } from '../../lib/ids.js';
import { prepared } from '../../adapters/db/prepared.js';

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

export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

export class UsersService {
  /** Runs on every authenticated request: compiled once. */
  private readonly keyByHash;

  constructor(private readonly db: Kysely<Database>) {
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
    const r = await this.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Creates a key and returns it in clear text; this is the only time it exists outside the caller. */
  async createKey(userId: string, name = 'default'): Promise<{ key: string; info: ApiKeyInfo }> {
    if (!(await this.getUser(userId))) throw new Error(`user ${userId} not found`);
    const key = KEY_PREFIX + crypto.randomBytes(32).toString('base64url');
    const info: ApiKeyInfo = { id: newId(), user_id: userId, name, prefix: key.slice(0, 10), created_at: nowIso(), revoked_at: null };
    await this.db.insertInto('api_keys').values({ ...info, key_hash: hashKey(key) }).execute();
    return { key, info };
  }

  async listKeys(userId?: string): Promise<ApiKeyInfo[]> {
    let q = this.db.selectFrom('api_keys').select(['id', 'user_id', 'name', 'prefix', 'created_at', 'revoked_at']);
    if (userId) q = q.where('user_id', '=', userId);
    return q.orderBy('created_at').execute();
  }

  async revokeKey(keyId: string): Promise<boolean> {
    const r = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: nowIso() })
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Resolves a presented bearer key to its user id, or null for unknown/revoked keys. */
  async authenticate(key: string): Promise<string | null> {
    if (!key.startsWith(KEY_PREFIX) || key.length > 200) return null;
    const [row] = await this.keyByHash(hashKey(key));
    return row && !row.revoked_at ? row.user_id : null;
  }

  /** First start on an empty database: one user and one key, printed once by the caller. */
  async bootstrap(): Promise<{ user: User; key: string } | null> {
    if ((await this.countUsers()) > 0) return null;
    const user = await this.createUser('admin');
    const { key } = await this.createKey(user.id, 'bootstrap');
    return { user, key };
  }
}
