// PostgreSQL LISTEN/NOTIFY for in-process caches shared by many processes: a process that changes
// something others cache announces it in the same transaction (pg_notify), and every listening
// process hears it once the transaction commits. Channels are per schema, so instances that share
// a database but not a schema (tests) don't hear each other.
import pg from 'pg';
import { sql, type Kysely } from 'kysely';

export function channelName(topic: string, schema: string | undefined): string {
  return `${topic}_${schema ?? 'public'}`.replace(/[^a-z0-9_]/gi, '_').slice(0, 63);
}

/** Announces `payload` on `channel` when the surrounding transaction (or statement) commits. */
export async function notify(db: Kysely<any>, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}

export interface Listener {
  /** False while the listening connection is down: callers must not trust their cache then. */
  readonly connected: boolean;
  close(): Promise<void>;
}

/**
 * Listens on `channel` with a dedicated connection; `onMessage` gets each payload. When the
 * connection drops, `onReset` runs (whatever was announced meanwhile is lost) and it reconnects.
 * `onListening` runs each time LISTEN is in place, the first time included: what was announced
 * before that moment was not heard, so a caller that must not miss anything reads its state then.
 */
export function listen(
  url: string,
  channel: string,
  onMessage: (payload: string) => void,
  onReset: () => void,
  onListening: () => void = () => {},
): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let connected = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = async () => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => n.channel === channel && onMessage(n.payload ?? ''));
    c.on('error', () => drop(c));
    c.on('end', () => drop(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (closed) return void c.end().catch(() => {});
      client = c;
      connected = true;
    } catch {
      return drop(c);
    }
    // Not in the try above: a throwing callback is no broken connection (nor a reason to crash).
    try {
      onListening();
    } catch {}
  };
  const drop = (c: pg.Client) => {
    if (client && client !== c) return;
    client = null;
    connected = false;
    onReset();
    c.end().catch(() => {});
    if (!closed && !retry) {
      retry = setTimeout(() => {
        retry = null;
        void connect();
      }, 1000).unref() as NodeJS.Timeout;
    }
  };
  const ready = connect();
  return {
    get connected() {
      return connected;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await ready;
      await client?.end().catch(() => {});
      client = null;
      connected = false;
    },
  };
}
