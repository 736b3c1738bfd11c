import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

/**
 * The uploaded archive as a file of its own beside the data dir (mode 0600: it holds every secret
 * of a box), which outlives the request (the upload's temp file does not, and may be on another file system).
 */
export async function keepUpload(upload: { stream(): ReadableStream<Uint8Array> }, beside: string): Promise<string> {
  const file = join(beside, `.relay-restore-${randomUUID()}.tar.gz`);
  try {
    await pipeline(Readable.fromWeb(upload.stream() as NodeReadableStream), createWriteStream(file, { mode: 0o600, flags: 'wx' }));
    return file;
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  }
}
