import type { IncomingMessage } from 'node:http';
import { bodyTooLarge } from '../errors.ts';
import { clientGone } from './multipart.ts';

/**
 * The body straight from node's stream, refused as soon as it passes `limit`. The adapter's Request
 * wraps the same stream in a WHATWG ReadableStream and an async iterator: a fifth of the CPU of a
 * small JSON POST. Left unread past the limit, the rest is discarded by node once the answer is sent.
 */
export function readBodyText(message: IncomingMessage, limit: number): Promise<string> {
  if (message.readableEnded) return Promise.resolve('');
  if (message.destroyed) return Promise.reject(clientGone());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (settleWith: () => void) => {
      message.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      settleWith();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) settle(() => reject(bodyTooLarge()));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(() => resolve(decode(chunks, size)));
    const onError = (error: Error) => settle(() => reject(error));
    const onClose = () => settle(() => reject(clientGone()));
    message.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** UTF-8 as TextDecoder reads it: a byte order mark is not part of the text. */
function decode(chunks: readonly Buffer[], size: number): string {
  const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
