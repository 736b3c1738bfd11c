import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a connection answered before its body was read keeps discarding what still arrives. */
const LINGER_MS = 2000;

/**
 * An answer given before the request's body was all read (an upload refused at its declared length
 * or cut off at its limit) closes the connection once sent. On a kept-alive connection node would
 * read and discard the rest of the body, so the client would send all of it (400 MiB) before it
 * could read the answer or send its next request.
 */
export function closeAfterAnswerIfBodyUnread(message: IncomingMessage, res: ServerResponse): void {
  if (message.complete || res.headersSent) return;
  res.setHeader('connection', 'close');
  res.once('finish', () => linger(message));
}

/**
 * Node destroys the socket as soon as the answer's FIN is out; with the client's body still
 * arriving that is a reset, and a client still sending may lose the answer it has not read yet
 * (curl: "Send failure: Broken pipe" instead of the 413). As nginx's lingering close does, what
 * still arrives is discarded until the client closes its side (clients stop sending once they read
 * the answer), for at most LINGER_MS.
 */
function linger(message: IncomingMessage): void {
  const { socket } = message;
  if (socket.destroyed) return;
  socket.removeListener('finish', socket.destroy);
  message.removeAllListeners('data');
  message.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
}
