// Where synthesis reads recordings from: an uploaded HAR (files API, recording_file_id) or a
// completed capture session's stored recording (capture_session_id). The capture side is an
// interface so the capture-sessions service plugs in without this module knowing its internals.
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Database } from '../../adapters/db/schema.js';
import type { BlobStore } from '../../adapters/blob/port.js';
import type { Har } from '../../formats/recording/types.js';
import { isUuid } from '../../lib/ids.js';

/** Largest recording synthesis reads (a HAR with embedded bodies). */
export const MAX_RECORDING_BYTES = 64 * 1024 * 1024;

export class RecordingUnavailable extends Error {}

export interface CaptureRecordings {
  /** The stored recording of the caller's completed capture session; throws when it has none. */
  recording(userId: string, id: string): Promise<{ stream: Readable; size: number | null }>;
}

async function readJson(stream: Readable, what: string): Promise<Har> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of stream) {
    n += (c as Buffer).length;
    if (n > MAX_RECORDING_BYTES) throw new RecordingUnavailable(`${what} is larger than ${MAX_RECORDING_BYTES} bytes`);
    chunks.push(c as Buffer);
  }
  try {
    const har = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (!har?.log || !Array.isArray(har.log.entries)) throw new Error('log.entries missing');
    return har as Har;
  } catch (e) {
    throw new RecordingUnavailable(`${what} is not a HAR 1.2 JSON document (${(e as Error).message})`);
  }
}

export class RecordingLoader {
  constructor(private readonly deps: { db: Kysely<Database>; blobs: BlobStore; captures?: () => CaptureRecordings | null }) {}

  /** An uploaded, completed file of the caller. */
  async fromFile(userId: string, fileId: string): Promise<Har> {
    const row = isUuid(fileId)
      ? await this.deps.db
          .selectFrom('files')
          .select(['blob_key', 'status', 'name'])
          .where('id', '=', fileId)
          .where('user_id', '=', userId)
          .executeTakeFirst()
      : undefined;
    if (row?.status !== 'available')
      throw new RecordingUnavailable('no completed upload with this id (upload the HAR with POST /v1beta/files, PUT, then complete)');
    const stream = await this.deps.blobs.get(row.blob_key);
    if (!stream) throw new RecordingUnavailable('the file has no stored bytes');
    return readJson(stream, `file ${row.name}`);
  }

  async fromCapture(userId: string, sessionId: string): Promise<Har> {
    const captures = this.deps.captures?.();
    if (!captures) throw new RecordingUnavailable('capture sessions are not available on this server');
    let r: { stream: Readable };
    try {
      r = await captures.recording(userId, sessionId);
    } catch (e) {
      throw new RecordingUnavailable((e as Error).message);
    }
    return readJson(r.stream, 'the capture session recording');
  }
}
