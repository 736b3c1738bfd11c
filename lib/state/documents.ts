import { join } from 'node:path';
import { z } from 'zod';
import { JsonCollection, type Persistence } from './collection.ts';

// The store's single documents, beside its record collections: each one JSON file in the data
// directory (0600), read at open and rewritten whole on each change.

const Rotation = z.object({
  /** the certificate being replaced (the requester's), null when unknown */
  previousSerial: z.string().nullable(),
  newSerial: z.string(),
  startedAt: z.string(),
  graceEndsAt: z.string(),
  /** pending until the new certificate is first used or the grace period ends */
  state: z.enum(['pending', 'completed', 'cancelled']),
  completedAt: z.string().nullable(),
  completedBy: z.enum(['first-use', 'grace-period']).nullable(),
});

export const AdminCertState = z.object({
  authMode: z.enum(['p12', 'hardware-bound']),
  /** the admin certificate the panel issued last; null while only one made elsewhere is known */
  serial: z.string().nullable(),
  expiresAt: z.string().nullable(),
  rotation: Rotation.nullable(),
  /** a rotated P12 is waiting for its one download */
  bundlePending: z.boolean(),
});
export type AdminCertState = z.infer<typeof AdminCertState>;

const ADMIN_CERT_INITIAL: AdminCertState = { authMode: 'p12', serial: null, expiresAt: null, rotation: null, bundlePending: false };

export const EnrollmentToken = z.object({
  /** sha-256 (hex) of the token; the token itself is shown once and never stored */
  tokenHash: z.string(),
  label: z.string(),
  capabilities: z.array(z.string()),
  allowedSites: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string(),
  usedAt: z.string().nullable(),
});
export type EnrollmentToken = z.infer<typeof EnrollmentToken>;

export interface Documents {
  /** The admin certificate's rotation and authentication mode (lib/certs/admin-cert.ts). */
  adminCert: JsonCollection<AdminCertState>;
  /** Enrollment tokens, hashed (lib/certs/enrollment.ts). */
  enrollmentTokens: JsonCollection<EnrollmentToken[]>;
}

/** `listing`: the data directory's names, so a document that is not there is not opened. */
export async function openDocuments(dataDir: string, persistence: Persistence, listing: readonly string[]): Promise<Documents> {
  const open = <T>(name: string, schema: z.ZodType<T>, initial: () => T) =>
    JsonCollection.open({ file: join(dataDir, name), schema, initial, mode: 0o600, persistence, listing });
  const [adminCert, enrollmentTokens] = await Promise.all([
    open('admin-cert.json', AdminCertState, () => structuredClone(ADMIN_CERT_INITIAL)),
    open('enrollment-tokens.json', z.array(EnrollmentToken), () => []),
  ]);
  return { adminCert, enrollmentTokens };
}
