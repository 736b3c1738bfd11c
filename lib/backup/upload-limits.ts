const MiB = 1024 * 1024;

/**
 * POST /api/backup/inspect and /api/backup/restore: one `archive` part, a gzipped tar, as large as
 * the sites' whole upload (nginx's client_max_body_size already lets that through). No imports: the
 * panel's bundle takes this file.
 */
export const BACKUP_UPLOAD_LIMITS = { maxFileBytes: 1024 * MiB, maxTotalBytes: 1024 * MiB, maxFiles: 1, allowedExtensions: ['.tar.gz', '.tgz'] } as const;
