import type { CertLimitsSetting, LimitName } from './schema.ts';

export type Limits = Record<LimitName, number | null>;
export type LimitsSource = 'letsencrypt' | 'letsencrypt-staging' | 'setting';

const DAY_MS = 24 * 3600_000;
/** How far back each limit looks. */
export const WINDOW_MS: Record<LimitName, number> = {
  newPerRegisteredDomain: 7 * DAY_MS,
  duplicatePerNameSet: 7 * DAY_MS,
  failedValidationsPerHostname: 3600_000,
  ordersPerAccount: 3 * 3600_000,
};
/** The ledger keeps what the longest window sees. */
export const LEDGER_KEEP_MS = Math.max(...Object.values(WINDOW_MS));

// letsencrypt.org/docs/rate-limits and /docs/staging-environment
const PRODUCTION: Limits = { newPerRegisteredDomain: 50, duplicatePerNameSet: 5, failedValidationsPerHostname: 5, ordersPerAccount: 300 };
const STAGING: Limits = { newPerRegisteredDomain: 30_000, duplicatePerNameSet: 30_000, failedValidationsPerHostname: 60, ordersPerAccount: 1_500 };
const NONE: Limits = { newPerRegisteredDomain: null, duplicatePerNameSet: null, failedValidationsPerHostname: null, ordersPerAccount: null };

function sourceOf(server: string): LimitsSource {
  let host: string;
  try {
    host = new URL(server).hostname.toLowerCase();
  } catch {
    return 'setting';
  }
  if (host === 'acme-v02.api.letsencrypt.org') return 'letsencrypt';
  if (host === 'acme-staging-v02.api.letsencrypt.org') return 'letsencrypt-staging';
  return 'setting';
}

/**
 * The limits in force for an ACME server: its CA's published ones (if known), each replaced by the
 * setting's field when given. The sandbox driver plays its own CA whatever the server says: no defaults.
 */
export function limitsFor(server: string, setting: CertLimitsSetting | undefined, driver: 'host' | 'sandbox' = 'host'): { source: LimitsSource; limits: Limits } {
  const source = driver === 'sandbox' ? 'setting' : sourceOf(server);
  const base = source === 'letsencrypt' ? PRODUCTION : source === 'letsencrypt-staging' ? STAGING : NONE;
  const limits = { ...base };
  for (const name of Object.keys(limits) as LimitName[]) {
    const value = setting?.[name];
    if (value !== undefined) limits[name] = value;
  }
  return { source, limits };
}
