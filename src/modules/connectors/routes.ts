// HTTP surface of /v1beta/connectors (Connectors) plus the publish/revise/definition
// extensions (marked x-extension in the OpenAPI document); rules live in service.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { ConnectorsService } from './service.js';
import { DeleteResponse, IdParam, errorResponses, listEnvelope } from '../../http/schemas.js';
import { Type } from '@sinclair/typebox';
import {
  ConnectorSchema,
  DefinitionQuery,
  DefinitionResponse,
  ListConnectorsQuery,
  PatchBody,
  PublishBody,
  ReviseBody,
  type ListConnectorsParams,
  type PublishInput,
} from './schemas.js';

const tags = ['Connectors'];
const Params = IdParam('connector_id');
type P = { connector_id: string };

export const connectorsRoutes: FastifyPluginAsync<{ connectors: ConnectorsService }> = async (app, { connectors }) => {
  app.post<{ Body: PublishInput }>(
    '/connectors',
    {
      schema: {
        tags,
        operationId: 'publishConnector',
        summary: 'Publish a connector (extension)',
        description:
          'Publishes version 1 of a hand-written connector: definition (docs/connector-definition.md), input_schema, output_schema, required_secrets; ' +
          'or synthesizes one from a recording: capture_session_id (a completed capture session) or recording_file_id (an uploaded HAR), with optional hints ' +
          '(docs/synthesis.md). A synthesized plan is replayed before it is published; when synthesis or the replay fails the answer is 422 and nothing is stored.',
        'x-extension': true,
        body: PublishBody,
        response: { 200: ConnectorSchema, ...errorResponses() },
      } as object,
    },
    async (req) => connectors.publish(req.userId, req.body),
  );

  app.get<{ Querystring: ListConnectorsParams }>(
    '/connectors',
    {
      schema: {
        tags,
        operationId: 'listConnectors',
        summary: 'List connectors',
        description: 'Newest first. domain: only connectors whose website is that domain or one of its subdomains.',
        querystring: ListConnectorsQuery,
        response: { 200: listEnvelope(ConnectorSchema, 'ListConnectorsResponse'), ...errorResponses() },
      },
    },
    async (req) => connectors.list(req.userId, req.query),
  );

  app.get<{ Params: P }>(
    '/connectors/:connector_id',
    {
      schema: {
        tags,
        operationId: 'getConnector',
        summary: 'Get a connector',
        params: Params,
        response: { 200: ConnectorSchema, ...errorResponses() },
      },
    },
    async (req) => connectors.get(req.userId, req.params.connector_id),
  );

  app.patch<{ Params: P; Body: { display_name: string } }>(
    '/connectors/:connector_id',
    {
      schema: {
        tags,
        operationId: 'updateConnector',
        summary: 'Rename a connector',
        params: Params,
        body: PatchBody,
        response: { 200: ConnectorSchema, ...errorResponses() },
      },
    },
    async (req) => connectors.rename(req.userId, req.params.connector_id, req.body.display_name),
  );

  app.delete<{ Params: P }>(
    '/connectors/:connector_id',
    {
      schema: {
        tags,
        operationId: 'deleteConnector',
        summary: 'Delete a connector',
        description: 'Its runs stay readable; it can no longer be run.',
        params: Params,
        response: { 200: DeleteResponse('DeleteConnectorResponse'), ...errorResponses() },
      },
    },
    async (req) => connectors.delete(req.userId, req.params.connector_id),
  );

  app.get<{ Params: P }>(
    '/connectors/:connector_id/revisions',
    {
      schema: {
        tags,
        operationId: 'listConnectorRevisions',
        summary: 'List connector revisions',
        description: 'Every version, newest first; the first entry is the current version.',
        params: Params,
        response: {
          200: Type.Object({ data: Type.Array(ConnectorSchema) }, { title: 'ListConnectorRevisionsResponse' }),
          ...errorResponses(),
        },
      },
    },
    async (req) => connectors.revisions(req.userId, req.params.connector_id),
  );

  app.post<{ Params: P; Body: PublishInput }>(
    '/connectors/:connector_id/revisions',
    {
      schema: {
        tags,
        operationId: 'createConnectorRevision',
        summary: 'Publish a new revision (extension)',
        description: 'Same body as publish; version + 1, the id stays. Omitted display_name, purpose and website are carried over.',
        'x-extension': true,
        params: Params,
        body: ReviseBody,
        response: { 200: ConnectorSchema, ...errorResponses() },
      } as object,
    },
    async (req) => connectors.revise(req.userId, req.params.connector_id, req.body),
  );

  app.get<{ Params: P; Querystring: { version?: number } }>(
    '/connectors/:connector_id/definition',
    {
      schema: {
        tags,
        operationId: 'getConnectorDefinition',
        summary: "Get a version's definition (extension)",
        'x-extension': true,
        params: Params,
        querystring: DefinitionQuery,
        response: { 200: DefinitionResponse, ...errorResponses() },
      } as object,
    },
    async (req) => connectors.definition(req.userId, req.params.connector_id, req.query.version),
  );
};
