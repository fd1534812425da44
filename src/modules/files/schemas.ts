// TypeBox schemas of the files API (File, FileDownloadUrl, Initiate/Complete responses).
import { Type, type Static } from '@sinclair/typebox';
import { CursorQuery, DateTime, LimitQuery } from '../../http/schemas.js';

/** A string enum as JSON Schema `enum` (ajv reports it as pydantic's `enum` error). */
const StringEnum = <T extends string>(values: readonly T[], opts: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...opts });

export const FILE_SOURCES = ['UPLOAD', 'RUN_OUTPUT'] as const;
export const FILE_SORTS = ['name', 'created_at', 'size_bytes', 'source'] as const;
export type FileSort = (typeof FILE_SORTS)[number];

const FileSource = StringEnum(FILE_SOURCES, { title: 'FileSource' });

export const FileSchema = Type.Object(
  {
    id: Type.String(),
    source: FileSource,
    run_id: Type.Union([Type.String(), Type.Null()]),
    name: Type.String(),
    size_bytes: Type.Integer(),
    content_type: Type.String(),
    crc32c: Type.String({ description: 'base64 of the big-endian CRC32C of the content' }),
    created_at: DateTime,
  },
  { title: 'File' },
);
export type FileView = Static<typeof FileSchema>;

export const FileDownloadUrlSchema = Type.Object({ url: Type.String(), expires_at: DateTime }, { title: 'FileDownloadUrl' });

// A media type the client can actually send back as a header: token/token[;params], printable
// ASCII, no surrounding spaces. Anything else could never match the signed Content-Type.
const MEDIA_TYPE = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+/[A-Za-z0-9!#$%&'*+.^_`|~-]+( *;[ -~]*[!-~])?$";

export const initiateBody = (maxUploadBytes: number) =>
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 512, description: 'User-facing filename.' }),
      size_bytes: Type.Integer({ minimum: 0, maximum: maxUploadBytes, description: 'Exact size; enforced by the signed upload URL.' }),
      content_type: Type.String({
        minLength: 1,
        maxLength: 256,
        pattern: MEDIA_TYPE,
        description: 'MIME type, sent back verbatim as Content-Type.',
      }),
    },
    { additionalProperties: false, title: 'InitiateFileUploadRequest' },
  );
export interface InitiateBody {
  name: string;
  size_bytes: number;
  content_type: string;
}

export const InitiateFileUploadResponse = Type.Object(
  {
    file_id: Type.String(),
    upload_url: Type.String(),
    upload_headers: Type.Object({}, { additionalProperties: Type.String() }),
    expires_at: DateTime,
  },
  { title: 'InitiateFileUploadResponse' },
);

export const CompleteFileUploadResponse = Type.Object(
  {
    file_id: Type.String(),
    name: Type.String(),
    size_bytes: Type.Integer(),
    content_type: Type.String(),
    crc32c: Type.String(),
  },
  { title: 'CompleteFileUploadResponse' },
);
export type CompleteView = Static<typeof CompleteFileUploadResponse>;

export const ListFilesQuery = Type.Object({
  run_id: Type.Optional(Type.String({ maxLength: 200 })),
  connector_id: Type.Optional(Type.String({ maxLength: 200 })),
  filename: Type.Optional(Type.String({ maxLength: 512, description: 'Case-insensitive substring of the name.' })),
  source: Type.Optional(FileSource),
  sort: Type.Optional(StringEnum(FILE_SORTS, { default: 'created_at' })),
  order: Type.Optional(StringEnum(['asc', 'desc'] as const, { default: 'desc' })),
  limit: Type.Optional(LimitQuery),
  cursor: Type.Optional(CursorQuery),
});
export interface ListFilesParams {
  run_id?: string;
  connector_id?: string;
  filename?: string;
  source?: (typeof FILE_SOURCES)[number];
  sort: FileSort;
  order: 'asc' | 'desc';
  limit: number;
  cursor?: string;
}
