// The HTTP edge: Node/Fastify server limits from the config, and {"detail"} answers for the
// errors raised before a route runs (router and HTTP parser), so every 4xx has one shape.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyHttpOptions, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

type EdgeConfig = Pick<Config, 'httpHeadersTimeoutS' | 'httpRequestTimeoutS' | 'httpKeepAliveTimeoutS'>;

/**
 * Longest raw (still percent-encoded) path parameter the router accepts. Schemas allow ids of
 * up to 200 characters; encoded, one character can take 12 bytes (4-byte UTF-8 as %XX), so a
 * legal id always fits and reaches its schema (422 string_too_long beyond 200). Only absurd
 * paths get the router's 414.
 */
export const MAX_PARAM_LENGTH = 200 * 12;

/** Fastify options for the timeouts. Node checks headers/request timeouts on an interval: keep it short. */
export function edgeServerOptions(cfg: EdgeConfig): FastifyHttpOptions<http.Server> {
  const headersTimeout = cfg.httpHeadersTimeoutS * 1000;
  const requestTimeout = cfg.httpRequestTimeoutS * 1000;
  return {
    // No socket idle timeout: a sync run may legitimately keep a request silent for up to an
    // hour. Silence is bounded where it is abuse: headers, body (body-guard.ts), keep-alive.
    connectionTimeout: 0,
    keepAliveTimeout: cfg.httpKeepAliveTimeoutS * 1000,
    requestTimeout,
    http: {
      headersTimeout,
      requestTimeout,
      // Node's default 30 s check made unfinished headers live ~89 s; check 4× per headers timeout.
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    clientErrorHandler,
    frameworkErrors,
  };
}

function rawJson(socket: Socket, status: number, detail: string) {
  const body = JSON.stringify({ detail });
  socket.write(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout: the request headers or body did not arrive in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request header fields too large'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'Bad request: invalid Content-Length'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'Bad request: Content-Length together with Transfer-Encoding'],
};

/**
 * Node's HTTP parser rejected the request (malformed, headers too large, too slow): answer with
 * a {"detail"} body, then close — the connection's framing can no longer be trusted.
 */
function clientErrorHandler(err: NodeJS.ErrnoException & { bytesParsed?: number }, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad request: malformed HTTP request'];
  // As Node's own handler: a status line only if no response has started on this socket
  // (a request timeout can strike while the route still waits for the body).
  const res = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !res?.headersSent) rawJson(socket, status, detail);
  socket.destroy();
}

/** Router-level errors (bad percent-encoding, absurdly long path parameter). */
function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return reply.code(414).send({ detail: 'URI too long: a path parameter is longer than any valid id' });
  if (err.code === 'FST_ERR_BAD_URL')
    return reply.code(400).send({ detail: 'Bad request: the URL path is not valid percent-encoded UTF-8' });
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
  return reply.code(status).send({ detail: 'Bad request' });
}
