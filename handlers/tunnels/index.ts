import type { AnyRoute } from '../../lib/http/route.ts';
import tunnelsList from './list.ts';
import tunnelsCreate from './create.ts';
import tunnelsAgentConfig from './agent-config/show.ts';
import tunnelsStatus from './status/show.ts';
import tunnelsStatusLive from './status/live.ts';
import tunnelsMacPlist from './mac-plist/show.ts';
import tunnelsToggle from './update.ts';
import tunnelsSettings from './settings/update.ts';
import tunnelsTraffic from './traffic/show.ts';
import tunnelsDelete from './delete.ts';
import tunnelsAccess from './access/show.ts';
import tunnelsAccessUpdate from './access/update.ts';
import tunnelsStreamsList from './streams/list.ts';
import tunnelsStreamsUpdate from './streams/update.ts';
import tunnelsStreamsStatus from './streams/status/show.ts';
import tunnelsStreamsTraffic from './streams/traffic/show.ts';

/** The routes under /api/tunnels, each in the file its URL names (the registry test checks it). */
export const routes = [tunnelsList, tunnelsCreate, tunnelsAgentConfig, tunnelsStatus, tunnelsStatusLive, tunnelsMacPlist, tunnelsToggle, tunnelsSettings, tunnelsTraffic, tunnelsDelete, tunnelsAccess, tunnelsAccessUpdate, tunnelsStreamsList, tunnelsStreamsUpdate, tunnelsStreamsStatus, tunnelsStreamsTraffic] as const satisfies readonly AnyRoute[];
