// HTTP surface of the files module (Files); rules live in service.ts.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { FilesService } from './service.js';
import { DeleteResponse, IdParam, errorResponses, listEnvelope } from '../../http/schemas.js';
import {
  CompleteFileUploadResponse,
  FileDownloadUrlSchema,
  FileSchema,
  InitiateFileUploadResponse,
  ListFilesQuery,
  initiateBody,
  type InitiateBody,
  type ListFilesParams,
} from './schemas.js';

const tags = ['Files'];
const FileIdParam = IdParam('file_id');
type FileIdParams = { file_id: string };

export const filesRoutes: FastifyPluginAsync<{ files: FilesService; maxUploadBytes: number }> = async (app, { files, maxUploadBytes }) => {
  app.get<{ Querystring: ListFilesParams }>(
    '/files',
    {
      schema: {
        tags,
        operationId: 'listFiles',
        summary: 'List files',
        description: 'Uploads and run outputs that are available (completed), newest first by default.',
        querystring: ListFilesQuery,
        response: { 200: listEnvelope(FileSchema, 'ListFilesResponse'), ...errorResponses() },
      },
    },
    async (req) => files.list(req.userId, req.query),
  );

  app.post<{ Body: InitiateBody }>(
    '/files',
    {
      schema: {
        tags,
        operationId: 'createFileUpload',
        summary: 'Initiate a file upload',
        description: 'Creates a pending file. PUT the bytes to upload_url with upload_headers verbatim, then call complete.',
        body: initiateBody(maxUploadBytes),
        response: { 200: InitiateFileUploadResponse, ...errorResponses() },
      },
    },
    async (req) => files.initiate(req.userId, req.body),
  );

  app.post<{ Params: FileIdParams }>(
    '/files/:file_id/complete',
    {
      schema: {
        tags,
        operationId: 'completeFileUpload',
        summary: 'Complete a file upload',
        description: 'Makes a pending file available once its bytes are stored; 409 while they are missing. Idempotent.',
        params: FileIdParam,
        response: { 200: CompleteFileUploadResponse, ...errorResponses(409) },
      },
    },
    async (req) => files.complete(req.userId, req.params.file_id),
  );

  app.get<{ Params: FileIdParams }>(
    '/files/:file_id',
    {
      schema: {
        tags,
        operationId: 'getFile',
        summary: 'Get file metadata',
        params: FileIdParam,
        response: { 200: FileSchema, ...errorResponses() },
      },
    },
    // Not async: the file comes back as a value when the lookup is synchronous (SQLite).
    (req) => files.get(req.userId, req.params.file_id),
  );

  app.delete<{ Params: FileIdParams }>(
    '/files/:file_id',
    {
      schema: {
        tags,
        operationId: 'deleteFile',
        summary: 'Delete a file',
        description: 'Deletes the file and its stored bytes; signed URLs issued for it stop working.',
        params: FileIdParam,
        response: { 200: DeleteResponse('DeleteFileResponse'), ...errorResponses() },
      },
    },
    async (req) => files.delete(req.userId, req.params.file_id),
  );

  app.get<{ Params: FileIdParams }>(
    '/files/:file_id/download_url',
    {
      schema: {
        tags,
        operationId: 'getFileDownloadUrl',
        summary: 'Get a signed download URL',
        params: FileIdParam,
        response: { 200: FileDownloadUrlSchema, ...errorResponses() },
      },
    },
    async (req) => files.downloadUrl(req.userId, req.params.file_id),
  );

  app.get<{ Params: FileIdParams }>(
    '/files/:file_id/download',
    {
      schema: {
        tags,
        operationId: 'downloadFile',
        summary: 'Download a file',
        description: 'Redirects (307) to a short-lived signed URL serving the bytes.',
        params: FileIdParam,
        response: { 307: Type.Null({ description: 'Location holds the signed URL.' }), ...errorResponses() },
      },
    },
    async (req, reply) => {
      const { url } = await files.downloadUrl(req.userId, req.params.file_id);
      return reply.redirect(url, 307);
    },
  );
};
