import { AppError } from '../errors.ts';
import { largestBody, uploadMessages } from '../upload-refusals.ts';

/** Limits of one multipart body; every one is enforced while the body streams in, where the edge can. */
export interface MultipartLimits {
  /** Largest single file, in bytes. */
  maxFileBytes: number;
  /** All files together, in bytes. */
  maxTotalBytes: number;
  maxFiles: number;
  /** Lower-case name endings a file must have (`.zip`, `.tar.gz`); any name when absent. */
  allowedExtensions?: readonly string[];
}

/** One uploaded file. */
export interface UploadedFile {
  field: string;
  originalName: string;
  mimeType: string;
  size: number;
  /**
   * The temp file the Node edge streamed it into; removed after the handler returns unless the
   * handler moved it. Undefined where the body came through `request.formData()`.
   */
  path: string | undefined;
  /** The content, wherever it is kept. */
  stream(): ReadableStream<Uint8Array>;
}

export interface MultipartBody {
  /** Text fields; a repeated name keeps its last value. */
  fields: Record<string, string>;
  files: UploadedFile[];
}

export interface ParsedMultipart {
  body: MultipartBody;
  /** Removes whatever the parse left on disk. */
  cleanup(): Promise<void>;
}

/** A route's `body` option for multipart/form-data; the handler gets a `MultipartBody`. */
export interface MultipartSpec<B = MultipartBody> {
  kind: 'multipart';
  limits: MultipartLimits;
  /**
   * Set: every refusal of the form (its type, its shape, a limit) answers 400 with this before its
   * message, as the route's spec words its upload errors (the sites' `Upload failed: ...`).
   */
  refusalPrefix?: string;
  /** Carries the handler's body type; never set. */
  readonly bodyType?: B;
}

export function multipart(limits: MultipartLimits, options: { refusalPrefix?: string } = {}): MultipartSpec {
  return { kind: 'multipart', limits: { ...limits, allowedExtensions: limits.allowedExtensions?.map((e) => e.toLowerCase()) }, ...options };
}

export function isMultipartSpec(body: unknown): body is MultipartSpec<unknown> {
  return typeof body === 'object' && body !== null && (body as MultipartSpec).kind === 'multipart';
}

// The messages every reader uses, so a limit reads the same on every edge.
export const uploadErrors = {
  notMultipart: () => new AppError(415, 'Content-Type must be multipart/form-data'),
  malformed: () => new AppError(400, 'Malformed multipart body'),
  tooManyFiles: (l: MultipartLimits) => new AppError(413, uploadMessages.tooManyFiles(l)),
  fileTooLarge: (l: MultipartLimits) => new AppError(413, uploadMessages.fileTooLarge(l)),
  totalTooLarge: (l: MultipartLimits) => new AppError(413, uploadMessages.totalTooLarge(l)),
  typeNotAllowed: (l: MultipartLimits, name: string) =>
    new AppError(400, `File type not allowed: '${name}' (allowed: ${(l.allowedExtensions ?? []).join(', ')})`),
};

export const isMultipartType = (contentType: string | null) => /^multipart\/form-data\s*;/i.test(contentType ?? '');

export function extensionAllowed(limits: MultipartLimits, name: string): boolean {
  const lower = name.toLowerCase();
  return !limits.allowedExtensions || limits.allowedExtensions.some((ending) => lower.endsWith(ending));
}


/**
 * The refusal a declared `Content-Length` earns before any body byte is read, or undefined. A
 * one-file form can only break the per-file limit; any other, the total.
 */
export function declaredLengthRefusal(limits: MultipartLimits, contentLength: string | null | undefined): AppError | undefined {
  if (contentLength == null || !(Number(contentLength) > largestBody(limits))) return undefined;
  return limits.maxFiles === 1 && limits.maxFileBytes <= limits.maxTotalBytes ? uploadErrors.fileTooLarge(limits) : uploadErrors.totalTooLarge(limits);
}

/**
 * Runtimes without a raw request: `request.formData()`, which holds the whole body in memory, so the
 * declared length is checked first; the limits are then checked on what arrived.
 */
export async function readMultipartFromRequest(request: Request, limits: MultipartLimits): Promise<ParsedMultipart> {
  if (!isMultipartType(request.headers.get('content-type'))) throw uploadErrors.notMultipart();
  const refusal = declaredLengthRefusal(limits, request.headers.get('content-length'));
  if (refusal) throw refusal;
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw uploadErrors.malformed();
  }
  const body: MultipartBody = { fields: {}, files: [] };
  let total = 0;
  for (const [field, value] of form) {
    if (typeof value === 'string') {
      body.fields[field] = value;
      continue;
    }
    if (body.files.length === limits.maxFiles) throw uploadErrors.tooManyFiles(limits);
    if (!extensionAllowed(limits, value.name)) throw uploadErrors.typeNotAllowed(limits, value.name);
    if (value.size > limits.maxFileBytes) throw uploadErrors.fileTooLarge(limits);
    total += value.size;
    if (total > limits.maxTotalBytes) throw uploadErrors.totalTooLarge(limits);
    body.files.push({
      field,
      originalName: value.name,
      mimeType: value.type || 'application/octet-stream',
      size: value.size,
      path: undefined,
      stream: () => value.stream(),
    });
  }
  return { body, cleanup: async () => {} };
}
