import { stackHosts } from '../../stack-hosts.ts';
import type { ProvisioningTask } from './context.ts';

// Task 3. One at a time: certbot holds a lock per configuration directory. certs.issue skips a
// name that already has a valid certificate, so a retry never asks the CA twice.
export const issueCertificates: ProvisioningTask = {
  id: 'certificates',
  title: 'Issue TLS certificates',
  async run({ system, domain, email, log }) {
    const h = stackHosts(domain);
    for (const fqdn of [h.panel, h.auth, h.tunnel]) {
      log(`Requesting a certificate for ${fqdn}`);
      const { issued } = await system.certs.issue(fqdn, email);
      log(issued ? `${fqdn}: certificate issued` : `${fqdn}: a valid certificate exists, kept`);
    }
    log('Setting up automatic renewal');
    await system.certs.setupAutoRenew();
    return 'Certificates ready for panel., auth. and tunnel.; automatic renewal is on';
  },
};
