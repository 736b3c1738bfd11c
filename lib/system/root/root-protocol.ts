// The root helper's protocol (lib/root-helper): the panel connects to the helper's Unix socket,
// writes one JSON request, half-closes, and reads one JSON answer. A request names an action and
// logical names only (a service, a vhost spec); every unit name, binary and path comes from the
// helper's own root-owned configuration, so a request cannot point root at anything else.
import { z } from 'zod';
import { vhostChangesSchema, vhostSpecsSchema } from '../proxy/vhost-request.ts';
import { DNS_PLUGIN_PACKAGES, type DnsPluginPackage } from '../packages/dns-plugin-packages.ts';
import { streamChangesSchema } from '../streams/stream-request.ts';
import { SERVICE_NAMES, SystemError, type StreamChange, type VhostChange, type VhostSpec } from '../types.ts';

/** The units the panel may ask about: its four services and certbot's renewal timer. */
export const ROOT_UNITS = [...SERVICE_NAMES, 'renew-timer'] as const;
export type RootUnit = (typeof ROOT_UNITS)[number];
/** `enable` is `systemctl enable --now`. */
export const UNIT_OPS = ['start', 'stop', 'restart', 'reload', 'enable'] as const;
export type UnitOp = (typeof UNIT_OPS)[number];
export const UNIT_PROPERTIES = ['ActiveEnterTimestamp', 'NextElapseUSecRealtime', 'LastTriggerUSec'] as const;
export type UnitProperty = (typeof UNIT_PROPERTIES)[number];

/** A vhost batch is at most 1 MiB of JSON (lib/system/proxy/vhost-request.ts); the rest is small. */
export const MAX_ROOT_REQUEST_BYTES = 1024 * 1024 + 1024;

export function rootRequestSchema(sitesRoot: string) {
  const unit = z.enum(ROOT_UNITS);
  return z.discriminatedUnion('action', [
    z.strictObject({ action: z.literal('vhosts'), changes: vhostChangesSchema(sitesRoot) }),
    z.strictObject({ action: z.literal('vhosts-refresh'), specs: vhostSpecsSchema(sitesRoot) }),
    z.strictObject({ action: z.literal('streams'), changes: streamChangesSchema }),
    z.strictObject({ action: z.literal('nginx-test') }),
    z.strictObject({ action: z.literal('nginx-reload') }),
    z.strictObject({ action: z.literal('daemon-reload') }),
    z.strictObject({ action: z.literal('unit'), unit, op: z.enum(UNIT_OPS) }),
    z.strictObject({ action: z.literal('unit-state'), unit }),
    z.strictObject({ action: z.literal('unit-properties'), unit, properties: z.array(z.enum(UNIT_PROPERTIES)).min(1).max(UNIT_PROPERTIES.length) }),
    // apt-get for the wildcard mode's plugin: one of certbot's DNS plugin packages, by exact name
    z.strictObject({ action: z.literal('dns-plugin'), op: z.enum(['install', 'remove']), package: z.enum(DNS_PLUGIN_PACKAGES) }),
  ]);
}

export type RootRequest =
  | { action: 'vhosts'; changes: VhostChange[] }
  | { action: 'vhosts-refresh'; specs: VhostSpec[] }
  | { action: 'streams'; changes: StreamChange[] }
  | { action: 'nginx-test' | 'nginx-reload' | 'daemon-reload' }
  | { action: 'unit'; unit: RootUnit; op: UnitOp }
  | { action: 'unit-state'; unit: RootUnit }
  | { action: 'unit-properties'; unit: RootUnit; properties: UnitProperty[] }
  | { action: 'dns-plugin'; op: 'install' | 'remove'; package: DnsPluginPackage };

export type RootAnswer =
  | { ok: true; state?: string; properties?: Record<string, string>; rewritten?: string[] }
  | { ok: false; error: string; program?: string; details?: string };

/**
 * What the helper will not do even when asked well: stop the panel (it could not answer, nor be
 * started again through itself) or the proxy (every client, this one included, would be cut off),
 * and anything on the renewal timer but enabling it. The API refuses the same.
 */
export function refusal(request: RootRequest): string | null {
  if (request.action !== 'unit') return null;
  if (request.op === 'stop' && (request.unit === 'panel' || request.unit === 'proxy')) return `the ${request.unit} service cannot be stopped through the panel`;
  if (request.unit === 'renew-timer' && request.op !== 'enable') return 'the renewal timer can only be enabled';
  return null;
}

/**
 * The helper's reader of request documents (the schema made once, for its sites root): the request,
 * or a SystemError that says where and why it is refused.
 */
export function rootRequestParser(sitesRoot: string): (text: string) => RootRequest {
  const schema = rootRequestSchema(sitesRoot);
  return (text) => {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      throw new SystemError('Refused: not a JSON document');
    }
    const parsed = schema.safeParse(document);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const at = issue.path.length ? `${issue.path.join('.')}: ` : '';
      throw new SystemError(`Refused: ${at}${issue.message}`);
    }
    const request = parsed.data as RootRequest;
    const why = refusal(request);
    if (why) throw new SystemError(`Refused: ${why}`);
    return request;
  };
}

/** What the helper says about a failure: its message, and the program and details when a program failed. */
export function failureAnswer(e: unknown): RootAnswer {
  const err = e as Partial<SystemError>;
  return {
    ok: false,
    error: e instanceof Error ? e.message : String(e),
    ...(typeof err.program === 'string' ? { program: err.program } : {}),
    ...(typeof err.stderr === 'string' && err.stderr ? { details: err.stderr.slice(-4000) } : {}),
  };
}
