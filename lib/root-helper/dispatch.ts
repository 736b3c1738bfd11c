// One request to the root helper, from its text to its answer: checked by the protocol's schema
// (root-protocol.ts), then carried out with the helper's own configuration. Changes run one at a
// time (two vhost batches must not interleave); questions about a unit's state do not wait.
import { serialQueue } from '../keyed-lock.ts';
import type { SystemConfig } from '../system/config.ts';
import { directRootActions } from '../system/host/root-actions.ts';
import { failureAnswer, rootRequestParser, type RootAnswer, type RootRequest } from '../system/host/root-protocol.ts';
import type { PublicLocations } from '../system/types.ts';
import { applyVhostChanges, refreshVhostSpecs } from './apply.ts';

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

export function createDispatcher(config: SystemConfig, publicLocations: PublicLocations): Dispatcher {
  const root = directRootActions(config);
  const parse = rootRequestParser(config.sites.root);
  const serial = serialQueue();

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
        await serial(() => root.controlUnit(request.unit, request.op));
        return { ok: true };
      case 'daemon-reload':
        await serial(() => root.daemonReload());
        return { ok: true };
      case 'nginx-test':
        await serial(() => root.nginxTest());
        return { ok: true };
      case 'nginx-reload':
        await serial(() => root.nginxReload());
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
