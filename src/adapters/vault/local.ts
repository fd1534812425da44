// The local vault: envelope-encrypted entries in a store of their own — a separate SQLite file
// (DATA_DIR/vault.db) next to the metadata database, or the `vault_entries` table on PostgreSQL.
// Only ciphertext is stored; the master keys live in the environment or DATA_DIR/master.key.
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import { connect, type DbHandle } from '../db/connect.js';
import { migrateVault } from '../db/migrations.js';
import type { VaultDatabase } from '../db/schema.js';
import { nowIso } from '../../lib/ids.js';
import { blobKid, open, rewrap, seal } from './envelope.js';
import { loadMasterKeyring, type MasterKeyring } from './master-key.js';
import type { CredentialVault, SecretValue, VaultRef } from './port.js';

export interface VaultStoreOptions {
  pgSchema?: string;
}

export function vaultDbPath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'vault.db');
}

export async function openVaultStore(config: Config, opts: VaultStoreOptions = {}): Promise<DbHandle<VaultDatabase>> {
  const handle = await connect<VaultDatabase>({
    url: config.databaseUrl,
    sqlitePath: vaultDbPath(config),
    pgSchema: opts.pgSchema,
    poolSize: 4,
  });
  try {
    await migrateVault(handle.db, handle.kind === 'postgres' ? opts.pgSchema : undefined);
  } catch (e) {
    await handle.close();
    throw e;
  }
  return handle;
}

function decodeValue(buf: Buffer): SecretValue {
  const v = JSON.parse(buf.toString('utf8')) as SecretValue;
  buf.fill(0);
  return v;
}

export class LocalVault implements CredentialVault {
  constructor(
    private readonly db: Kysely<VaultDatabase>,
    private ring: MasterKeyring,
    private readonly closeStore: () => Promise<void>,
    /** Re-reads the key file; lets a running server read entries rewrapped by `master-key rotate`. */
    private readonly reload?: () => MasterKeyring,
  ) {}

  private keyFor = (kid: string): Buffer | undefined => {
    const k = this.ring.get(kid);
    if (k || !this.reload) return k;
    this.ring = this.reload();
    return this.ring.get(kid);
  };

  async put(ref: VaultRef, value: SecretValue): Promise<void> {
    const kid = this.ring.currentId;
    const blob = seal(Buffer.from(JSON.stringify(value), 'utf8'), ref, kid, this.ring.get(kid)!);
    const now = nowIso();
    await this.db
      .insertInto('vault_entries')
      .values({ id: ref.secretId, owner_id: ref.ownerId, kid, blob, created_at: now, updated_at: now })
      .execute();
  }

  async get(ref: VaultRef): Promise<SecretValue | null> {
    const row = await this.db
      .selectFrom('vault_entries')
      .select(['blob'])
      .where('id', '=', ref.secretId)
      .where('owner_id', '=', ref.ownerId)
      .executeTakeFirst();
    if (!row) return null;
    return decodeValue(open(row.blob, ref, this.keyFor));
  }

  async delete(ref: VaultRef): Promise<void> {
    await this.db.deleteFrom('vault_entries').where('id', '=', ref.secretId).where('owner_id', '=', ref.ownerId).execute();
  }

  async close(): Promise<void> {
    await this.closeStore();
  }

  /** Rewraps every entry not yet under the current key; returns how many were rewrapped. */
  async rotate(): Promise<number> {
    const kid = this.ring.currentId;
    const master = this.ring.get(kid)!;
    const rows = await this.db.selectFrom('vault_entries').select(['id', 'owner_id', 'blob']).where('kid', '!=', kid).execute();
    let n = 0;
    for (const row of rows) {
      const ref = { ownerId: row.owner_id, secretId: row.id };
      const blob = rewrap(row.blob, ref, this.keyFor, kid, master);
      // Compare-and-set on the old blob: an entry deleted meanwhile is not resurrected.
      const r = await this.db
        .updateTable('vault_entries')
        .set({ blob, kid: blobKid(blob), updated_at: nowIso() })
        .where('id', '=', row.id)
        .where('blob', '=', row.blob)
        .executeTakeFirst();
      n += Number(r.numUpdatedRows) > 0 ? 1 : 0;
    }
    return n;
  }

  /** Number of entries per master key id (shows when an old key can be dropped). */
  async countByKid(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('vault_entries')
      .select((eb) => ['kid', eb.fn.countAll<number>().as('n')])
      .groupBy('kid')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.kid, Number(r.n)]));
  }
}

export async function createLocalVault(config: Config, keyring: MasterKeyring, opts: VaultStoreOptions = {}): Promise<LocalVault> {
  const handle = await openVaultStore(config, opts);
  // Keys from the environment cannot change under a running process; a key file can.
  const reload = keyring.source === 'env' ? undefined : () => loadMasterKeyring(config);
  return new LocalVault(handle.db, keyring, () => handle.close(), reload);
}
