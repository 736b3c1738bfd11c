// A multipart upload over a raw socket, for the tests of when the server refuses one: the client
// sends its body one 64 KiB piece at a time and stops as soon as the answer begins.
import { connect } from 'node:net';
import { multipartHead, parseAnswer, type RawAnswer } from './raw-http.ts';

const BOUNDARY = 'relayboundary';
const PREAMBLE = Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`);
const PIECE = Buffer.alloc(64 * 1024, 120);

export interface RawUpload {
  /** The head's headers besides host and content-type; add `content-length` or `transfer-encoding`. */
  headers: [string, string][];
  /** Chunked framing for the body. */
  chunked: boolean;
  /** File bytes to send at most (0: the head only). */
  fileBytes: number;
  /** How long without a byte from the server before giving up (default 4 s). */
  quietMs?: number;
  /** Body bytes to send on once the answer began (a client slow to notice it), then end. */
  afterAnswer?: number;
}

export interface RawUploadResult {
  answer: RawAnswer;
  /** File bytes the client had handed to its socket when the answer's first byte came. */
  sentBeforeAnswer: number;
  /** Whether the server reset the connection (the client's writes failed). */
  reset: boolean;
}

const chunk = (data: Buffer) => Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);

/** POSTs to 127.0.0.1:port; resolves once the server closed the connection; rejects after `quietMs` without a byte from it. */
export function rawUpload(port: number, target: string, upload: RawUpload): Promise<RawUploadResult> {
  const head = multipartHead(target, BOUNDARY, upload.headers);
  const frame = upload.chunked ? chunk : (data: Buffer) => data;
  const piece = frame(PIECE);
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    let sent = 0;
    let sentBeforeAnswer = -1;
    const socket = connect(port, '127.0.0.1');
    const pump = () => {
      while (sentBeforeAnswer < 0 && sent < upload.fileBytes) {
        sent += PIECE.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      if (upload.fileBytes === 0) return;
      socket.write(frame(PREAMBLE));
      pump();
    });
    let reset = false;
    socket.on('data', (data) => {
      if (sentBeforeAnswer < 0) {
        sentBeforeAnswer = sent;
        if (upload.afterAnswer) socket.end(frame(Buffer.alloc(upload.afterAnswer, 120)));
      }
      received.push(data);
    });
    const quietMs = upload.quietMs ?? 4000;
    socket.setTimeout(quietMs, () =>
      socket.destroy(new Error(`no close within ${quietMs} ms; ${sent} file bytes sent, answer so far: ${JSON.stringify(Buffer.concat(received).toString('latin1').slice(0, 200))}`)),
    );
    // a server that stopped reading may reset the connection: what arrived before it still counts
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
      reset = true;
    });
    socket.on('close', () => {
      try {
        resolve({ answer: parseAnswer(Buffer.concat(received)), sentBeforeAnswer, reset });
      } catch (error) {
        reject(error);
      }
    });
  });
}
