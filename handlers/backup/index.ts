import type { AnyRoute } from '../../lib/http/route.ts';
import backupDownload from './show.ts';
import backupInspect from './inspect.ts';
import backupRestore from './restore/create.ts';
import backupRestoreInfo from './restore/show.ts';

/** The routes under /api/backup, each in the file its URL names (the registry test checks it). */
export const routes = [backupDownload, backupInspect, backupRestore, backupRestoreInfo] as const satisfies readonly AnyRoute[];
