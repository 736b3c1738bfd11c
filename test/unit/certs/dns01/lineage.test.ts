// Which certificate a vhost names: in wildcard mode, the names one label under the base domain
// name the wildcard lineage; deeper names and custom domains keep their own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { wildcardLineageFor } from '../../../../lib/certs/dns01/lineage.ts';
import { PER_NAME, type CertificateModeRecord } from '../../../../lib/certs/dns01/mode.ts';
import { appVhost, siteVhost } from '../../../../lib/host-state/vhost-specs.ts';
import { renderVhost } from '../../../../lib/system/proxy/templates.ts';
import type { SiteRecord } from '../../../../lib/state/schemas.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../../helpers/template-context.ts';

const s = suite('dns01: the lineage a vhost names');
const WILDCARD: CertificateModeRecord = { mode: 'wildcard', provider: 'rfc2136', lineage: 'relay.test', propagationSeconds: 0, keysSet: [] };
const wildcard = { domain: 'relay.test', certificateMode: WILDCARD };
const perName = { domain: 'relay.test', certificateMode: PER_NAME };

s('one label under the domain: the wildcard lineage; anything else: its own', () => {
  assert.is(wildcardLineageFor('app.relay.test', wildcard), 'relay.test');
  assert.is(wildcardLineageFor('a.b.relay.test', wildcard), null, '*.relay.test covers one label only');
  assert.is(wildcardLineageFor('relay.test', wildcard), null);
  assert.is(wildcardLineageFor('shop.example.com', wildcard), null, 'a custom domain keeps HTTP-01');
  assert.is(wildcardLineageFor('xrelay.test', wildcard), null);
  assert.is(wildcardLineageFor('app.relay.test', perName), null);
});

s('app and site specs name the lineage in wildcard mode, nothing in per-name mode', () => {
  assert.equal(appVhost({ fqdn: 'app.relay.test', port: 8080 }, wildcard), { kind: 'app', fqdn: 'app.relay.test', port: 8080, cert: 'relay.test' });
  assert.equal(appVhost({ fqdn: 'app.relay.test', port: 8080 }, perName), { kind: 'app', fqdn: 'app.relay.test', port: 8080 });
  const site = { id: 'i', fqdn: 'blog.relay.test', rootPath: '/srv/sites/i', spaMode: false, autheliaProtected: false } as SiteRecord;
  assert.is((siteVhost(site, 'relay.test', wildcard) as { cert?: string }).cert, 'relay.test');
  assert.is((siteVhost({ ...site, fqdn: 'blog.example.com' }, 'relay.test', wildcard) as { cert?: string }).cert, undefined);
});

s('the rendered vhost loads the lineage\'s files and still answers its own name', () => {
  const ctx = SAMPLE_TEMPLATE_CONTEXT;
  const text = renderVhost(appVhost({ fqdn: 'app.relay.test', port: 8080 }, wildcard), ctx);
  assert.ok(text.includes(`ssl_certificate "${ctx.certFor('relay.test').fullchain}";`), text);
  assert.ok(text.includes(`ssl_certificate_key "${ctx.certFor('relay.test').privkey}";`));
  assert.ok(text.includes('server_name app.relay.test;'));
  assert.not.ok(text.includes(ctx.certFor('app.relay.test').fullchain));
});

s.run();
