import { z } from 'zod';

// API inputs of the users endpoints (spec: User and Limits). Invitations reuse the same rules.

export const Username = z
  .string()
  .min(2, 'Username must be at least 2 characters')
  .max(32, 'Username must be at most 32 characters')
  // the spec's class, a leading hyphen included: the portal's CLI gets the name after `--` (lib/system/auth-portal/host.ts)
  .regex(/^[a-z0-9_-]+$/, 'Username may contain only lowercase letters, digits, underscores and hyphens');

export const Displayname = z.string().min(1, 'Display name is required').max(100, 'Display name must be at most 100 characters');
export const Email = z.email('Invalid email address').max(254, 'Email must be at most 254 characters');
export const Password = z.string().min(8, 'Password must be at least 8 characters').max(128, 'Password must be at most 128 characters');

/** Group names as the portal's access rules use them (`group:<name>`); repeats are dropped. */
export const Groups = z
  .array(z.string().max(64).regex(/^[A-Za-z0-9_.-]{1,64}$/, 'Group names are 1 to 64 letters, digits, dots, underscores or hyphens'))
  .max(50, 'At most 50 groups')
  .transform((groups) => [...new Set(groups)]);

export const UserCreate = z.object({
  username: Username,
  displayname: Displayname,
  email: Email,
  password: Password,
  groups: Groups.default([]),
});
export type UserCreate = z.infer<typeof UserCreate>;

export const UserUpdate = z
  .object({ displayname: Displayname.optional(), email: Email.optional(), password: Password.optional(), groups: Groups.optional() })
  .refine((u) => Object.values(u).some((v) => v !== undefined), 'At least one of displayname, email, password or groups is required');
export type UserUpdate = z.infer<typeof UserUpdate>;

/** Any string: a name that matches no user answers 404 `User not found`, not 400. */
export const UsernameParams = z.object({ username: z.string().max(256) });
export type UsernameParams = z.infer<typeof UsernameParams>;

/** A user as the API shows it: never the hash, never a TOTP secret. */
export const PublicUserShape = z.object({ username: z.string(), displayname: z.string(), email: z.string(), groups: z.array(z.string()) });
export type PublicUser = z.infer<typeof PublicUserShape>;
