import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { AppError } from '../errors.ts';
import { MAX_FIELDS_BYTES } from '../upload-refusals.ts';
import {
  declaredLengthRefusal,
  extensionAllowed,
  isMultipartType,
  uploadErrors,
  type MultipartBody,
  type MultipartLimits,
  type ParsedMultipart,
} from '../http/multipart.ts';
import { boundaryOf, dispositionOf, MalformedMultipart, MultipartScanner, type ScanEvent } from './multipart-scanner.ts';

/** What node raises when the client goes away mid-body, as the error boundary knows it. */
export function clientGone(): Error {
  return Object.assign(new Error('upload aborted by the client'), { code: 'ECONNRESET' });
}

/** Text fields beyond this many are no form a page sends (formidable's default, kept). */
const MAX_FIELDS = 1000;
/** The most of one chunk scanned in one turn of the event loop: a long body never holds it. */
const SLICE_BYTES = 64 * 1024;
/** Transfer encodings that leave the bytes as they are; browsers send none. */
const PLAIN_ENCODINGS = new Set(['binary', '7bit', '8bit', 'utf-8']);

const fieldsTooLarge = () => new AppError(413, `Form fields too large: at most ${MAX_FIELDS_BYTES} bytes in all`);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

type Uploaded = MultipartBody['files'][number];

/** Where the current part's bytes go: a temp file, or a text field being collected. */
type Sink =
  | { kind: 'file'; file: Uploaded; handle: FileHandle }
  | { kind: 'field'; name: string; chunks: Buffer[] };

/** Turns the scanner's events into fields and temp files, enforcing the limits as bytes arrive. */
class PartWriter {
  readonly body: MultipartBody = { fields: {}, files: [] };
  private sink: Sink | undefined;
  private totalFileBytes = 0;
  private fieldBytes = 0;
  private fieldCount = 0;

  constructor(
    private readonly dir: string,
    private readonly limits: MultipartLimits,
  ) {}

  async take(event: ScanEvent): Promise<void> {
    switch (event.kind) {
      case 'part':
        return this.begin(event.headers);
      case 'data':
        return this.write(event.bytes);
      case 'partEnd':
        return this.end();
      case 'end':
        return;
    }
  }

  /** formidable's rule, kept: a part with a Content-Type is a file, one without is a text field. */
  private async begin(headers: Record<string, string>): Promise<void> {
    const encoding = headers['content-transfer-encoding']?.toLowerCase();
    if (encoding !== undefined && !PLAIN_ENCODINGS.has(encoding)) throw uploadErrors.malformed();
    const { name, filename } = dispositionOf(headers);
    const mimeType = headers['content-type'];
    if (!mimeType) {
      if (++this.fieldCount > MAX_FIELDS) throw fieldsTooLarge();
      this.sink = { kind: 'field', name, chunks: [] };
      return;
    }
    if (filename !== null && !extensionAllowed(this.limits, filename)) throw uploadErrors.typeNotAllowed(this.limits, filename);
    if (this.body.files.length === this.limits.maxFiles) throw uploadErrors.tooManyFiles(this.limits);
    const path = join(this.dir, `part-${this.body.files.length}`);
    const file: Uploaded = {
      field: name,
      originalName: filename ?? '',
      mimeType,
      size: 0,
      path,
      stream: () => Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>,
    };
    this.body.files.push(file);
    this.sink = { kind: 'file', file, handle: await open(path, 'wx', 0o600) };
  }

  /** A limit ends the parse at the first byte past it, before that byte is written. */
  private async write(bytes: Buffer): Promise<void> {
    const sink = this.sink;
    if (!sink) return;
    if (sink.kind === 'field') {
      this.fieldBytes += bytes.length;
      if (this.fieldBytes > MAX_FIELDS_BYTES) throw fieldsTooLarge();
      sink.chunks.push(Buffer.from(bytes));
      return;
    }
    sink.file.size += bytes.length;
    this.totalFileBytes += bytes.length;
    if (sink.file.size > this.limits.maxFileBytes) throw uploadErrors.fileTooLarge(this.limits);
    if (this.totalFileBytes > this.limits.maxTotalBytes) throw uploadErrors.totalTooLarge(this.limits);
    await sink.handle.write(bytes);
  }

  private async end(): Promise<void> {
    const sink = this.sink;
    this.sink = undefined;
    if (sink?.kind === 'field') this.body.fields[sink.name] = Buffer.concat(sink.chunks).toString('utf8');
    else if (sink) await sink.handle.close();
  }

  /** After a failure: the open file is closed so the directory can go. */
  async abandon(): Promise<void> {
    if (this.sink?.kind === 'file') await this.sink.handle.close().catch(() => undefined);
    this.sink = undefined;
  }
}

/**
 * Reads the request chunk by chunk, paused while each is scanned and written: no file is held in
 * memory, and a chunk's scan is bounded to SLICE_BYTES a turn, so other requests are served
 * meanwhile. On a failure the request stays paused; the edge closes the connection after the answer.
 */
function pump(request: IncomingMessage, scanner: MultipartScanner, writer: PartWriter): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const stop = (error?: unknown) => {
      if (settled) return;
      settled = true;
      request.off('data', onData).off('end', onEnd).off('aborted', onGone).off('error', onGone).off('close', onClose);
      if (error === undefined) resolve();
      else {
        request.pause();
        reject(error instanceof MalformedMultipart ? uploadErrors.malformed() : error);
      }
    };
    const onGone = () => stop(clientGone());
    const onClose = () => {
      if (!request.complete && !request.readableEnded) onGone();
    };
    const take = async (chunk: Buffer) => {
      for (let from = 0; from < chunk.length; from += SLICE_BYTES) {
        if (from > 0) await nextTurn();
        for (const event of scanner.push(chunk.subarray(from, from + SLICE_BYTES))) {
          await writer.take(event);
          if (settled) return;
        }
      }
    };
    // node emits 'end' right after the last chunk even while that chunk is still being written
    let taking = Promise.resolve();
    const onData = (chunk: Buffer) => {
      request.pause();
      taking = take(chunk).then(() => {
        if (!settled) request.resume();
      }, stop);
    };
    const onEnd = () =>
      void taking.then(() => {
        try {
          scanner.finish();
          stop();
        } catch (error) {
          stop(error);
        }
      });
    if (request.destroyed) return onGone();
    request.on('data', onData).on('end', onEnd).on('aborted', onGone).on('error', onGone).on('close', onClose);
    request.resume();
  });
}

/**
 * Streams the parts of a raw node request into a fresh temp directory. Limits end the parse as
 * soon as they break; an error or an abort removes the directory.
 */
export async function streamMultipart(request: IncomingMessage, limits: MultipartLimits): Promise<ParsedMultipart> {
  const contentType = request.headers['content-type'] ?? null;
  if (!isMultipartType(contentType)) throw uploadErrors.notMultipart();
  // answered before a body byte is read; the edge closes the connection after the answer
  const refusal = declaredLengthRefusal(limits, request.headers['content-length']);
  if (refusal) throw refusal;
  const boundary = boundaryOf(contentType!);
  if (!boundary) throw uploadErrors.malformed();
  const dir = await mkdtemp(join(tmpdir(), 'relay-upload-'));
  const cleanup = () => rm(dir, { recursive: true, force: true, maxRetries: 2 });
  const writer = new PartWriter(dir, limits);
  try {
    await pump(request, new MultipartScanner(boundary), writer);
    return { body: writer.body, cleanup };
  } catch (error) {
    await writer.abandon();
    await cleanup();
    throw error;
  }
}
