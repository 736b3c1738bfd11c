// Authelia 4.38's `access_control` as its published JSON schema (configuration.json, $defs
// AccessControl and AccessControlRule) describes it, plus the checks its configuration validator
// makes at start that the schema cannot say (a bypass rule may not name a subject). The panel checks
// what it rendered here before writing: a configuration the portal refuses would keep it down, and
// every protected app shut with it.
import { z } from 'zod';
import { networkProblem, regexProblem } from './rule-patterns.ts';

const POLICY = z.enum(['bypass', 'deny', 'one_factor', 'two_factor']);
const METHOD = z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'CONNECT', 'OPTIONS', 'COPY', 'LOCK', 'MKCOL', 'MOVE', 'PROPFIND', 'PROPPATCH', 'UNLOCK']);
const SUBJECT = z.string().regex(/^(user|group|oauth2:client):.+$/);

const uniqueList = <T extends z.ZodType>(item: T) =>
  z.union([item, z.array(item).min(1).refine((list) => new Set(list.map(String)).size === list.length, 'items must be unique')]);

// the same checks the API makes (rule-patterns.ts): a stored or restored record is held to them again here
const network = z.string().refine((value) => networkProblem(value) === null, 'must be an IP address or CIDR range');

const regex = z.string().superRefine((source, ctx) => {
  const problem = regexProblem(source);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

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

