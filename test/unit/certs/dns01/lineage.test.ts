// Which certificate a vhost names: in wildcard mode, the names one label under the base domain
// name the wildcard lineage; deeper names and custom domains keep their own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { wildcardLineageFor } from '../../../../lib/certs/dns01/lineage.ts';
import { PER_NAME, type CertificateModeRecord } from '../../../../lib/certs/dns01/mode.ts';
import { appVhost, siteVhost, tunnelsVhost } from '../../../../lib/host-state/vhost-specs.ts';
import { renderVhost } from '../../../../lib/system/proxy/templates.ts';
import type { AccessRecord, SiteRecord } from '../../../../lib/state/schemas.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../../helpers/template-context.ts';

const s = suite('dns01: the lineage a vhost names');
const WILDCARD: CertificateModeRecord = { mode: 'wildcard', provider: 'rfc2136', lineage: 'relay.test', propagationSeconds: 0, keysSet: [] };
const wildcard = { domain: 'relay.test', certificateMode: WILDCARD };
const perName = { domain: 'relay.test', certificateMode: PER_NAME };
const open: AccessRecord = { mode: 'public', users: [], groups: [], rules: [] };

s('one label under the domain: the wildcard lineage; anything else: its own', () => {
  assert.is(wildcardLineageFor('app.relay.test', wildcard), 'relay.test');
  assert.is(wildcardLineageFor('a.b.relay.test', wildcard), null, '*.relay.test covers one label only');
  assert.is(wildcardLineageFor('relay.test', wildcard), null);
  assert.is(wildcardLineageFor('shop.example.com', wildcard), null, 'a custom domain keeps HTTP-01');
  assert.is(wildcardLineageFor('xrelay.test', wildcard), null);
  assert.is(wildcardLineageFor('app.relay.test', perName), null);
  assert.is(wildcardLineageFor('app.other.test', { ...wildcard, domain: 'other.test' }), null, 'the domain changed after the switch: its lineage covers none of the new names');
});

s('app and site specs name the lineage in wildcard mode, nothing in per-name mode; a covered app is shared unless public', () => {
  assert.equal(appVhost({ fqdn: 'app.relay.test', port: 8080 }, wildcard), { kind: 'app', fqdn: 'app.relay.test', port: 8080, cert: 'relay.test', shared: true });
  assert.equal(appVhost({ fqdn: 'app.relay.test', port: 8080, access: open }, wildcard), { kind: 'app', fqdn: 'app.relay.test', port: 8080, public: true, cert: 'relay.test' });
  assert.equal(appVhost({ fqdn: 'a.b.relay.test', port: 8080 }, wildcard), { kind: 'app', fqdn: 'a.b.relay.test', port: 8080 }, 'a deeper name keeps a vhost and certificate of its own');
  assert.equal(appVhost({ fqdn: 'app.relay.test', port: 8080 }, perName), { kind: 'app', fqdn: 'app.relay.test', port: 8080, shared: true }, 'per name, shared too: the map serves its own certificate');
  assert.equal(appVhost({ fqdn: 'a.b.relay.test', port: 8080 }, perName), { kind: 'app', fqdn: 'a.b.relay.test', port: 8080 });
  assert.equal(appVhost({ fqdn: 'app.relay.test', port: 8080, access: open }, perName), { kind: 'app', fqdn: 'app.relay.test', port: 8080, public: true });
  const site = { id: 'i', fqdn: 'blog.relay.test', rootPath: '/srv/sites/i', spaMode: false, autheliaProtected: false } as SiteRecord;
  assert.is((siteVhost(site, 'relay.test', wildcard) as { cert?: string }).cert, 'relay.test');
  assert.is((siteVhost({ ...site, fqdn: 'blog.example.com' }, 'relay.test', wildcard) as { cert?: string }).cert, undefined);
});

s('a shared app is one line of the shared server\'s map; that server loads the lineage for every name under it', () => {
  const ctx = SAMPLE_TEMPLATE_CONTEXT;
  const route = renderVhost(appVhost({ fqdn: 'app.relay.test', port: 8080 }, wildcard), ctx);
  assert.equal(route.split('\n').filter((line) => line && !line.startsWith('#')), ['app.relay.test 8080;']);
  const shared = renderVhost(tunnelsVhost('relay.test', wildcard), ctx);
  assert.ok(shared.includes(`ssl_certificate "${ctx.certFor('relay.test').fullchain}";`), shared);
  assert.ok(shared.includes('server_name *.relay.test;'));
  assert.ok(shared.includes(`include "${ctx.routesDir}/*.conf";`));
  assert.ok(shared.includes('proxy_pass http://127.0.0.1:$relay_tunnel_port;'));
  assert.ok(shared.includes('auth_request /internal/relay-authz;'), 'behind the portal');
  const logged = renderVhost(tunnelsVhost('relay.test', wildcard), { ...ctx, trafficPort: 5555 });
  assert.ok(logged.includes('log_format relay_traffic_tunnels_relay_test escape=json'), 'a log format named after its domain: nginx refuses two of one name');
  assert.ok(logged.includes('"v":"app:$host"') && logged.includes('if=$relay_tunnel_port;'), 'each request under the name it was for, routed names only');
});

s('a public app\'s vhost loads the lineage\'s files and still answers its own name', () => {
  const ctx = SAMPLE_TEMPLATE_CONTEXT;
  const text = renderVhost(appVhost({ fqdn: 'app.relay.test', port: 8080, access: open }, wildcard), ctx);
  assert.ok(text.includes(`ssl_certificate "${ctx.certFor('relay.test').fullchain}";`), text);
  assert.ok(text.includes(`ssl_certificate_key "${ctx.certFor('relay.test').privkey}";`));
  assert.ok(text.includes('server_name app.relay.test;'));
  assert.not.ok(text.includes(ctx.certFor('app.relay.test').fullchain));
});

s('per name, the shared server serves each name its own certificate from root\'s map, and loads no file a name gives', () => {
  const ctx = SAMPLE_TEMPLATE_CONTEXT;
  assert.equal(tunnelsVhost('relay.test', perName), { kind: 'tunnels', fqdn: 'relay.test', sni: true });
  const shared = renderVhost(tunnelsVhost('relay.test', perName), ctx);
  for (const part of [0, 1, 2, 3]) {
    assert.ok(shared.includes(`map $ssl_server_name $relay_sni_pem${part} {`), shared);
    assert.ok(shared.includes(`include "${ctx.sniDir}/names/*.${part}.conf";`));
    assert.ok(shared.includes(`include "${ctx.sniDir}/fallback[.]${part}.conf";`), 'a glob: a configuration without the map still loads');
  }
  assert.ok(shared.includes('ssl_certificate data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3;') && shared.includes('ssl_certificate_key data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3;'));
  assert.not.ok(shared.includes('/fullchain.pem'), 'no certificate file of its own');
  assert.ok(shared.includes('auth_request /internal/relay-authz;'), 'behind the portal');
});

s.run();
