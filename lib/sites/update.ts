import { AppError, badRequest, errorMessage } from '../errors.ts';
import { unknownNames } from '../users/errors.ts';
import type { AccessRecord, SiteRecord } from '../state/schemas.ts';
import { NGINX_FAILED, STATE_FAILED } from '../steps.ts';
import { applyPortalRules } from './access-rules.ts';
import { findSite, putSiteVhost, SITE_NOT_FOUND, type SiteContext } from './context.ts';
import { portalReaches, portalRefusal } from '../portal-reach.ts';
import type { SitePatch } from './schema.ts';

export interface SiteUpdate {
  site: SiteRecord;
  /** set when nothing changed */
  message?: string;
}

const UPDATE_FAILED = 'Failed to update site configuration';
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The spec's meaning of the list: some users (and the access's groups) or, empty with no group, every signed-in user. */
function accessWithUsers(access: AccessRecord, users: readonly string[]): AccessRecord {
  const groups = access.mode === 'restricted' ? access.groups : [];
  return { ...access, mode: users.length || groups.length ? 'restricted' : 'authenticated', users: [...users], groups: [...groups] };
}


/**
 * A changed list of allowed users is checked against the portal's users, and saved while no user
 * can be deleted (the delete refuses a user a site still names); otherwise no wait for the users.
 */
export function updateSite(ctx: SiteContext, id: string, patch: SitePatch): Promise<SiteUpdate> {
  return ctx.locks.run(id, async () => {
    const current = findSite(ctx, id);
    const listChanged = current && patch.allowedUsers && !sameList(patch.allowedUsers, current.allowedUsers);
    if (!listChanged) return saveSettings(ctx, id, patch);
    return ctx.users.whileUnchanged(async (usernames) => {
      const unknown = [...new Set(patch.allowedUsers)].filter((name) => !usernames.has(name));
      if (unknown.length > 0) throw unknownNames('user', unknown);
      return saveSettings(ctx, id, patch);
    });
  });
}

/**
 * New vhost first (only when it is live and its rendering changes), then the record, then the
 * portal's access rules. The record is saved before the portal is touched, so a portal failure
 * answers the spec's "Site saved but ..." with the change kept.
 */
async function saveSettings(ctx: SiteContext, id: string, patch: SitePatch): Promise<SiteUpdate> {
  const current = findSite(ctx, id);
  if (!current) throw new AppError(404, SITE_NOT_FOUND);
  const { domain } = ctx.config.value;
  // asked for, even when already set (a site stored by an older release): it cannot work there
  if (patch.autheliaProtected === true && !portalReaches(current.fqdn, domain)) throw badRequest(portalRefusal(current.fqdn, domain));
  const next: SiteRecord = {
    ...current,
    spaMode: patch.spaMode ?? current.spaMode,
    autheliaProtected: patch.autheliaProtected ?? current.autheliaProtected,
    allowedUsers: patch.allowedUsers ?? current.allowedUsers,
    // a site whose access was set keeps it in step with the spec's field, which says who may sign in
    ...(current.access && patch.allowedUsers ? { access: accessWithUsers(current.access, patch.allowedUsers) } : {}),
  };
  const vhostChanged = next.spaMode !== current.spaMode || next.autheliaProtected !== current.autheliaProtected;
  const portalChanged = next.autheliaProtected !== current.autheliaProtected || !sameList(next.allowedUsers, current.allowedUsers);
  if (!vhostChanged && !portalChanged) return { site: current, message: 'No changes' };

  const rewriteVhost = current.certIssued && vhostChanged;
  if (rewriteVhost) {
    try {
      await ctx.system.proxy.apply([putSiteVhost(next, domain, ctx.config.value)]);
    } catch (error) {
      throw new AppError(500, UPDATE_FAILED, `${NGINX_FAILED}: ${errorMessage(error)}`);
    }
  }
  try {
    await ctx.store.sites.edit((draft) => {
      if (!draft.has(id)) throw new Error('the site record disappeared');
      draft.put(next);
    });
  } catch (error) {
    if (rewriteVhost) await ctx.system.proxy.apply([putSiteVhost(current, domain, ctx.config.value)]).catch(() => undefined);
    throw new AppError(500, UPDATE_FAILED, `${STATE_FAILED}: ${errorMessage(error)}`);
  }
  if (portalChanged) {
    try {
      await applyPortalRules(ctx);
    } catch (error) {
      throw new AppError(500, 'Site saved but the service configuration failed', errorMessage(error));
    }
  }
  return { site: next };
}
