import { z } from 'zod';

// API inputs of /api/certs/* and /api/enroll; the stored agent record is lib/state/schemas.ts#AgentRecord.

export const LABEL_PATTERN = /^[a-z0-9-]{1,100}$/;
const SITE_NAME_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const MAX_LIST = 200;

/** X.509 caps a common name at 64 characters, and the certificate's is `agent:<label>`. */
const MAX_ISSUABLE_LABEL = 64 - 'agent:'.length;

/** Labels the registry may hold (and routes may name). */
export const AgentLabel = z.string().max(100).regex(LABEL_PATTERN, 'Label must be 1 to 100 lowercase letters, digits or hyphens');

/** Labels a new certificate can carry. */
const IssuableLabel = AgentLabel.refine((l) => l.length <= MAX_ISSUABLE_LABEL, `Label must be at most ${MAX_ISSUABLE_LABEL} characters to fit the certificate's common name (X.509 allows 64)`);

/** Syntax only; whether a capability exists is checked against the live set (lib/certs/capability-set.ts). */
const Capabilities = z
  .array(z.string().min(1).max(101, 'Capability names are at most 101 characters'))
  .max(MAX_LIST, `At most ${MAX_LIST} capabilities`);

const AllowedSites = z
  .array(z.string().min(1).max(100, 'Site names are at most 100 characters').regex(SITE_NAME_PATTERN, 'Site names contain only lowercase letters, digits and hyphens, not at either end'))
  .max(MAX_LIST, `At most ${MAX_LIST} sites`);

export const AgentCreate = z.object({
  label: IssuableLabel,
  capabilities: Capabilities.default([]),
  allowedSites: AllowedSites.default([]),
});
export type AgentCreate = z.infer<typeof AgentCreate>;

export const EnrollmentTokenCreate = AgentCreate.extend({
  /** Defaults to `certs.enrollmentTokenMinutes` of the configuration. */
  expiresInMinutes: z.number().int().min(1).max(1440, 'An enrollment token lives at most 24 hours (1440 minutes)').optional(),
});
export type EnrollmentTokenCreate = z.infer<typeof EnrollmentTokenCreate>;

export const CapabilitiesUpdate = z.object({ capabilities: Capabilities });
export type CapabilitiesUpdate = z.infer<typeof CapabilitiesUpdate>;

export const AllowedSitesUpdate = z.object({ allowedSites: AllowedSites });
export type AllowedSitesUpdate = z.infer<typeof AllowedSitesUpdate>;

/** Both lists in one change (PATCH /api/certs/agent/:label): a list left out stays as it is. */
export const AgentGrantsUpdate = z.object({ capabilities: Capabilities.optional(), allowedSites: AllowedSites.optional() });
export type AgentGrantsUpdate = z.infer<typeof AgentGrantsUpdate>;

export const AgentLabelParams = z.object({ label: AgentLabel });
export type AgentLabelParams = z.infer<typeof AgentLabelParams>;

const Csr = z.string().min(1, 'CSR is required').max(16_384, 'CSR is too large');

export const EnrollBody = z.object({
  token: z.string().min(1, 'Enrollment token is required').max(200),
  csr: Csr,
});
export type EnrollBody = z.infer<typeof EnrollBody>;

export const CsrBody = z.object({ csr: Csr });
export type CsrBody = z.infer<typeof CsrBody>;

/** A certbot lineage name: a domain name, lowercase. */
export const DomainParams = z.object({
  domain: z.string().max(253).regex(/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'Invalid domain name'),
});
export type DomainParams = z.infer<typeof DomainParams>;
