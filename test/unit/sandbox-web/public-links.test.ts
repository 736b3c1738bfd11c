// The one place that decides how a served name is opened: nginx's https on a real host (and in a
// runtime without the sandbox's server), the sandbox server's own http port once it answers them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSchema, type Config } from '../../../lib/config.ts';
import { PublicLinks } from '../../../lib/public-links.ts';

const s = suite('public links');

const config = (system: Record<string, unknown>): Config =>
  ConfigSchema.parse({ ip: '127.0.0.1', domain: 'relay.localhost', email: null, dataDir: '/tmp/x', onboarding: { status: 'COMPLETED' }, listen: { host: '127.0.0.1', port: 3100 }, system });

s('a real host: https on the configured https port, the IP panel on its own port, nothing offered', () => {
  const links = new PublicLinks(() => config({ driver: 'host', ports: { https: 8443 } }));
  assert.is(links.origin('app.example.com'), 'https://app.example.com:8443');
  assert.equal(links.accessUrls('example.com', '203.0.113.7'), { panel: 'https://panel.example.com:8443', authPortal: 'https://auth.example.com:8443', ip: 'https://203.0.113.7:9292' });
  assert.is(links.suggestedDomain(), null);
  assert.is(new PublicLinks(() => config({ driver: 'host' })).origin('app.example.com'), 'https://app.example.com');
});

s("the sandbox: relay.localhost offered; once its server answers the names, every link is http on that server's port", () => {
  const links = new PublicLinks(() => config({ driver: 'sandbox' }));
  assert.is(links.suggestedDomain(), 'relay.localhost');
  links.servedHere(41234);
  assert.equal(links.base(), { scheme: 'http', port: 41234 });
  assert.equal(links.accessUrls('relay.localhost', '127.0.0.1'), {
    panel: 'http://panel.relay.localhost:41234', authPortal: 'http://auth.relay.localhost:41234', ip: 'http://127.0.0.1:41234',
  });
});

s.run();
