// "Did another process change this table?" for in-process caches (verified API keys), cheap enough
// to ask on every request. SQLite: data_version moved (any commit by another connection, e.g. the
// CLI revoking a key). PostgreSQL: a NOTIFY on the topic's channel arrived, or the listening
// connection is down (then nothing can be trusted). A process's own changes are its own to evict.
import type { Kysely } from 'kysely';
import { dataVersionFor } from './connect.js';
import { channelName, listen, notify } from './notify.js';

export interface ChangeSignal {
  /** True when another process may have changed the data since the last call. */
  changedElsewhere(): boolean;
  /** Tells other processes (PostgreSQL); call inside the transaction that makes the change. */
  announce(db: Kysely<any>, payload: string): Promise<void>;
  close(): Promise<void>;
}

export function sqliteChangeSignal(db: Kysely<any>): ChangeSignal {
  const version = dataVersionFor(db);
  if (!version) throw new Error('not a SQLite database handle');
  let seen = version();
  return {
    changedElsewhere() {
      const now = version();
      if (now === seen) return false;
      seen = now;
      return true;
    },
    announce: async () => {},
    close: async () => {},
  };
}

export function postgresChangeSignal(url: string, schema: string | undefined, topic: string): ChangeSignal {
  const channel = channelName(topic, schema);
  let heard = true; // nothing is trusted until the listener is up
  const listener = listen(
    url,
    channel,
    () => (heard = true),
    () => (heard = true),
  );
  return {
    changedElsewhere() {
      if (!listener.connected) return true;
      const h = heard;
      heard = false;
      return h;
    },
    announce: (db, payload) => notify(db, channel, payload),
    close: () => listener.close(),
  };
}
