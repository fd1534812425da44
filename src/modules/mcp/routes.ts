// HTTP face of the MCP endpoint: `POST /mcp`, the Streamable HTTP transport of the MCP SDK in
// stateless mode (a server and a transport per request, no session), behind the same Bearer API
// key as /v1beta. Tools live in tools.ts. GET (a standalone event stream) and DELETE (ending a
// session) have nothing to serve without sessions: 405, as the transport specification allows.
import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InvalidInput } from '../../lib/errors.js';
import { registerAuth, type VerifyApiKey } from '../../http/auth.js';
import { registerBodyIdleTimeout } from '../../http/body-guard.js';
import { createMcpServer, type McpDeps } from './tools.js';

export interface McpRouteOptions extends McpDeps {
  verify: VerifyApiKey;
  bodyIdleTimeoutS: number;
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });
const hide = { hide: true } as object;

export const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, opts) => {
  const { verify, bodyIdleTimeoutS, ...deps } = opts;
  registerAuth(app, verify);
  registerBodyIdleTimeout(app, bodyIdleTimeoutS);
  // A body that is not JSON is a JSON-RPC parse error here, not the REST API's 422; anything
  // else (401, 413, 415, …) is answered by the app's handler.
  app.setErrorHandler((err: FastifyError, _req, reply) => {
    if (err instanceof InvalidInput && err.problems.some((p) => p.type === 'json_invalid')) {
      return reply.code(400).send(rpcError(-32700, 'Parse error: the body is not valid JSON'));
    }
    throw err;
  });

  app.post('/mcp', { schema: hide }, async (req, reply) => {
    if (req.body === undefined) return reply.code(400).send(rpcError(-32700, 'Parse error: empty body; send a JSON-RPC message'));
    reply.hijack();
    const server = createMcpServer(deps, req.userId, req.log);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      req.log.error({ err }, 'MCP request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(rpcError(-32603, 'Internal error')));
      } else reply.raw.end();
    }
  });

  const notAllowed = async (_req: unknown, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send(rpcError(-32000, 'Method not allowed: this MCP endpoint is stateless; send every JSON-RPC message with POST'));
  app.get('/mcp', { schema: hide }, notAllowed);
  app.delete('/mcp', { schema: hide }, notAllowed);
};
