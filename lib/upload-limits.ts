// The box's upload limits, for the server's checks, nginx's client_max_body_size and the panel's
// check before it sends. No imports: the panel's bundle takes this file.
const MiB = 1024 * 1024;

/**
 * POST /api/sites/:id/files: the spec's 50 MB per file; many files in one form (a site's whole
 * folder) up to 1 GiB. The panel's page checks a pick against the same numbers before it sends,
 * and nginx's client_max_body_size is derived from them.
 */
export const SITE_UPLOAD_LIMITS = { maxFileBytes: 50 * MiB, maxTotalBytes: 1024 * MiB, maxFiles: 1000 } as const;

/**
 * POST /api/backup/inspect and /api/backup/restore: one `archive` part, a gzipped tar, as large as
 * the sites' whole upload (nginx's client_max_body_size already lets that through).
 */
export const BACKUP_UPLOAD_LIMITS = { maxFileBytes: 1024 * MiB, maxTotalBytes: 1024 * MiB, maxFiles: 1, allowedExtensions: ['.tar.gz', '.tgz'] } as const;
