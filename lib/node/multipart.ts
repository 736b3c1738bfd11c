import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { File } from 'formidable';
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

/** What node and formidable raise when the client goes away mid-body, as the error boundary knows it. */
export function clientGone(): Error {
  return Object.assign(new Error('upload aborted by the client'), { code: 'ECONNRESET' });
}

/**
 * formidable is imported on the first upload: loading it computes a hash of the process (its
 * cuid2 dependency) that cost about 10 ms of every cold start.
 */
const loadFormidable = () => import('formidable');
type FormidableErrors = Awaited<ReturnType<typeof loadFormidable>>['errors'];

function translate(error: unknown, limits: MultipartLimits, rejectedName: string | undefined, formidableErrors: FormidableErrors): unknown {
  if (rejectedName !== undefined) return uploadErrors.typeNotAllowed(limits, rejectedName);
  switch ((error as { code?: unknown }).code) {
    case formidableErrors.aborted:
      return clientGone();
    case formidableErrors.biggerThanMaxFileSize:
      return uploadErrors.fileTooLarge(limits);
    case formidableErrors.biggerThanTotalMaxFileSize:
      return uploadErrors.totalTooLarge(limits);
    case formidableErrors.maxFilesExceeded:
      return uploadErrors.tooManyFiles(limits);
    case formidableErrors.maxFieldsExceeded:
    case formidableErrors.maxFieldsSizeExceeded:
      return new AppError(413, `Form fields too large: at most ${MAX_FIELDS_BYTES} bytes in all`);
    case formidableErrors.malformedMultipart:
    case formidableErrors.missingMultipartBoundary:
    case formidableErrors.noParser:
    case formidableErrors.unknownTransferEncoding:
      return uploadErrors.malformed();
    default:
      return error;
  }
}

function uploaded(field: string, file: File): MultipartBody['files'][number] {
  return {
    field,
    originalName: file.originalFilename ?? '',
    mimeType: file.mimetype ?? 'application/octet-stream',
    size: file.size,
    path: file.filepath,
    stream: () => Readable.toWeb(createReadStream(file.filepath)) as ReadableStream<Uint8Array>,
  };
}

/** What formidable has but does not declare: the writes of a file, and the failure that ends a parse. */
interface WritableFile {
  write(buffer: Buffer, done: () => void): void;
}
interface FailingForm {
  _error(error: Error): void;
}

/**
 * formidable checks `maxFileSize` only when a part ends, after the whole file arrived (a 400 MiB
 * file was read to its end before its 413). This ends the parse at the first write past the limit;
 * the request then stays paused, and the edge closes the connection after the answer.
 */
function cutOffAtLimit(form: FailingForm, file: WritableFile, limits: MultipartLimits, TooLarge: FormidableErrors['default'], code: number): void {
  const write = file.write.bind(file);
  let size = 0;
  file.write = (buffer, done) => {
    size += buffer.length;
    if (size > limits.maxFileBytes) form._error(new TooLarge('file too large', code, 413));
    else write(buffer, done);
  };
}

/**
 * Streams the parts of a raw node request into a fresh temp directory (formidable pauses the
 * request while each chunk is written, so no file is ever held in memory). Limits end the parse as
 * soon as they break; an error or an abort removes the directory.
 */
export async function streamMultipart(request: IncomingMessage, limits: MultipartLimits): Promise<ParsedMultipart> {
  if (!isMultipartType(request.headers['content-type'] ?? null)) throw uploadErrors.notMultipart();
  // answered before a body byte is read; the edge closes the connection after the answer
  const refusal = declaredLengthRefusal(limits, request.headers['content-length']);
  if (refusal) throw refusal;
  const { default: formidable, errors: formidableErrors } = await loadFormidable();
  const dir = await mkdtemp(join(tmpdir(), 'relay-upload-'));
  const cleanup = () => rm(dir, { recursive: true, force: true, maxRetries: 2 });
  let rejectedName: string | undefined;
  const form = formidable({
    uploadDir: dir,
    maxFiles: limits.maxFiles,
    maxFileSize: limits.maxFileBytes,
    maxTotalFileSize: limits.maxTotalBytes,
    maxFieldsSize: MAX_FIELDS_BYTES,
    allowEmptyFiles: true,
    minFileSize: 0,
    filter: ({ originalFilename }) => {
      if (originalFilename == null || extensionAllowed(limits, originalFilename)) return true;
      rejectedName ??= originalFilename;
      form.emit('error', new formidableErrors.default('file type not allowed', 0, 400));
      return false;
    },
  });
  // formidable groups files by field, in the order their writes finished; the handler gets the body's order.
  const begun: [string, File][] = [];
  form.on('fileBegin', (field, file) => {
    begun.push([field, file]);
    cutOffAtLimit(form as unknown as FailingForm, file as unknown as WritableFile, limits, formidableErrors.default, formidableErrors.biggerThanMaxFileSize);
  });
  try {
    const [fields] = await form.parse(request);
    const body: MultipartBody = { fields: {}, files: begun.map(([field, file]) => uploaded(field, file)) };
    for (const [name, values] of Object.entries(fields)) if (values?.length) body.fields[name] = values[values.length - 1]!;
    return { body, cleanup };
  } catch (error) {
    await cleanup();
    throw translate(error, limits, rejectedName, formidableErrors);
  }
}
