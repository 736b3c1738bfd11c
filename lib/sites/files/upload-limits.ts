import type { MultipartLimits } from '../../http/multipart.ts';

const MiB = 1024 * 1024;

/**
 * POST /api/sites/:id/files: the spec's 50 MB per file; many files in one form (a site's whole
 * folder) up to 1 GiB. The panel's page and nginx's client_max_body_size read the same numbers.
 */
export const SITE_UPLOAD_LIMITS = { maxFileBytes: 50 * MiB, maxTotalBytes: 1024 * MiB, maxFiles: 1000 } as const satisfies MultipartLimits;
