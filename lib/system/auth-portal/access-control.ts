// The portal's `access_control.rules` from the protected apps' rules. Authelia takes the first rule
// that matches a request, so each app's rules go most specific first: the admin's path, network and
// method rules (in the admin's order), then who may sign in, then the app's `deny` for everybody else.
// Rules of different apps never meet (each names its own domain), so their order between apps is free.
import { assertFqdn, assertUsername } from '../common/names.ts';
import { assertAutheliaAccessControl, type AutheliaAccessControl, type AutheliaRule } from './access-control-schema.ts';
import type { ProtectedSiteRule } from './types.ts';

const GROUP = /^[A-Za-z0-9_.-]{1,64}$/;

function assertGroup(name: string): string {
  if (!GROUP.test(name)) throw new Error(`invalid group name: ${JSON.stringify(name)}`);
  return name;
}

export function renderAccessRules(rules: readonly ProtectedSiteRule[], adminGroup: string): AutheliaRule[] {
  return rules.flatMap((r) => {
    const domain = [assertFqdn(r.fqdn)];
    const first: AutheliaRule[] = (r.rules ?? []).map((p) => ({
      domain,
      policy: p.policy,
      ...(p.resources?.length ? { resources: [...p.resources] } : {}),
      ...(p.networks?.length ? { networks: [...p.networks] } : {}),
      ...(p.methods?.length ? { methods: [...p.methods] as AutheliaRule['methods'] } : {}),
    }));
    const groups = r.groups ?? [];
    const restricted = r.restricted ?? (r.allowedUsers.length > 0 || groups.length > 0);
    if (!restricted) return [...first, { domain, policy: 'two_factor' as const }];
    const subject = [
      ...r.allowedUsers.map((u) => `user:${assertUsername(u)}`),
      ...groups.filter((g) => g !== adminGroup).map((g) => `group:${assertGroup(g)}`),
      `group:${adminGroup}`,
    ];
    // first matching rule wins: the listed users, groups and the admins pass, everybody else is denied
    return [...first, { domain, policy: 'two_factor' as const, subject }, { domain, policy: 'deny' as const }];
  });
}

/** The whole `access_control` section, checked against Authelia 4.38's rules before anyone writes it. */
export function renderAccessControl(rules: readonly ProtectedSiteRule[], adminGroup: string): AutheliaAccessControl {
  return assertAutheliaAccessControl({ default_policy: 'two_factor', rules: renderAccessRules(rules, adminGroup) });
}
