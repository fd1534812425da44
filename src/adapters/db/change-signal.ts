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

/**
 * data_version is read once per event-loop turn: the requests parsed in one turn share the answer
 * (under load, dozens of them; reading it costs a statement and two file-lock calls). A change
 * committed elsewhere during that turn is seen by the next turn's first request. That is the same
 * bound PostgreSQL has, where the NOTIFY is read by the event loop too: a request racing the
 * revocation may pass, none that starts after the turn it was committed in.
 */
export function sqliteChangeSignal(db: Kysely<any>): ChangeSignal {
  const version = dataVersionFor(db);
  if (!version) throw new Error('not a SQLite database handle');
  let seen = version();
  let readThisTurn = false;
  const nextTurn = () => {
    readThisTurn = false;
  };
  return {
    changedElsewhere() {
      if (readThisTurn) return false;
      readThisTurn = true;
      setImmediate(nextTurn);
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
