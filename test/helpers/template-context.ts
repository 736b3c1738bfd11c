// A nginx template context with a box's usual ports and placeholder paths: for rendering vhosts
// outside a system (the templates' unit test, the vhost stamps' test, the traffic bench's nginx lines).
import type { TemplateContext } from '../../lib/system/proxy/templates.ts';

export const SAMPLE_TEMPLATE_CONTEXT: TemplateContext = {
  listenAddress: '127.0.0.1',
  ports: { http: 80, https: 443, ipPanel: 9292, panel: 3100, tunnelServer: 9090, authPortal: 9091 },
  acmeWebroot: '/var/www/relay-panel-acme',
  helpDir: '/var/www/help',
  mtls: { caPath: '/pki/ca.pem', crlPath: '/pki/crl.pem' },
  ipPanelCert: { fullchain: '/self/ip.pem', privkey: '/self/ip.key' },
  defaultCert: { fullchain: '/self/default.pem', privkey: '/self/default.key' },
  publicLocations: { exact: ['/api/health', '/api/enroll'], prefix: ['/api/invite/'] },
  trafficPort: null,
  routesDir: '/etc/nginx/relay-routes',
  sniDir: '/etc/nginx/relay-panel-tls/sni',
  certFor: (fqdn) => ({ fullchain: `/le/live/${fqdn}/fullchain.pem`, privkey: `/le/live/${fqdn}/privkey.pem` }),
};
