// A live feed's caller as it stands at each message, not as it was at the handshake.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AgentIdentity } from '../../../lib/auth/identity.ts';
import type { ActiveAgent } from '../../../lib/auth/identity-registry.ts';
import { currentSiteViewer } from '../../../lib/sites/viewer.ts';

const s = suite('sites: the current viewer');

const agentIdentity: AgentIdentity = { role: 'agent', label: 'reader', commonName: 'agent:reader', serial: 'A1', capabilities: new Set(['sites:read']), allowedSites: ['docs'], superseded: false };

function registry(state: { agent?: Partial<ActiveAgent> & { serial: string }; revoked?: string[] }) {
  return {
    agentPresenting: (label: string, serial: string | null) => {
      const agent = state.agent && label === 'reader' ? ({ capabilitySet: new Set(state.agent.capabilities ?? []), allowedSites: [], ...state.agent } as ActiveAgent) : undefined;
      if (!agent) return { agent: undefined, superseded: false };
      return agent.serial === serial ? { agent, superseded: false } : { agent: undefined, superseded: true };
    },
    isRevoked: (serial: string) => (state.revoked ?? []).includes(serial),
  };
}

s('an agent: its allowedSites as they stand now; null once revoked, superseded or without sites:read', () => {
  const state: Parameters<typeof registry>[0] = { agent: { serial: 'A1', capabilities: ['sites:read'], allowedSites: ['blog'] } };
  const current = currentSiteViewer(agentIdentity, registry(state));
  assert.equal(current(), { role: 'agent', allowedSites: ['blog'] }, 'the registry\'s list, not the handshake\'s');
  state.agent = { serial: 'A1', capabilities: ['tunnels:read'], allowedSites: ['blog'] };
  assert.is(current(), null, 'sites:read taken away');
  state.agent = { serial: 'A2', capabilities: ['sites:read'], allowedSites: ['blog'] };
  assert.is(current(), null, 're-issued: this certificate is superseded');
  state.agent = undefined;
  assert.is(current(), null, 'revoked');
});

s('an admin: null once its certificate is revoked', () => {
  const state: { revoked: string[] } = { revoked: [] };
  const current = currentSiteViewer({ role: 'admin', label: null, commonName: 'admin', serial: 'AD' }, registry(state));
  assert.equal(current(), { role: 'admin' });
  state.revoked.push('AD');
  assert.is(current(), null);
});

s.run();
