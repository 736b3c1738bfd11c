// Who may reach each tunnel and site: the records' `access`, the portal's rules rendered from them
// (lib/host-state/desired.ts#portalRules), the groups kept in the portal's users. A change is all or
// nothing: the record, the portal's configuration and restart, and (for a tunnel opened or closed to
// the public) its vhost; a failed step takes the done ones back. Changes run one at a time: the
// portal's rules are one file for every app.
import type { AuditActor, AuditSink } from '../audit/entry.ts';
import type { ConfigStore } from '../config.ts';
import { AppError, badRequest } from '../errors.ts';
import { isDefaultAccess, portalRules } from '../host-state/desired.ts';
import { KeyedLock, serialQueue } from '../keyed-lock.ts';
import { SharedGate } from '../shared-gate.ts';
import type { Logger } from '../log.ts';
import type { AccessRecord, SiteRecord, TunnelRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import { NGINX_FAILED, runStepsOrFail, STATE_FAILED, type Step } from '../steps.ts';
import type { PortalUser, System } from '../system/types.ts';
import { putVhost, TUNNEL_NOT_FOUND } from '../tunnels/context.ts';
import { SITE_NOT_FOUND } from '../sites/context.ts';
import { unknownNames } from '../users/errors.ts';
import type { UserService } from '../users/service.ts';
import type { AccessInput } from './schema.ts';

export interface AccessDeps {
  config: ConfigStore;
  store: Store;
  system: System;
  log: Logger;
  users: Pick<UserService, 'whileUsersUnchanged' | 'editGroups'>;
  audit: AuditSink;
  /** the tunnel service's per-tunnel locks: an access change and a port edit of one tunnel each render its vhost */
  tunnelLocks?: KeyedLock;
  /** held shared while a tunnel's vhost changes, so a certificate mode switch is never in between */
  modeGate?: SharedGate;
}

export const DEFAULT_ACCESS: AccessRecord = { mode: 'authenticated', users: [], groups: [], rules: [] };
export const GROUP_NOT_FOUND = 'Group not found';
export const PORTAL_FAILED = 'Auth portal configuration failed';

type Kind = 'tunnel' | 'site';
export interface AppRef { kind: Kind; id: string; fqdn: string; name: string }

/** A record's access as the API shows it: the default when the record has none. */
export function accessOf(record: { access?: AccessRecord | undefined; allowedUsers?: string[] }): AccessRecord {
  if (record.access) return record.access;
  // a site's spec field: a non-empty list is a restriction to those users (and the admins)
  if (record.allowedUsers?.length) return { ...DEFAULT_ACCESS, mode: 'restricted', users: [...record.allowedUsers] };
  return DEFAULT_ACCESS;
}

export class AccessService {
  readonly #deps: AccessDeps;
  readonly #serial = serialQueue();
  readonly #tunnelLocks: KeyedLock;
  readonly #gate: SharedGate;

  constructor(deps: AccessDeps) {
    this.#deps = deps;
    this.#tunnelLocks = deps.tunnelLocks ?? new KeyedLock();
    this.#gate = deps.modeGate ?? new SharedGate();
  }

  tunnel(id: string): { app: AppRef; access: AccessRecord } {
    const tunnel = this.#tunnel(id);
    return { app: tunnelRef(tunnel), access: accessOf(tunnel) };
  }

  site(id: string): { app: AppRef; access: AccessRecord; protected: boolean } {
    const site = this.#site(id);
    return { app: siteRef(site), access: accessOf(site), protected: site.autheliaProtected };
  }

  /** The 400s a `setTunnel` of this input would answer (an unknown user or group), before anything is made. */
  check(input: AccessInput): Promise<AccessRecord> {
    return this.#deps.users.whileUsersUnchanged(async (users) => checked(input, users));
  }

  setTunnel(id: string, input: AccessInput, actor: AuditActor): Promise<AccessRecord> {
    return this.#gate.shared(() => this.#change(async (users) => {
      const current = this.#tunnel(id);
      const access = checked(input, users);
      const next: TunnelRecord = { ...current, access };
      const vhostChanged = (current.access?.mode === 'public') !== (access.mode === 'public');
      await this.#apply('Failed to change tunnel access', { tunnels: [{ before: current, after: next }], sites: [] }, vhostChanged ? [next] : []);
      this.#audit(actor, 'access.changed', current.fqdn, summary(access));
      if (access.mode === 'public') this.#deps.log.warn(`Tunnel ${current.fqdn} is now PUBLIC: anyone on the internet reaches it without the portal`);
      return access;
    }));
  }

  setSite(id: string, input: AccessInput, actor: AuditActor): Promise<AccessRecord> {
    return this.#change(async (users) => {
      const current = this.#site(id);
      const access = checked(input, users);
      // the spec's field says the same where it can: the users of a restriction, else nobody listed
      const next: SiteRecord = { ...current, access, allowedUsers: access.mode === 'restricted' ? [...access.users] : [] };
      await this.#apply('Failed to change site access', { tunnels: [], sites: [{ before: current, after: next }] }, []);
      this.#audit(actor, 'access.changed', current.fqdn, summary(access));
      return access;
    });
  }

  /** Every group the users carry or a rule names, with its members and the apps that name it. */
  async groups(): Promise<Array<{ name: string; members: string[]; apps: AppRef[] }>> {
    return this.#deps.users.whileUsersUnchanged(async (users) => {
      const names = new Set<string>([adminGroupOf(this.#deps)]);
      for (const u of users) for (const g of u.groups) names.add(g);
      const apps = this.#apps();
      for (const { record } of apps) for (const g of record.access?.groups ?? []) names.add(g);
      return [...names].sort().map((name) => ({
        name,
        members: users.filter((u) => u.groups.includes(name)).map((u) => u.username).sort(),
        apps: apps.filter(({ record }) => record.access?.groups.includes(name)).map(({ ref }) => ref),
      }));
    });
  }

  /** Renames a group in every user and every rule, all or nothing. */
  renameGroup(from: string, to: string, actor: AuditActor): Promise<void> {
    const admins = adminGroupOf(this.#deps);
    if (from === admins || to === admins) throw badRequest(`The admin group '${admins}' cannot be renamed`);
    return this.#groupChange(actor, 'access.group.renamed', from, `renamed to ${to}`, (u) => u.groups.map((g) => (g === from ? to : g)), (groups) =>
      groups.includes(from) ? [...new Set(groups.map((g) => (g === from ? to : g)))] : groups,
    );
  }

  /** Takes a group off every user and every rule, all or nothing. */
  deleteGroup(name: string, actor: AuditActor): Promise<void> {
    const admins = adminGroupOf(this.#deps);
    if (name === admins) throw badRequest(`The admin group '${admins}' cannot be deleted`);
    return this.#groupChange(actor, 'access.group.deleted', name, 'deleted', (u) => u.groups.filter((g) => g !== name), (groups) => groups.filter((g) => g !== name));
  }

  /** Exactly these users carry the group afterwards. */
  async setMembers(name: string, members: readonly string[], actor: AuditActor): Promise<void> {
    await this.#deps.users.whileUsersUnchanged(async (users) => {
      const unknown = members.filter((m) => !users.some((u) => u.username === m));
      if (unknown.length) throw unknownNames('user', unknown);
    });
    await this.#deps.users.editGroups((u) => (members.includes(u.username) ? [...u.groups, name] : u.groups.filter((g) => g !== name)));
    this.#audit(actor, 'access.group.members', name, members.join(', ') || '(none)');
  }

  /** A user deleted: taken off every app's `access` (a restriction stays one: admins only if it empties). */
  forgetUser(username: string, actor: AuditActor): Promise<void> {
    return this.#serial(async () => {
      const tunnels = this.#deps.store.tunnels.value.filter((t) => t.access?.users.includes(username));
      const sites = this.#deps.store.sites.value.filter((s) => s.access?.users.includes(username));
      if (!tunnels.length && !sites.length) return;
      const without = (a: AccessRecord): AccessRecord => ({ ...a, users: a.users.filter((u) => u !== username) });
      await this.#apply('Failed to remove the user from access rules', {
        tunnels: tunnels.map((t) => ({ before: t, after: { ...t, access: without(t.access!) } })),
        sites: sites.map((s) => ({ before: s, after: { ...s, access: without(s.access!), allowedUsers: s.allowedUsers.filter((u) => u !== username) } })),
      }, []);
      this.#audit(actor, 'access.user.removed', username, `from ${tunnels.length + sites.length} app(s)`);
    });
  }

  /**
   * A deleted tunnel whose access made portal rules: the rules are written again without it (the
   * deletion stands whatever happens here; a failure is logged).
   */
  forgetTunnel(gone: TunnelRecord): Promise<void> {
    if (isDefaultAccess(gone.access) || gone.access?.mode === 'public') return Promise.resolve();
    return this.#serial(async () => {
      const { store, system, config } = this.#deps;
      try {
        await system.authPortal.setAccessRules(portalRules(store.sites.value, config.value.domain, store.tunnels.value));
        await system.authPortal.restart();
      } catch (error) {
        this.#deps.log.warn(`the portal's rules after deleting tunnel ${gone.fqdn} failed: ${(error as Error).message}`);
      }
    });
  }

  /** The apps a user may open (their signed-in pages; paths bypassed for everyone are not counted). */
  async reach(username: string): Promise<{ user: string; apps: ReachableApp[] }> {
    return this.#deps.users.whileUsersUnchanged(async (users) => {
      const user = users.find((u) => u.username === username);
      if (!user) throw new AppError(404, 'User not found');
      const admin = user.groups.includes(adminGroupOf(this.#deps));
      const apps = this.#apps().flatMap(({ ref, record, live }): ReachableApp[] => {
        if (!live) return [];
        const access = accessOf(record);
        if (access.mode === 'public') return [{ ...ref, mode: access.mode, via: 'public' }];
        if (access.mode === 'authenticated') return [{ ...ref, mode: access.mode, via: 'signed in' }];
        if (access.users.includes(username)) return [{ ...ref, mode: access.mode, via: `user:${username}` }];
        const group = access.groups.find((g) => user.groups.includes(g));
        if (group) return [{ ...ref, mode: access.mode, via: `group:${group}` }];
        return admin ? [{ ...ref, mode: access.mode, via: `group:${adminGroupOf(this.#deps)}` }] : [];
      });
      return { user: username, apps };
    });
  }

  /** The refused page's facts: which app (by the host nginx names) and whom to ask. */
  async refusal(host: string): Promise<{ app: string; contact: string | null }> {
    const fqdn = host.toLowerCase().replace(/:\d+$/, '');
    const found = this.#apps().find(({ ref }) => ref.fqdn === fqdn);
    // only for an app's own name: through the panel's vhost (a public location) the host is the panel's, and no contact is given
    if (!found) return { app: fqdn || 'this app', contact: null };
    const users = await this.#deps.system.authPortal.readUsers().catch(() => [] as readonly PortalUser[]);
    const admin = users.find((u) => u.groups.includes(adminGroupOf(this.#deps)));
    return { app: found.ref.name, contact: admin?.email ?? this.#deps.config.value.email };
  }

  #apps(): Array<{ ref: AppRef; record: TunnelRecord | SiteRecord; live: boolean }> {
    return [
      ...this.#deps.store.tunnels.value.map((t) => ({ ref: tunnelRef(t), record: t, live: t.enabled })),
      ...this.#deps.store.sites.value.map((s) => ({ ref: siteRef(s), record: s, live: s.autheliaProtected })),
    ];
  }

  async #groupChange(actor: AuditActor, event: string, group: string, outcome: string, userEdit: (u: PortalUser) => string[], ruleEdit: (groups: string[]) => string[]): Promise<void> {
    await this.#serial(async () => {
      const named = this.#apps().some(({ record }) => record.access?.groups.includes(group));
      const held = await this.#deps.users.whileUsersUnchanged(async (users) => users.some((u) => u.groups.includes(group)));
      if (!named && !held) throw new AppError(404, GROUP_NOT_FOUND);
      const changed = <R extends TunnelRecord | SiteRecord>(records: readonly R[]) =>
        records.filter((r) => r.access?.groups.includes(group)).map((r) => ({ before: r, after: { ...r, access: { ...r.access!, groups: ruleEdit(r.access!.groups) } } }));
      const tunnels = changed(this.#deps.store.tunnels.value);
      const sites = changed(this.#deps.store.sites.value);
      // the users first (the rules would name a group nobody has yet), the rules inside their write
      await this.#deps.users.editGroups(userEdit, async () => {
        if (tunnels.length || sites.length) await this.#apply('Failed to change the group', { tunnels, sites }, []);
      });
    });
    this.#audit(actor, event, group, outcome);
  }

  #change<T>(task: (users: readonly PortalUser[]) => Promise<T>): Promise<T> {
    return this.#serial(() => this.#deps.users.whileUsersUnchanged(task));
  }

  /**
   * Records, then the portal (rules written, then restarted: Authelia reads them only at start),
   * then the vhosts of tunnels opened or closed to the public. A restriction is in the portal
   * before a public vhost starts asking it; a failure undoes the steps done.
   */
  async #apply(summary: string, edits: { tunnels: Array<Edit<TunnelRecord>>; sites: Array<Edit<SiteRecord>> }, vhosts: TunnelRecord[]): Promise<void> {
    const { store, system, config } = this.#deps;
    const put = (side: 'before' | 'after') => async () => {
      if (edits.tunnels.length) await store.tunnels.edit((d) => edits.tunnels.forEach((e) => d.has(e.before.id) && d.put({ ...d.get(e.before.id)!, access: e[side].access } as TunnelRecord)));
      if (edits.sites.length)
        await store.sites.edit((d) => edits.sites.forEach((e) => d.has(e.before.id) && d.put({ ...d.get(e.before.id)!, access: e[side].access, allowedUsers: e[side].allowedUsers } as SiteRecord)));
    };
    // the rules of one side, whatever the store holds at the time: an undo must not read the records it is undoing
    const view = <R extends { id: string }>(records: readonly R[], list: Array<Edit<R>>, side: 'before' | 'after') =>
      records.map((r) => list.find((e) => e.before.id === r.id)?.[side] ?? r);
    const rulesOf = (side: 'before' | 'after') =>
      portalRules(view(store.sites.value, edits.sites, side), config.value.domain, view(store.tunnels.value, edits.tunnels, side));
    const portal = (side: 'before' | 'after') => async () => {
      await system.authPortal.setAccessRules(rulesOf(side));
      try {
        await system.authPortal.restart();
      } catch (error) {
        // the failed step is not undone by runSteps: its rules go back here, and the portal is asked to start on them
        if (side === 'after') await system.authPortal.setAccessRules(rulesOf('before')).then(() => system.authPortal.restart()).catch(() => undefined);
        throw error;
      }
    };
    const steps: Step[] = [
      { failure: STATE_FAILED, run: put('after'), undo: put('before') },
      { failure: PORTAL_FAILED, run: portal('after'), undo: portal('before') },
    ];
    for (const tunnel of vhosts) {
      const before = edits.tunnels.find((e) => e.after.id === tunnel.id)!.before;
      // Under the tunnel's lock and from its record as it is then: a port edit, toggle or delete of
      // the same tunnel renders its vhost too, each from the record it read, so the vhost written
      // last must be rendered from the record after both (the access this change stored, the port
      // the edit stored). Only this step holds it: the portal's change never waits on an nginx run.
      const render = (access: AccessRecord | undefined) => this.#tunnelLocks.run(tunnel.id, async () => {
        const fresh = store.tunnels.get(tunnel.id);
        if (!fresh) return; // deleted meanwhile: its vhost went with it
        // in the certificate mode of now: a wildcard box's public tunnel has a server of its own on the lineage, and back a route
        await system.proxy.apply([putVhost({ ...fresh, access }, fresh.enabled, this.#deps.config.value)]);
      });
      steps.push({ failure: NGINX_FAILED, run: () => render(tunnel.access), undo: () => render(before.access) });
    }
    await runStepsOrFail(summary, steps);
  }

  #audit(actor: AuditActor, event: string, target: string, outcome: string): void {
    this.#deps.audit.record({ actor, event, target, outcome });
  }

  #tunnel(id: string): TunnelRecord {
    const tunnel = this.#deps.store.tunnels.get(id);
    if (!tunnel) throw new AppError(404, TUNNEL_NOT_FOUND);
    return tunnel;
  }

  #site(id: string): SiteRecord {
    const site = this.#deps.store.sites.get(id);
    if (!site) throw new AppError(404, SITE_NOT_FOUND);
    return site;
  }
}

interface Edit<R> { before: R; after: R }
export type ReachableApp = AppRef & { mode: AccessRecord['mode']; via: string };

const tunnelRef = (t: TunnelRecord): AppRef => ({ kind: 'tunnel', id: t.id, fqdn: t.fqdn, name: t.description || t.subdomain });
const siteRef = (s: SiteRecord): AppRef => ({ kind: 'site', id: s.id, fqdn: s.fqdn, name: s.name });
const adminGroupOf = (deps: Pick<AccessDeps, 'config'>): string => deps.config.value.system.authelia.adminGroup;

/** Names checked against the portal's users and groups; the record as stored. */
function checked(input: AccessInput, users: readonly PortalUser[]): AccessRecord {
  const unknownUsers = input.users.filter((name) => !users.some((u) => u.username === name));
  if (unknownUsers.length) throw unknownNames('user', unknownUsers);
  const known = new Set(users.flatMap((u) => u.groups));
  const unknownGroups = input.groups.filter((g) => !known.has(g));
  if (unknownGroups.length) throw unknownNames('group', unknownGroups);
  if (input.mode !== 'restricted' && (input.users.length || input.groups.length)) throw badRequest(`Users and groups are only for mode 'restricted'`);
  return { mode: input.mode, users: [...input.users], groups: [...input.groups], rules: input.rules.map((r) => ({ ...r })) };
}

function summary(access: AccessRecord): string {
  if (access.mode === 'public') return 'public (no portal)';
  if (isDefaultAccess(access)) return 'default (every signed-in user)';
  const who = access.mode === 'restricted' ? `restricted to ${access.users.length} user(s), ${access.groups.length} group(s)` : 'every signed-in user';
  return `${who}; ${access.rules.length} rule(s)`;
}
