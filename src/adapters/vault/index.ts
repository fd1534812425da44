// Factory of the credential vault. Today one adapter: local envelope encryption (see local.ts and
// docs/vault.md). A HashiCorp Vault / OpenBao adapter would be chosen here from the config.
import type { Config } from '../../config.js';
import type { CredentialVault } from './port.js';
import { loadMasterKeyring, type MasterKeyring } from './master-key.js';
import { createLocalVault, type VaultStoreOptions } from './local.js';

export { VaultDecryptError } from './envelope.js';

export async function createVault(config: Config, keyring: MasterKeyring, opts: VaultStoreOptions = {}): Promise<CredentialVault> {
  return createLocalVault(config, keyring, opts);
}

/**
 * Rewraps every entry's data key with the keyring's current master key (after `addKeyToFile` or
 * a new first key in MASTER_KEY). Entries already under the current key are left alone, so it is
 * safe to run again; returns the number of entries rewrapped.
 */
export async function rotateVault(config: Config, opts: VaultStoreOptions & { keyring?: MasterKeyring } = {}): Promise<number> {
  const vault = await createLocalVault(config, opts.keyring ?? loadMasterKeyring(config), opts);
  try {
    return await vault.rotate();
  } finally {
    await vault.close();
  }
}
