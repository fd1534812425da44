// Files: two-step signed uploads, run outputs, listing, signed downloads (File, Files).
//
// A file is "pending" from POST /files until complete succeeds. Pending files are visible
// only to complete and delete; get, list, download_url and download answer 404 for them,
// because a file is "available for use" only after complete.
import { Readable } from 'node:stream';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Config } from '../../config.js';
import type { Database, FilesTable } from '../../adapters/db/schema.js';
import { andThen, prepared, type MaybePromise } from '../../adapters/db/prepared.js';
import type { BlobStore } from '../../adapters/blob/port.js';
import { conflict, notFound } from '../../lib/errors.js';
import { afterCursor, decodeCursor, toPage, type Page } from '../../lib/cursor.js';
import { isUuid, newId, nowIso } from '../../lib/ids.js';
import type { CompleteView, FileView, InitiateBody, ListFilesParams } from './schemas.js';

type FileRow = Selectable<FilesTable>;

export interface InitiateResult {
  file_id: string;
  upload_url: string;
  upload_headers: Record<string, string>;
  expires_at: string;
}

export interface RunOutputInput {
  userId: string;
  runId: string;
  connectorId: string | null;
  name: string;
  contentType: string;
  body: Buffer | Readable;
}

const FILE_KEY = /^files\/([0-9a-f-]{36})\/([0-9a-f-]{36})$/;
const blobKey = (userId: string, fileId: string) => `files/${userId}/${fileId}`;

/** Whole seconds: the signed URL carries Unix seconds, and expires_at must say the same. */
function expiryIn(ttlS: number): Date {
  return new Date((Math.floor(Date.now() / 1000) + ttlS) * 1000);
}

export function toFileView(r: FileRow): FileView {
  return {
    id: r.id,
    source: r.source,
    run_id: r.run_id,
    name: r.name,
    size_bytes: Number(r.size_bytes),
    content_type: r.content_type,
    crc32c: r.crc32c ?? '',
    created_at: r.created_at,
  };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export class FilesService {
  /** GET /files/{id} and every other by-id operation: compiled once. */
  private readonly byId;

  constructor(readonly deps: { db: Kysely<Database>; blobs: BlobStore; config: Config }) {
    const db = deps.db;
    this.byId = prepared<Database, FileRow, [string, string]>(db, (p) =>
      db.selectFrom('files').selectAll().where('id', '=', p(0)).where('user_id', '=', p(1)),
    );
  }

  private get db() {
    return this.deps.db;
  }

  /**
   * The caller's file, or 404; pending files only when `pending` is allowed. A value, not a
   * promise, when the lookup ran synchronously (SQLite); throws at once for a malformed id.
   */
  private find(userId: string, id: string, opts: { pending?: boolean } = {}): MaybePromise<FileRow> {
    if (!isUuid(id)) throw notFound('File');
    return andThen(this.byId(id, userId), ([row]) => {
      if (!row || (row.status !== 'available' && !opts.pending)) throw notFound('File');
      return row;
    });
  }

  async initiate(userId: string, body: InitiateBody): Promise<InitiateResult> {
    const id = newId();
    const key = blobKey(userId, id);
    const now = nowIso();
    const expiresAt = expiryIn(this.deps.config.uploadUrlTtlS);
    const signed = await this.deps.blobs.presignPut(key, { contentType: body.content_type, size: body.size_bytes, expiresAt });
    await this.db
      .insertInto('files')
      .values({
        id,
        user_id: userId,
        source: 'UPLOAD',
        run_id: null,
        connector_id: null,
        name: body.name,
        size_bytes: body.size_bytes,
        content_type: body.content_type,
        crc32c: null,
        status: 'pending',
        blob_key: key,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { file_id: id, upload_url: signed.url, upload_headers: signed.headers, expires_at: expiresAt.toISOString() };
  }

  async complete(userId: string, id: string): Promise<CompleteView> {
    const row = await this.find(userId, id, { pending: true });
    if (row.status === 'available') {
      return {
        file_id: row.id,
        name: row.name,
        size_bytes: Number(row.size_bytes),
        content_type: row.content_type,
        crc32c: row.crc32c ?? '',
      };
    }
    const info = await this.deps.blobs.head(row.blob_key);
    if (!info) {
      throw conflict('The file has no uploaded bytes yet: PUT them to upload_url with upload_headers, then complete');
    }
    if (info.size !== Number(row.size_bytes)) {
      throw conflict(`Storage holds ${info.size} bytes but the file was created with size_bytes ${row.size_bytes}`);
    }
    await this.db
      .updateTable('files')
      .set({ status: 'available', crc32c: info.crc32c, updated_at: nowIso() })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
    return { file_id: row.id, name: row.name, size_bytes: info.size, content_type: info.contentType, crc32c: info.crc32c };
  }

  /** The hot path of the files API: no promise at all when the lookup is synchronous. */
  get(userId: string, id: string): MaybePromise<FileView> {
    return andThen(this.find(userId, id), toFileView);
  }

  async list(userId: string, p: ListFilesParams): Promise<Page<FileView>> {
    const cursor = decodeCursor(p.cursor, p.sort, p.order, p.sort === 'size_bytes' ? 'integer' : 'string');
    let q = this.db.selectFrom('files').selectAll().where('user_id', '=', userId).where('status', '=', 'available');
    if (p.run_id !== undefined) q = q.where('run_id', '=', p.run_id);
    if (p.connector_id !== undefined) q = q.where('connector_id', '=', p.connector_id);
    if (p.source !== undefined) q = q.where('source', '=', p.source);
    if (p.filename !== undefined && p.filename !== '') {
      const pattern = `%${escapeLike(p.filename.toLowerCase())}%`;
      q = q.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
    }
    if (cursor) q = q.where((eb) => afterCursor(eb, p.sort, cursor));
    const rows = await q
      .orderBy(p.sort, p.order)
      .orderBy('id', p.order)
      .limit(p.limit + 1)
      .execute();
    const sortValue = (r: FileRow) => (p.sort === 'size_bytes' ? Number(r.size_bytes) : (r[p.sort] as string));
    return toPage(rows, p.limit, p.sort, p.order, sortValue, toFileView);
  }

  /** Deletes the row first, then the bytes: a failure leaves orphan bytes, never a listed file without them. */
  async delete(userId: string, id: string): Promise<{ id: string; deleted: true }> {
    const row = await this.find(userId, id, { pending: true });
    await this.db.deleteFrom('files').where('id', '=', row.id).where('user_id', '=', userId).execute();
    await this.deps.blobs.delete(row.blob_key);
    return { id: row.id, deleted: true };
  }

  async downloadUrl(userId: string, id: string): Promise<{ url: string; expires_at: string }> {
    const row = await this.find(userId, id);
    const expiresAt = expiryIn(this.deps.config.downloadUrlTtlS);
    const url = await this.deps.blobs.presignGet(row.blob_key, { expiresAt, filename: row.name, contentType: row.content_type });
    return { url, expires_at: expiresAt.toISOString() };
  }

  /** True when a signed PUT to `key` may store bytes: the key belongs to a file still pending. */
  /** The user a signed upload key belongs to (for per-user upload limits), or null. */
  uploadOwner(key: string): string | null {
    return FILE_KEY.exec(key)?.[1] ?? null;
  }

  async acceptsUpload(key: string): Promise<boolean> {
    const m = FILE_KEY.exec(key);
    if (!m) return false;
    const row = await this.db
      .selectFrom('files')
      .select('id')
      .where('id', '=', m[2])
      .where('user_id', '=', m[1])
      .where('blob_key', '=', key)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return !!row;
  }

  /**
   * An available file of the user's, read whole for a run that sends it (RunInputSource); null
   * when the user has no such file, 'too_large' above `maxBytes` (nothing read).
   */
  async readRunInput(userId: string, id: string, maxBytes: number) {
    let row: FileRow;
    try {
      row = await this.find(userId, id);
    } catch {
      return null;
    }
    if (Number(row.size_bytes) > maxBytes) return 'too_large' as const;
    const stream = await this.deps.blobs.get(row.blob_key);
    if (!stream) return null;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of stream) {
      size += (c as Buffer).length;
      // (The row's size was checked; bytes beyond it mean the store changed under it.)
      if (size > maxBytes) {
        stream.destroy();
        return 'too_large' as const;
      }
      chunks.push(c as Buffer);
    }
    return { name: row.name, contentType: row.content_type, data: Buffer.concat(chunks) };
  }

  /** Stores a run's output file and records it as an available RUN_OUTPUT file. */
  async saveRunOutput(input: RunOutputInput): Promise<FileView> {
    const id = newId();
    const key = blobKey(input.userId, id);
    const isBuffer = Buffer.isBuffer(input.body);
    const body = isBuffer ? Readable.from([input.body as Buffer], { objectMode: false }) : (input.body as Readable);
    const info = await this.deps.blobs.put(key, body, {
      contentType: input.contentType,
      size: isBuffer ? (input.body as Buffer).length : undefined,
    });
    const now = nowIso();
    const row: FileRow = {
      id,
      user_id: input.userId,
      source: 'RUN_OUTPUT',
      run_id: input.runId,
      connector_id: input.connectorId,
      name: input.name,
      size_bytes: info.size,
      content_type: input.contentType,
      crc32c: info.crc32c,
      status: 'available',
      blob_key: key,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.insertInto('files').values(row).execute();
    } catch (e) {
      await this.deps.blobs.delete(key).catch(() => {});
      throw e;
    }
    return toFileView(row);
  }
}
