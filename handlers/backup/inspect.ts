import { BackupSummary } from '../../lib/backup/summary.ts';
import { inspectUpload } from '../../lib/backup/panel-restore.ts';
import { BACKUP_UPLOAD_LIMITS } from '../../lib/upload-limits.ts';
import { badRequest } from '../../lib/errors.ts';
import { multipart } from '../../lib/http/multipart.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { uploadMessages } from '../../lib/upload-refusals.ts';

const ANSWER = { schema: okWith({ summary: BackupSummary }) };

// POST /api/backup/inspect — multipart, one `archive` part (a backup of GET /api/backup): the restore
// command's checks, then {ok, summary}: its date, domain, sections and counts. Nothing is kept or changed.
export default route({
  method: 'POST',
  path: '/api/backup/inspect',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: {
    400: 'Not a usable relay-panel backup: ... (not a gzipped tar, no manifest first, a bad manifest or configuration, an entry outside its sections); This configuration has no place for the sections ...',
    413: `${uploadMessages.fileTooLarge(BACKUP_UPLOAD_LIMITS)} (before any body byte when Content-Length says so)`,
  },
  response: ANSWER,
  body: multipart(BACKUP_UPLOAD_LIMITS),
  async handle({ body, services }) {
    const archive = body.files.find((f) => f.field === 'archive');
    if (!archive) throw badRequest("Upload failed: no 'archive' part in the form");
    return { ok: true, summary: await inspectUpload(archive, services.config.value) };
  },
});
