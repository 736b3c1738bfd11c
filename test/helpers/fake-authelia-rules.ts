// A FAKE Authelia 4.38 authz endpoint (/api/authz/auth-request) that evaluates a configuration's
// access_control as Authelia documents it: the first rule that matches wins (domain, resources,
// methods, networks, subject), else default_policy. An anonymous visitor matches a rule with a
// subject (so it is sent to sign in, not refused); a deny answers 403 except to an anonymous
// visitor stopped by a rule with a subject (401: sign in first). Sessions are a cookie naming the
// user (two factors assumed): this plays the decision, not the login.
import { isIP, BlockList } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerAuthz } from './fake-authz.ts';

export interface FakeRule {
  domain: string[];
  policy: 'bypass' | 'deny' | 'one_factor' | 'two_factor';
  subject?: Array<string | string[]>;
  networks?: string[];
  resources?: string[];
  methods?: string[];
}
export interface FakeAccessControl { default_policy: string; rules: FakeRule[] }
export interface FakeUser { username: string; groups: string[] }

export const SESSION_COOKIE = 'fake_authelia_session';

function inNetworks(ip: string, networks: string[]): boolean {
  const list = new BlockList();
  for (const n of networks) {
    const [address, prefix] = n.split('/');
    const type = isIP(address!) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, Number(prefix), type);
  }
  return list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

function subjectMatches(subject: Array<string | string[]>, user: FakeUser): boolean {
  const one = (s: string) => (s.startsWith('user:') ? s.slice(5) === user.username : s.startsWith('group:') ? user.groups.includes(s.slice(6)) : false);
  // a list's entries are alternatives; an entry that is itself a list needs all of its own
  return subject.some((entry) => (Array.isArray(entry) ? entry.every(one) : one(entry)));
}

/** The policy and whether the deciding rule had a subject. */
export function decide(ac: FakeAccessControl, request: { host: string; path: string; method: string; ip: string }, user: FakeUser | null): { policy: string; hasSubject: boolean } {
  for (const rule of ac.rules) {
    if (!rule.domain.includes(request.host)) continue;
    if (rule.resources && !rule.resources.some((r) => new RegExp(r).test(request.path))) continue;
    if (rule.methods && !rule.methods.includes(request.method)) continue;
    if (rule.networks && !inNetworks(request.ip, rule.networks)) continue;
    if (rule.subject && user && !subjectMatches(rule.subject, user)) continue;
    return { policy: rule.policy, hasSubject: rule.subject !== undefined };
  }
  return { policy: ac.default_policy, hasSubject: false };
}

/** Answers one auth_request subrequest from the access control and users it is given. */
export function answerWithRules(req: IncomingMessage, res: ServerResponse, ac: FakeAccessControl, users: readonly FakeUser[], portalUrl: string): string {
  const original = new URL(String(req.headers['x-original-url']));
  const cookie = /(?:^|;\s*)fake_authelia_session=([^;]+)/.exec(String(req.headers.cookie ?? ''))?.[1];
  const user = users.find((u) => u.username === cookie) ?? null;
  const { policy, hasSubject } = decide(ac, {
    host: original.hostname,
    path: original.pathname + original.search,
    method: String(req.headers['x-original-method'] ?? 'GET'),
    ip: String(req.headers['x-forwarded-for'] ?? ''),
  }, user);
  if (policy === 'bypass') return void res.end(), 'bypass';
  if (policy === 'deny' && (user || !hasSubject)) return void res.writeHead(403).end(), 'deny';
  answerAuthz(req, res, { user: user?.username ?? null, portalUrl });
  return user ? 'allow' : 'sign-in';
}
