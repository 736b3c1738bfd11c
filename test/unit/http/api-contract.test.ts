// The API contract as the panel reads it (handlers/index.ts): an answer's type is the route's
// response schema, so reading a field no route sends, or returning one a schema lacks, fails
// `tsc` (the @ts-expect-error lines below are themselves errors once the types go loose). The
// runtime case checks that the contract's route is the one the router serves.
import { z } from 'zod';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes, type UrlAnswer, type UrlJsonVariant, type WsMessage } from '../../../handlers/index.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { TunnelRecord } from '../../../lib/state/schemas.ts';

const s = suite('the API contract the panel is typed from');

type Tunnel = UrlAnswer<'GET', '/api/tunnels'>['tunnels'][number];
type Traffic = UrlAnswer<'GET', `/api/tunnels/${string}/traffic`>;

export function readsOnlyWhatIsSent(tunnel: Tunnel, traffic: Traffic): unknown[] {
  // @ts-expect-error a field GET /api/tunnels does not send
  const missing = tunnel.hostname;
  // @ts-expect-error a field the traffic answer does not have
  const alsoMissing = traffic.nothingHere;
  return [tunnel.fqdn, tunnel.port, traffic, missing, alsoMissing];
}

type Provisioning = WsMessage<'/api/onboarding/provision/stream'>;
type PlistJson = UrlJsonVariant<'GET', '/api/tunnels/mac-plist'>;

export function readsOnlyWhatIsStreamed(message: Provisioning, plist: PlistJson): unknown[] {
  // @ts-expect-error a field no provisioning message carries
  const missing = message.hostname;
  // @ts-expect-error only the complete message carries the credentials
  const early = message.credentials;
  const password = message.type === 'complete' ? message.credentials.password : undefined;
  // @ts-expect-error the plist's JSON variant has no such instruction
  const alsoMissing = plist.instructions.reboot;
  return [missing, early, password, plist.instructions.install, alsoMissing];
}

export const wrongReturn = route({
  method: 'GET',
  path: '/api/contract/probe',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  response: { schema: z.object({ name: z.string() }) },
  // @ts-expect-error the handler must return what its schema describes
  handle: () => ({ title: 'x' }),
});

s('GET /api/tunnels answers the TunnelRecord list the contract reads', () => {
  const list = routes.find((r) => r.method === 'GET' && r.path === '/api/tunnels');
  const schema = list?.response?.schema as z.ZodObject<{ tunnels: z.ZodArray<typeof TunnelRecord> }> | undefined;
  assert.ok(schema, 'the route documents its answer');
  assert.equal(Object.keys(schema.shape.tunnels.element.shape).sort(), Object.keys(TunnelRecord.shape).sort());
});

s.run();
