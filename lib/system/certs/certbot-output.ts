// `certbot certificates` output: one block per lineage.
export interface CertbotLineage {
  name: string;
  domains: string[];
  expiresAt: string;
  certificatePath: string;
  privateKeyPath: string;
}

export function parseCertbotCertificates(stdout: string): CertbotLineage[] {
  const out: CertbotLineage[] = [];
  let current: Partial<CertbotLineage> | null = null;
  const flush = () => {
    if (current?.name && current.expiresAt) {
      out.push({
        name: current.name,
        domains: current.domains ?? [current.name],
        expiresAt: current.expiresAt,
        certificatePath: current.certificatePath ?? '',
        privateKeyPath: current.privateKeyPath ?? '',
      });
    }
  };
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    const [key, ...rest] = line.split(': ');
    const value = rest.join(': ').trim();
    switch (key) {
      case 'Certificate Name':
        flush();
        current = { name: value };
        break;
      case 'Domains':
        if (current) current.domains = value.split(/\s+/).filter(Boolean);
        break;
      case 'Expiry Date':
        if (current) current.expiresAt = parseExpiry(value);
        break;
      case 'Certificate Path':
        if (current) current.certificatePath = value;
        break;
      case 'Private Key Path':
        if (current) current.privateKeyPath = value;
        break;
    }
  }
  flush();
  return out;
}

/** `2031-11-21 23:10:15+00:00 (VALID: 1825 days)` -> ISO 8601 UTC. */
function parseExpiry(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})([+-]\d{2}:\d{2})?/.exec(value);
  if (!m) return '';
  return new Date(`${m[1]}T${m[2]}${m[3] ?? 'Z'}`).toISOString();
}

/** The few lines of a failed certbot run that explain it (ACME "Detail:" lines first). */
export function certbotFailureSummary(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const details = lines.filter((l) => /^(Detail|Domain|Type):/.test(l));
  if (details.some((l) => l.startsWith('Detail:'))) {
    return details.filter((l) => !l.startsWith('Type:')).map((l) => l.replace(/^(Detail|Domain): /, '')).join(': ');
  }
  const errors = lines.filter((l) => /error|fail|unable|could not|invalid/i.test(l) && !/^Ask for help|^Some challenges have failed|logfile|log file|debug log/i.test(l));
  return (errors.length ? errors : lines).slice(-3).join(' ');
}
