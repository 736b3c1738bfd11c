// The portal's access_control from the records: most specific first per app, Authelia 4.38's
// schema checked before anything is written, and which records make rules at all.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { portalRules } from '../../../lib/host-state/desired.ts';
import { appVhost } from '../../../lib/host-state/vhost-specs.ts';
import { assertAutheliaAccessControl } from '../../../lib/system/auth-portal/access-control-schema.ts';
import { renderAccessControl, renderAccessRules } from '../../../lib/system/auth-portal/access-control.ts';
import type { AccessRecord, SiteRecord, TunnelRecord } from '../../../lib/state/schemas.ts';

const s = suite('access rules rendered for the portal');
const DOMAIN = 'example.test';

const tunnel = (sub: string, access?: AccessRecord): TunnelRecord => ({
  id: `0b6f3e1c-1c9a-4e0e-9a53-2f4f3d0c6a1${sub.length}`, subdomain: sub, fqdn: `${sub}.${DOMAIN}`, port: 8000 + sub.length, description: null, enabled: true, createdAt: 'x', ...(access ? { access } : {}),
});

s('path, network and method rules first, in order; then who may sign in; then the deny', () => {
  const rules = renderAccessRules([{
    fqdn: `app.${DOMAIN}`, allowedUsers: ['alice'], groups: ['ops'], restricted: true,
    rules: [{ policy: 'bypass', resources: ['^/hook$'], methods: ['POST'] }, { policy: 'deny', networks: ['198.51.100.0/24'] }],
  }], 'admins');
  assert.equal(rules, [
    { domain: [`app.${DOMAIN}`], policy: 'bypass', resources: ['^/hook$'], methods: ['POST'] },
    { domain: [`app.${DOMAIN}`], policy: 'deny', networks: ['198.51.100.0/24'] },
    { domain: [`app.${DOMAIN}`], policy: 'two_factor', subject: ['user:alice', 'group:ops', 'group:admins'] },
    { domain: [`app.${DOMAIN}`], policy: 'deny' },
  ]);
});

s('a restriction whose lists emptied stays one: the admins alone, never every signed-in user', () => {
  assert.equal(renderAccessRules([{ fqdn: `app.${DOMAIN}`, allowedUsers: [], groups: [], restricted: true }], 'admins'), [
    { domain: [`app.${DOMAIN}`], policy: 'two_factor', subject: ['group:admins'] },
    { domain: [`app.${DOMAIN}`], policy: 'deny' },
  ]);
});

s("a site's allowedUsers alone render as before", () => {
  assert.equal(renderAccessRules([{ fqdn: `a.${DOMAIN}`, allowedUsers: [] }, { fqdn: `b.${DOMAIN}`, allowedUsers: ['bob'] }], 'admins'), [
    { domain: [`a.${DOMAIN}`], policy: 'two_factor' },
    { domain: [`b.${DOMAIN}`], policy: 'two_factor', subject: ['user:bob', 'group:admins'] },
    { domain: [`b.${DOMAIN}`], policy: 'deny' },
  ]);
});

s("Authelia 4.38's checks: what it would refuse at start is refused before writing", () => {
  assert.throws(() => assertAutheliaAccessControl({ default_policy: 'bypass', rules: [] }), /default_policy/);
  assert.throws(() => assertAutheliaAccessControl({ default_policy: 'two_factor', rules: [{ domain: ['a.b'], policy: 'bypass', subject: ['user:x'] }] }), /bypass rule cannot have a subject/);
  assert.throws(() => assertAutheliaAccessControl({ default_policy: 'two_factor', rules: [{ domain: ['a.b'], policy: 'deny', networks: ['10.0.0.0/40'] }] }), /networks/);
  assert.throws(() => assertAutheliaAccessControl({ default_policy: 'two_factor', rules: [{ domain: ['a.b'], policy: 'deny', subject: ['alice'] }] }), /subject/);
  assert.throws(() => assertAutheliaAccessControl({ default_policy: 'two_factor', rules: [{ domain: ['a.b'], policy: 'deny', query: [] }] }), /query/);
  assert.throws(() => renderAccessControl([{ fqdn: `a.${DOMAIN}`, allowedUsers: [], rules: [{ policy: 'deny', resources: ['(unclosed'] }] }], 'admins'), /resources/);
  // a stored or restored record is checked again: JavaScript compiles a lookbehind, Go's RE2 (the portal) does not
  assert.throws(() => renderAccessControl([{ fqdn: `a.${DOMAIN}`, allowedUsers: [], rules: [{ policy: 'deny', resources: ['(?<=/x)admin'] }] }], 'admins'), /lookbehind/);
  assert.equal(renderAccessControl([], 'admins'), { default_policy: 'two_factor', rules: [] });
});

s('which records make rules: protected sites; tunnels whose access is not the default and not public', () => {
  const restricted: AccessRecord = { mode: 'restricted', users: ['alice'], groups: [], rules: [] };
  const site = { id: 's', name: 'blog', fqdn: `blog.${DOMAIN}`, type: 'managed', spaMode: false, autheliaProtected: true, allowedUsers: ['bob'], dnsVerified: true, certIssued: true, rootPath: '/x', createdAt: 'x', totalSize: 0 } as SiteRecord;
  const rules = portalRules([site], DOMAIN, [
    tunnel('plain'),
    tunnel('dflt', { mode: 'authenticated', users: [], groups: [], rules: [] }),
    tunnel('open', { mode: 'public', users: [], groups: [], rules: [] }),
    tunnel('team', restricted),
    tunnel('hook', { mode: 'authenticated', users: [], groups: [], rules: [{ policy: 'bypass', resources: ['^/hook$'] }] }),
  ]);
  assert.equal(rules, [
    { fqdn: `blog.${DOMAIN}`, allowedUsers: ['bob'] },
    { fqdn: `team.${DOMAIN}`, allowedUsers: ['alice'], groups: [], restricted: true },
    { fqdn: `hook.${DOMAIN}`, allowedUsers: [], rules: [{ policy: 'bypass', resources: ['^/hook$'] }] },
  ]);
});

s("a public tunnel's vhost spec says so; every other tunnel's is as before", () => {
  assert.equal(appVhost(tunnel('open', { mode: 'public', users: [], groups: [], rules: [] })), { kind: 'app', fqdn: `open.${DOMAIN}`, port: 8004, public: true });
  assert.equal(appVhost(tunnel('plain')), { kind: 'app', fqdn: `plain.${DOMAIN}`, port: 8005 });
});

s.run();
