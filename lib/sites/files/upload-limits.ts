const MiB = 1024 * 1024;

/**
 * POST /api/sites/:id/files: the spec's 50 MB per file; many files in one form (a site's whole
 * folder) up to 1 GiB. The panel's page checks a pick against the same numbers before it sends, and
 * nginx's client_max_body_size is derived from them. No imports: the panel's bundle takes this file.
 */
export const SITE_UPLOAD_LIMITS = { maxFileBytes: 50 * MiB, maxTotalBytes: 1024 * MiB, maxFiles: 1000 } as const;
