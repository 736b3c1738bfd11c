import { X509Certificate } from 'node:crypto';

/** notAfter of a PEM certificate, ISO 8601 UTC. */
export const certificateExpiry = (certPem: string): string => new Date(new X509Certificate(certPem).validTo).toISOString();
