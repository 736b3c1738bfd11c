import { RestoreInfo, restoreInfo } from '../../../lib/backup/restore-info.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

const ANSWER = { schema: RestoreInfo };

// GET /api/backup/restore — how this box restores: {driver, inPanel, next, configFile, dataDir, command},
// the restore command written with this box's own paths (sandbox or host).
export default route({
  method: 'GET',
  path: '/api/backup/restore',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  handle: ({ services }) => restoreInfo(services.config.file, services.config.value, services.restoreRequests),
});
