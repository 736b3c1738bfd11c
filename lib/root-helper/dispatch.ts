// One request to the root helper, from its text to its answer: checked by the protocol's schema
// (root-protocol.ts), then carried out with the helper's own configuration. Changes run one at a
// time (two vhost batches must not interleave); questions about a unit's state do not wait.
// nginx's test and reload first copy the TLS material again (a renewal's deploy hook and a
// revocation arrive as a reload), keeping the previous copy of a refused source (tls-copies.ts).
import { serialQueue } from '../keyed-lock.ts';
import type { SystemConfig } from '../system/config.ts';
import { directRootActions } from '../system/host/root-actions.ts';
import { failureAnswer, rootRequestParser, type RootAnswer, type RootRequest } from '../system/host/root-protocol.ts';
import type { PublicLocations } from '../system/types.ts';
import { applyVhostChanges, refreshVhostSpecs } from './apply.ts';
import { restageTlsCopies } from './tls-copies.ts';
import { tlsSourceOwners } from './tls-owner.ts';

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
    case 'unit':
      return `unit ${request.op} ${request.unit}`;
    case 'unit-state':
    case 'unit-properties':
      return `${request.action} ${request.unit}`;
    default:
      return request.action;
  }
}

/** `log`: the helper's log (a TLS source kept at its previous copy is said there). */
export function createDispatcher(config: SystemConfig, publicLocations: PublicLocations, log: (line: string) => void = (line) => console.log(line)): Dispatcher {
  const root = directRootActions(config);
  const parse = rootRequestParser(config.sites.root);
  const serial = serialQueue();
  // never in the way of a test or reload: nginx then loads the copies it loaded before
  const restage = async () => {
    try {
      await restageTlsCopies(config, await tlsSourceOwners(config), log);
    } catch (e) {
      log(`tls copies: not copied again: ${(e as Error).message}`);
    }
  };

  async function carryOut(request: RootRequest): Promise<RootAnswer> {
    switch (request.action) {
      case 'unit-state':
        return { ok: true, state: await root.unitState(request.unit) };
      case 'unit-properties':
        return { ok: true, properties: await root.unitProperties(request.unit, request.properties) };
      case 'vhosts':
        await serial(() => applyVhostChanges(config, publicLocations, request.changes));
        return { ok: true };
      case 'vhosts-refresh':
        return { ok: true, rewritten: await serial(() => refreshVhostSpecs(config, publicLocations, request.specs)) };
      case 'unit':
        await serial(async () => {
          // nginx started, restarted or reloaded by its unit loads the copies too
          if (request.unit === 'proxy' && request.op !== 'stop') await restage();
          await root.controlUnit(request.unit, request.op);
        });
        return { ok: true };
      case 'daemon-reload':
        await serial(() => root.daemonReload());
        return { ok: true };
      case 'nginx-test':
        await serial(async () => {
          await restage();
          await root.nginxTest();
        });
        return { ok: true };
      case 'nginx-reload':
        await serial(async () => {
          await restage();
          await root.nginxReload();
        });
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
