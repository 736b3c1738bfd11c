// What an upload's limits allow and the words of its refusals, shared by the server's refusals, nginx's
// body limit and the panel's own check before it sends (so a file refused in the page reads as the
// server would refuse it). No imports: the panel's bundle takes this file as it is.

export interface UploadCaps {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFiles: number;
}

/** The platform spec's words before every refusal of a site upload (400 `Upload failed: ...`). */
export const UPLOAD_FAILED = 'Upload failed: ';

export const uploadMessages = {
  tooManyFiles: (caps: UploadCaps) => `Too many files: at most ${caps.maxFiles} per upload`,
  fileTooLarge: (caps: UploadCaps) => `File too large: at most ${caps.maxFileBytes} bytes per file`,
  totalTooLarge: (caps: UploadCaps) => `Upload too large: at most ${caps.maxTotalBytes} bytes in all`,
};

/** Text fields of an upload are small by nature; files carry the data. */
export const MAX_FIELDS_BYTES = 1024 * 1024;

/** Room for boundaries and part headers on top of the files, for the declared-length check. */
const FRAMING_ALLOWANCE = 64 * 1024;

/** The longest body the limits can allow: all files at their largest, the fields and the framing. */
export function largestBody(caps: UploadCaps): number {
  return Math.min(caps.maxTotalBytes, caps.maxFiles * caps.maxFileBytes) + MAX_FIELDS_BYTES + FRAMING_ALLOWANCE;
}

/** The refusal the server would give these files, checked on their sizes alone; undefined when they fit. */
export function sizeRefusal(caps: UploadCaps, files: readonly { size: number }[]): string | undefined {
  if (files.length > caps.maxFiles) return uploadMessages.tooManyFiles(caps);
  if (files.some((file) => file.size > caps.maxFileBytes)) return uploadMessages.fileTooLarge(caps);
  if (files.reduce((sum, file) => sum + file.size, 0) > caps.maxTotalBytes) return uploadMessages.totalTooLarge(caps);
  return undefined;
}
