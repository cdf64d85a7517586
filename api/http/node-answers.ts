import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../config/logger.js';
import { DEFAULT_CONTENT_SECURITY_POLICY, PRIVATE_CACHE, SECURITY_HEADERS, VARY } from './every-answer.js';
import { errorEnvelope, statusError } from './middleware.js';

/** The status Node itself would answer for a request its parser refused (node:_http_server socketOnError). */
const PARSER_STATUS: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * Answers Node gives before the app (headers or URL over its 16 KB limit, a request that cannot be
 * read, an Expect other than 100-continue) carry the error envelope, a fresh requestId and the
 * headers of every answer, with `Connection: close`; one 'request' log line tells each.
 */
export function answerNodeRefusals(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A client that hung up, or a socket whose answer has begun: nothing can be written.
    if (error.code !== 'ECONNRESET' && socket.writable && !answerBegun(socket)) {
      const { head, body } = refusal(PARSER_STATUS[error.code ?? ''] ?? 400, logger, error.code);
      socket.write(
        `HTTP/1.1 ${head.status} ${STATUS_CODES[head.status]}\r\n${headerLines(head.headers)}\r\n${body}`,
      );
    }
    socket.destroy();
  });
  // Without a listener Node answers a bare 417 itself; the request's body is left unread.
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const { head, body } = refusal(417, logger, 'unsupported Expect');
    response.writeHead(head.status, head.headers).end(body);
  });
}

function refusal(status: number, logger: Logger, reason: string | undefined) {
  const requestId = randomUUID();
  const answer = statusError(status);
  logger.info({ requestId, status, errorCode: answer.code, reason }, 'request');
  const body = JSON.stringify(errorEnvelope(answer, requestId));
  const headers: Record<string, string> = {
    'X-Request-Id': requestId,
    Date: new Date().toUTCString(),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Vary: VARY.join(', '),
    ...SECURITY_HEADERS,
    'Content-Security-Policy': DEFAULT_CONTENT_SECURITY_POLICY,
    'Cache-Control': PRIVATE_CACHE,
    Connection: 'close',
  };
  return { head: { status, headers }, body };
}

const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');

/** Whether the socket's current response has sent its head already (Node's own check, socketOnError). */
function answerBegun(socket: Duplex): boolean {
  const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  return current?.headersSent === true;
}
