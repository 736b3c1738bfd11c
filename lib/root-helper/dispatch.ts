// One request to the root helper, from its text to its answer: checked by the protocol's schema
// (root-protocol.ts), then carried out with the helper's own configuration. Changes run one at a
// time (two vhost batches must not interleave); questions about a unit's state do not wait.
// nginx's test and reload first copy the TLS material again (a renewal's deploy hook and a
// revocation arrive as a reload), keeping the previous copy of a refused source (tls-copies.ts);
// a client CA kept so makes the answer a refusal (its old CRL leaves a revocation out), a lineage
// kept so does not (the old certificate still serves). Nothing lets nginx load its configuration
// while a relay vhost names TLS material outside root's copies (tls-paths-rewrite.ts).
import { join } from 'node:path';
import { serialQueue } from '../keyed-lock.ts';
import type { SystemConfig } from '../system/config.ts';
import { directRootActions } from '../system/root/root-actions.ts';
import { failureAnswer, rootRequestParser, type RootAnswer, type RootRequest } from '../system/root/root-protocol.ts';
import { vhostName } from '../system/proxy/templates.ts';
import { SystemError, type PublicLocations, type VhostChange } from '../system/types.ts';
import { applyVhostChanges, refreshVhostSpecs } from './apply.ts';
import { usesTlsCopies } from '../system/proxy/tls-copy-paths.ts';
import { dnsPluginPackage } from './dns-plugin.ts';
import { createHostStreams } from '../system/streams/host.ts';
import { restageTlsCopies, type KeptEntry } from './tls-copies.ts';
import { CLIENT_CA_ENTRY } from './tls-entries.ts';
import { refuseForeignTlsPaths } from './tls-paths-rewrite.ts';
import { tlsSourceOwners } from './tls-owner.ts';
import { sniSources } from '../system/proxy/host.ts';
import { syncSniFiles } from '../system/proxy/sni-files.ts';

export interface Dispatcher {
  /** the answer and a line for the helper's log */
  answer(text: string): Promise<{ answer: RootAnswer; summary: string }>;
}

/** A line that says what was asked, never a vhost's content. */
export function describe(request: RootRequest): string {
  switch (request.action) {
    case 'vhosts':
      return `vhosts (${request.changes.length} change${request.changes.length === 1 ? '' : 's'})`;
    case 'vhosts-refresh':
      return `vhosts-refresh (${request.specs.length} vhost${request.specs.length === 1 ? '' : 's'})`;
    case 'streams':
      return `streams (${request.changes.length} change${request.changes.length === 1 ? '' : 's'})`;
    case 'unit':
      return `unit ${request.op} ${request.unit}`;
    case 'unit-state':
    case 'unit-properties':
      return `${request.action} ${request.unit}`;
    case 'dns-plugin':
      return `dns-plugin ${request.op} ${request.package}`;
    default:
      return request.action;
  }
}

/** `log`: the helper's log (a TLS source kept at its previous copy is said there). */
export function createDispatcher(config: SystemConfig, publicLocations: PublicLocations, log: (line: string) => void = (line) => console.log(line)): Dispatcher {
  const root = directRootActions(config);
  const parse = rootRequestParser(config.sites.root);
  const serial = serialQueue();
  // a failure to look at all (not the panel's doing: root's directories, getent) is logged, and
  // nginx loads the copies it loaded before
  const restage = async (): Promise<KeptEntry[]> => {
    try {
      return await restageTlsCopies(config, await tlsSourceOwners(config), log);
    } catch (e) {
      log(`tls copies: not copied again: ${(e as Error).message}`);
      return [];
    }
  };
  /**
   * Around a step that makes nginx load its configuration: refused while a relay vhost names TLS
   * material outside the copies; the copies made again first; refused after it when the client
   * CA's copy could not be (the step is still done: a renewal copied with it takes effect).
   */
  const loading = async (step: () => Promise<void>) => {
    if (!usesTlsCopies(config)) return step();
    await refuseForeignTlsPaths(config);
    const clientCa = (await restage()).find((k) => k.entry === CLIENT_CA_ENTRY && k.named);
    await step();
    if (clientCa) {
      throw new SystemError(
        `Refused: ${clientCa.why}: nginx keeps the client CA and CRL in ${join(config.nginx.tlsDir, CLIENT_CA_ENTRY)} as they were, so a revocation since is not in force`,
        undefined, undefined, 'refused',
      );
    }
  };
  // the stream servers name no TLS material; their test and reload load every vhost all the same
  const streams = createHostStreams(config, { nginxTest: () => loading(() => root.nginxTest()), nginxReload: () => loading(() => root.nginxReload()) });
  /** The vhosts a change leaves naming only copies, or gone: what the check before it passes over. */
  const rewrittenBy = (changes: VhostChange[]) => new Set(changes.flatMap((c) => (c.op === 'put' ? [vhostName(c.spec)] : c.op === 'remove' ? [c.name] : [])));
  const guardVhosts = (rewritten: Set<string>) => (usesTlsCopies(config) ? refuseForeignTlsPaths(config, rewritten) : Promise.resolve());

  async function carryOut(request: RootRequest): Promise<RootAnswer> {
    switch (request.action) {
      case 'unit-state':
        return { ok: true, state: await root.unitState(request.unit) };
      case 'unit-properties':
        return { ok: true, properties: await root.unitProperties(request.unit, request.properties) };
      // a change ends with nginx's test and reload, which load every vhost, not only the changed ones
      case 'vhosts':
        await serial(async () => {
          await guardVhosts(rewrittenBy(request.changes));
          await applyVhostChanges(config, publicLocations, request.changes);
        });
        return { ok: true };
      case 'vhosts-refresh':
        return {
          ok: true,
          rewritten: await serial(async () => {
            // every vhost of these specs that is written is rewritten to the copies, or names them already
            await guardVhosts(new Set(request.specs.map(vhostName)));
            return refreshVhostSpecs(config, publicLocations, request.specs);
          }),
        };
      case 'streams':
        await serial(() => streams.apply(request.changes));
        return { ok: true };
      case 'unit':
        await serial(async () => {
          // nginx started, restarted or reloaded by its unit loads the copies too, and the per-name
          // certificate map, which nginx -t and a reload make themselves but the unit does not
          if (request.unit === 'proxy' && request.op !== 'stop') {
            await loading(async () => {
              await syncSniFiles(sniSources(config, log));
              await root.controlUnit(request.unit, request.op);
            });
          } else {
            await root.controlUnit(request.unit, request.op);
          }
        });
        return { ok: true };
      case 'daemon-reload':
        await serial(() => root.daemonReload());
        return { ok: true };
      case 'nginx-test':
        await serial(() => loading(() => root.nginxTest()));
        return { ok: true };
      case 'nginx-reload':
        await serial(() => loading(() => root.nginxReload()));
        return { ok: true };
      case 'dns-plugin':
        await serial(() => dnsPluginPackage(config, request.op, request.package));
        return { ok: true };
    }
  }

  return {
    async answer(text) {
      let request: RootRequest;
      try {
        request = parse(text);
      } catch (e) {
        return { answer: failureAnswer(e), summary: `refused: ${(e as Error).message}` };
      }
      const summary = describe(request);
      try {
        const answer = await carryOut(request);
        return { answer, summary: `${summary}: ok` };
      } catch (e) {
        return { answer: failureAnswer(e), summary: `${summary}: failed: ${(e as Error).message}` };
      }
    },
  };
}
