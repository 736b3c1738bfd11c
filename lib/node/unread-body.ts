import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * An answer given before the request's body was all read (an upload refused at its declared length
 * or cut off at its limit) closes the connection once sent. On a kept-alive connection node would
 * read and discard the rest of the body, so the client would send all of it (400 MiB) before it
 * could read the answer or send its next request.
 */
export function closeAfterAnswerIfBodyUnread(message: IncomingMessage, res: ServerResponse): void {
  if (!message.complete && !res.headersSent) res.setHeader('connection', 'close');
}
