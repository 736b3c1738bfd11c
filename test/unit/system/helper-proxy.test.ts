// The installed panel's proxy adapter (lib/system/proxy/helper-proxy.ts) without a helper: what it
// prepares and how it hands a refresh to the root helper, whose schema takes at most
// MAX_VHOST_CHANGES vhosts a request.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HelperProxy } from '../../../lib/system/proxy/helper-proxy.ts';
import { MAX_VHOST_CHANGES } from '../../../lib/system/proxy/vhost-request.ts';
import { SystemError, type VhostSpec } from '../../../lib/system/types.ts';

const s = suite('helper proxy: refresh in batches the helper takes');
const dirs = { availableDir: '/nonexistent/available', enabledDir: '/nonexistent/enabled', routesDir: '/nonexistent/routes' };
const apps = (n: number): VhostSpec[] => Array.from({ length: n }, (_, i) => ({ kind: 'app', fqdn: `t${i}.example.test`, port: 20000 + (i % 40000) }));

s('more vhosts than one request may carry: batches of at most the limit, every name the helper rewrote answered, each spec prepared', async () => {
  const batches: number[] = [];
  let prepared = 0;
  const proxy = new HelperProxy(dirs, {
    send: async () => undefined,
    refresh: async (specs) => {
      batches.push(specs.length);
      return [`relay-app-${(specs[0] as { fqdn: string }).fqdn}.conf`];
    },
    prepare: async () => void prepared++,
    reload: async () => undefined,
  });
  const rewritten = await proxy.refresh(apps(MAX_VHOST_CHANGES * 2 + 1));
  assert.equal(batches, [MAX_VHOST_CHANGES, MAX_VHOST_CHANGES, 1]);
  assert.equal(rewritten, ['relay-app-t0.example.test.conf', `relay-app-t${MAX_VHOST_CHANGES}.example.test.conf`, `relay-app-t${MAX_VHOST_CHANGES * 2}.example.test.conf`]);
  assert.is(prepared, MAX_VHOST_CHANGES * 2 + 1);
  assert.equal(await proxy.refresh([]), [], 'nothing to ask: no request');
  assert.is(batches.length, 3);
});

s('the helper\'s refusal comes back as nginx\'s failure, with its words', async () => {
  const proxy = new HelperProxy(dirs, {
    send: async () => undefined,
    refresh: async () => {
      throw new SystemError('nginx configuration test failed', 'relay-panel-root', 'nginx: [emerg] bad');
    },
    prepare: async () => undefined,
    reload: async () => undefined,
  });
  const error = await proxy.refresh(apps(1)).then(() => null, (e: SystemError) => e);
  assert.ok(error instanceof SystemError);
  assert.equal([error!.message, error!.program, error!.stderr], ['nginx configuration test failed', 'nginx', 'nginx: [emerg] bad']);
});

s.run();
