// Authelia 4.38's `access_control` as its published JSON schema (configuration.json, $defs
// AccessControl and AccessControlRule) describes it, plus the checks its configuration validator
// makes at start that the schema cannot say (a bypass rule may not name a subject). The panel checks
// what it rendered here before writing: a configuration the portal refuses would keep it down, and
// every protected app shut with it.
import { isIP } from 'node:net';
import { z } from 'zod';

const POLICY = z.enum(['bypass', 'deny', 'one_factor', 'two_factor']);
const METHOD = z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'CONNECT', 'OPTIONS', 'COPY', 'LOCK', 'MKCOL', 'MOVE', 'PROPFIND', 'PROPPATCH', 'UNLOCK']);
const SUBJECT = z.string().regex(/^(user|group|oauth2:client):.+$/);

const uniqueList = <T extends z.ZodType>(item: T) =>
  z.union([item, z.array(item).min(1).refine((list) => new Set(list.map(String)).size === list.length, 'items must be unique')]);

const network = z.string().refine((value) => {
  const [address, prefix, extra] = value.split('/');
  const family = isIP(address ?? '');
  if (extra !== undefined || family === 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}, 'must be an IP address or CIDR range');

const regex = z.string().refine((source) => {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}, 'must be a regular expression');

const rule = z
  .strictObject({
    domain: uniqueList(z.string().min(1)),
    policy: POLICY,
    subject: z.union([SUBJECT, z.array(z.union([SUBJECT, z.array(SUBJECT).min(1)])).min(1)]).optional(),
    networks: uniqueList(network).optional(),
    resources: uniqueList(regex).optional(),
    methods: uniqueList(METHOD).optional(),
  })
  .refine((r) => !(r.policy === 'bypass' && r.subject !== undefined), 'a bypass rule cannot have a subject (Authelia refuses it at start)');

export const AutheliaAccessControl = z.strictObject({
  default_policy: z.enum(['deny', 'one_factor', 'two_factor']),
  rules: z.array(rule),
});
export type AutheliaAccessControl = z.infer<typeof AutheliaAccessControl>;
export type AutheliaRule = z.infer<typeof rule>;

/** Throws, naming the first problems, when Authelia 4.38 would refuse this `access_control`. */
export function assertAutheliaAccessControl(value: unknown): AutheliaAccessControl {
  const parsed = AutheliaAccessControl.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new Error(`the portal's access rules would not pass Authelia 4.38's checks: ${problems.join('; ')}`);
}

