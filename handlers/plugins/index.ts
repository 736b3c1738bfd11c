import type { AnyRoute } from '../../lib/http/route.ts';
import pluginsList from './list.ts';
import pluginsInstall from './install.ts';
import pluginsShow from './show.ts';
import pluginsEnable from './enable.ts';
import pluginsDisable from './disable.ts';
import pluginsDelete from './delete.ts';
import pluginSettingsShow from './settings/show.ts';
import pluginSettingsUpdate from './settings/update.ts';
import pushConfigShow from './push-install/config/show.ts';
import pushConfigUpdate from './push-install/config/update.ts';
import pushPoliciesList from './push-install/policies/list.ts';
import pushPoliciesCreate from './push-install/policies/create.ts';
import pushPoliciesUpdate from './push-install/policies/update.ts';
import pushPoliciesDelete from './push-install/policies/delete.ts';
import pushEnable from './push-install/enable/create.ts';
import pushDisable from './push-install/enable/delete.ts';
import pushGrants from './push-install/grants/list.ts';
import pushSessions from './push-install/sessions/list.ts';
import pushAgentStatus from './push-install/agent-status/show.ts';
import pushRequest from './push-install/create.ts';

/** The routes under /api/plugins, each in the file its URL names (the registry test checks it). */
export const routes = [pluginsList, pluginsInstall, pluginsShow, pluginsEnable, pluginsDisable, pluginsDelete, pluginSettingsShow, pluginSettingsUpdate, pushConfigShow, pushConfigUpdate, pushPoliciesList, pushPoliciesCreate, pushPoliciesUpdate, pushPoliciesDelete, pushEnable, pushDisable, pushGrants, pushSessions, pushAgentStatus, pushRequest] as const satisfies readonly AnyRoute[];
