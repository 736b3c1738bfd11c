import { suite } from 'uvu';
import { createTestApp, type TestApp, type TestAppOptions } from '../../../lib/testing.ts';
import { sandboxControls, type SandboxControls } from '../../../lib/system/sandbox-system.ts';
import type { VhostState } from '../../../lib/system/types.ts';

export const DOMAIN = 'example.test';

export interface TunnelTestApp extends TestApp {
  sandbox: SandboxControls;
}

/** A sandbox app after onboarding (domain example.test). */
export async function tunnelApp(options?: TestAppOptions): Promise<TunnelTestApp> {
  const t = await createTestApp(options);
  await t.completeOnboarding(DOMAIN);
  return Object.assign(t, { sandbox: sandboxControls(t.services.system) });
}

export async function createTunnel(t: TestApp, subdomain: string, port: number, as: Parameters<TestApp['call']>[2] = {}) {
  return t.call('POST', '/api/tunnels', { ...as, body: { subdomain, port } });
}

export function vhostState(t: TestApp, subdomain: string, port = 1): Promise<VhostState> {
  const { proxy } = t.services.system;
  return proxy.state(proxy.vhostName({ kind: 'app', fqdn: `${subdomain}.${DOMAIN}`, port }));
}

export function allowedPorts(t: TestApp): Promise<number[]> {
  return t.services.system.tunnelServer.allowedPorts();
}

/** A suite whose every test starts on a fresh app holding the tunnels keep (port 7000) and app (8080, its id in ctx.id). */
export function twoTunnelSuite(name: string) {
  const s = suite<{ t: TunnelTestApp; id: string }>(name, {} as { t: TunnelTestApp; id: string });
  s.before.each(async (ctx) => {
    ctx.t = await tunnelApp();
    await createTunnel(ctx.t, 'keep', 7000);
    ctx.id = (await createTunnel(ctx.t, 'app', 8080)).body.tunnel.id;
  });
  s.after.each(async (ctx) => {
    await ctx.t.close();
  });
  return s;
}

/**
 * The loopback port a tunnel's file sends its name to: a route's map entry (`<fqdn> <port>;`, the
 * shared server's) or its own server's `proxy_pass` (a public or deeper name's).
 */
export function upstreamPort(text: string): number | null {
  const port = /^[a-z0-9.-]+ ([0-9]+);$/m.exec(text)?.[1] ?? /proxy_pass http:\/\/127\.0\.0\.1:([0-9]+);/.exec(text)?.[1];
  return port === undefined ? null : Number(port);
}
