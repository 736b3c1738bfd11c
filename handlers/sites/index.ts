import type { AnyRoute } from '../../lib/http/route.ts';
import sitesList from './list.ts';
import sitesStatus from './status/show.ts';
import sitesStatusLive from './status/live.ts';
import sitesCreate from './create.ts';
import sitesUpdate from './update.ts';
import sitesDelete from './delete.ts';
import sitesVerifyDns from './verify-dns.ts';
import sitesFilesList from './files/list.ts';
import sitesFilesDelete from './files/delete.ts';
import sitesFilesUpload from './files/create.ts';
import sitesAccess from './access/show.ts';
import sitesAccessUpdate from './access/update.ts';

/** The routes under /api/sites, each in the file its URL names (the registry test checks it). */
export const routes = [sitesList, sitesStatus, sitesStatusLive, sitesCreate, sitesUpdate, sitesDelete, sitesVerifyDns, sitesFilesList, sitesFilesDelete, sitesFilesUpload, sitesAccess, sitesAccessUpdate] as const satisfies readonly AnyRoute[];
