import { z } from 'zod';
import { Groups, Username } from '../users/schema.ts';
import { ACCESS_MODES, ACCESS_POLICIES, RULE_METHODS } from '../state/schemas.ts';
import { networkProblem, regexProblem } from '../system/auth-portal/rule-patterns.ts';

// API input of the access routes. The stored shape is lib/state/schemas.ts#AccessRecord: what is
// checked here (patterns, ranges) is checked before it is stored, and names against the portal's
// users and groups in lib/access/service.ts.

const PathPattern = z
  .string()
  .min(1, 'A path pattern must not be empty')
  .max(500)
  .superRefine((source, ctx) => {
    const problem = regexProblem(source);
    if (problem) ctx.addIssue({ code: 'custom', message: `Path pattern ${JSON.stringify(source)}: ${problem}` });
  });

const Network = z
  .string()
  .max(64)
  .superRefine((value, ctx) => {
    const problem = networkProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `Network ${JSON.stringify(value)}: ${problem}` });
  });

const unique = <T>(list: T[]) => [...new Set(list)];

export const AccessRuleInput = z
  .strictObject({
    resources: z.array(PathPattern).max(20).transform(unique).optional(),
    networks: z.array(Network).max(50).transform(unique).optional(),
    methods: z.array(z.enum(RULE_METHODS)).max(RULE_METHODS.length).transform(unique).optional(),
    policy: z.enum(ACCESS_POLICIES),
  })
  // a rule for the whole app would be a second way to make it public (or shut): that is `mode`'s job
  .refine((r) => Boolean(r.resources?.length || r.networks?.length || r.methods?.length), 'A rule needs resources, networks or methods');

export const AccessInput = z
  .strictObject({
    mode: z.enum(ACCESS_MODES).default('authenticated'),
    users: z.array(Username).max(1000).transform(unique).default([]),
    groups: Groups.default([]),
    rules: z.array(AccessRuleInput).max(50).default([]),
  });
export type AccessInput = z.infer<typeof AccessInput>;

/** Sites have no `public`: a site without the portal is `autheliaProtected: false`. */
export const SiteAccessInput = AccessInput.refine((a) => a.mode !== 'public', { message: 'A site cannot be public: turn its portal protection off instead', path: ['mode'] });

export const GroupNameParams = z.object({ name: z.string().max(64) });
/** One group name, by the users' `groups` rule (lib/users/schema.ts). */
export const GroupName = z.string().max(64).regex(/^[A-Za-z0-9_.-]{1,64}$/, 'Group names are 1 to 64 letters, digits, dots, underscores or hyphens');
export const GroupRename = z.strictObject({ name: GroupName });
export const GroupMembers = z.strictObject({ users: z.array(Username).max(1000).transform(unique) });
export const UserReachParams = z.object({ username: z.string().max(256) });
