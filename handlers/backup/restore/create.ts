import { z } from 'zod';
import { BackupSummary } from '../../../lib/backup/summary.ts';
import { RESTORE_UNSUPPORTED, stageRestore } from '../../../lib/backup/panel-restore.ts';
import { BACKUP_UPLOAD_LIMITS } from '../../../lib/upload-limits.ts';
import { badRequest } from '../../../lib/errors.ts';
import { actorOf } from '../../../lib/audit/request-audit.ts';
import { multipart } from '../../../lib/http/multipart.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { uploadMessages } from '../../../lib/upload-refusals.ts';

const ANSWER = { status: 202, schema: okWith({ summary: BackupSummary, next: z.string() }) };

// POST /api/backup/restore — multipart, one `archive` part: the same checks as inspect, then 202
// {ok, summary, next}; once the answer is out the panel stops, replaces its state with the archive's
// (the previous state moved aside, and moved back on any failure) and starts again.
export default route({
  method: 'POST',
  path: '/api/backup/restore',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: {
    400: 'Not a usable relay-panel backup: ...; This configuration has no place for the sections ...',
    409: RESTORE_UNSUPPORTED,
    413: `${uploadMessages.fileTooLarge(BACKUP_UPLOAD_LIMITS)} (before any body byte when Content-Length says so)`,
  },
  response: ANSWER,
  body: multipart(BACKUP_UPLOAD_LIMITS),
  async handle({ body, identity, services }) {
    const archive = body.files.find((f) => f.field === 'archive');
    if (!archive) throw badRequest("Upload failed: no 'archive' part in the form");
    // the audit entry is on disk before the stop that follows the answer
    await services.audit.flush();
    const { summary, next } = await stageRestore(archive, services.config.value, services.restoreRequests);
    services.audit.record({ event: 'backup.restore', target: null, outcome: `backup of ${summary.created}`, actor: actorOf(identity) });
    return { ok: true, summary, next };
  },
});
