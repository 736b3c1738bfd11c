// The vhosts access shapes: a protected app or site sends the portal's 403 to the panel's refused
// page; a public tunnel never asks the portal and passes no Remote-* header a client made up.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderVhost } from '../../../lib/system/proxy/templates.ts';
import { vhostChangesSchema } from '../../../lib/system/proxy/vhost-request.ts';
import { SAMPLE_TEMPLATE_CONTEXT as ctx } from '../../helpers/template-context.ts';

const s = suite('access in the vhosts');

s('a protected app: error_page 403 to the panel\'s page, which gets no body, cookie or certificate header', () => {
  const text = renderVhost({ kind: 'app', fqdn: 'app.example.test', port: 8080 }, ctx);
  assert.match(text, /auth_request \/internal\/relay-authz;/);
  assert.match(text, /error_page 403 @relay_refused;/);
  const refused = text.slice(text.indexOf('location @relay_refused {'), text.indexOf('}', text.indexOf('location @relay_refused {')));
  assert.match(refused, /rewrite \^ \/api\/access\/refused break;/);
  assert.match(refused, new RegExp(`proxy_pass http://127.0.0.1:${ctx.ports.panel};`));
  assert.match(refused, /proxy_set_header Cookie "";/);
  assert.match(refused, /proxy_set_header X-SSL-Client-Verify "";/);
  assert.match(refused, /proxy_pass_request_body off;/);
});

s('a public app: no auth_request, no refused page, Remote-* headers cleared', () => {
  const text = renderVhost({ kind: 'app', fqdn: 'open.example.test', port: 8080, public: true }, ctx);
  assert.not.match(text, /auth_request|relay-authz|relay_refused/);
  for (const h of ['Remote-User', 'Remote-Groups', 'Remote-Name', 'Remote-Email']) assert.match(text, new RegExp(`proxy_set_header ${h} "";`));
  assert.match(text, /PUBLIC: no auth portal/);
});

s('a protected site has the refused page; an open one does not', () => {
  const site = { kind: 'site' as const, fqdn: 'blog.example.test', root: '/srv/sites/x', spaMode: false };
  assert.match(renderVhost({ ...site, protected: true }, ctx), /error_page 403 @relay_refused;/);
  assert.not.match(renderVhost({ ...site, protected: false }, ctx), /relay_refused/);
});

s('the root helper takes `public: true` on an app and nothing else new', () => {
  const schema = vhostChangesSchema('/srv/sites');
  assert.ok(schema.safeParse([{ op: 'put', spec: { kind: 'app', fqdn: 'a.example.test', port: 80, public: true }, enabled: true }]).success);
  assert.not.ok(schema.safeParse([{ op: 'put', spec: { kind: 'app', fqdn: 'a.example.test', port: 80, public: false }, enabled: true }]).success);
  assert.not.ok(schema.safeParse([{ op: 'put', spec: { kind: 'app', fqdn: 'a.example.test', port: 80, contact: 'x' }, enabled: true }]).success);
});

s.run();
