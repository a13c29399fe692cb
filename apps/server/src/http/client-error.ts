import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Node's parser codes for requests it refuses before any handler runs, and what each is answered with. */
const REFUSALS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are larger than the server accepts' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, reason: 'Payload Too Large', message: 'The chunk extensions of the request body are larger than the server accepts' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request was not received in time' },
};
const MALFORMED = { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP/1.1' };

/**
 * Node answers requests its parser refuses (headers over its limit, bytes that are not HTTP) itself, with a
 * bare status line and no body; this answers them in the API's error shape instead. Nothing of the request
 * is known to be trustworthy here, so the answer is fixed text and the connection is closed after it.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // A reset or a half-written answer leaves nothing to answer on.
    const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (error.code === 'ECONNRESET' || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const { status, reason, message } = REFUSALS[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify({ error: { code: status, message } });
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}
