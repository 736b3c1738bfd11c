import { AppError, errorMessage } from '../errors.ts';
import { jsonBytes } from '../json-bytes.ts';
import { accessUrls } from '../stack-hosts.ts';
import type { TunnelCredential } from '../system/types.ts';
import { buildAgentConfig } from './agent-config.ts';
import type { StreamRecord } from '../state/schemas.ts';
import { streamClients } from './streams/client-args.ts';
import { clientTunnels, type ClientTunnel } from './client-args.ts';
import type { TunnelDeps } from './context.ts';
import { macInstructions, renderMacPlist, type MacInstructions } from './mac-plist.ts';

export interface MacPlist {
  plist: string;
  instructions: MacInstructions;
}

/**
 * Agent configuration and macOS plist, built from memory: the enabled tunnels are memoized on the
 * collection, the credential is read once (the tunnel server creates it once and keeps it), and
 * the serialized agent configuration is reused until the tunnels, the domain or the host key's
 * fingerprint change. The fingerprint is asked for at every request, since the key file can be
 * put back from a backup while the panel runs; the tunnel server answers it from memory, reading
 * the file again only when a watch on its directory saw a change (host-key-watch.ts).
 */
export class ClientConfig {
  readonly #tunnels: () => ClientTunnel[];
  #credential: TunnelCredential | null = null;
  readonly #streams: () => readonly StreamRecord[];
  #agentJson: { tunnels: ClientTunnel[]; streams: readonly StreamRecord[]; domain: string; fingerprint: string; json: Uint8Array<ArrayBuffer> } | null = null;

  constructor(private readonly deps: Pick<TunnelDeps, 'config' | 'store' | 'system'>) {
    this.#tunnels = deps.store.tunnels.memo(clientTunnels);
    this.#streams = deps.store.streams.memo((streams) => streams);
  }

  /** The agent configuration, serialized; the same bytes until the tunnels or the domain change. */
  async agentConfigJson(): Promise<Uint8Array<ArrayBuffer>> {
    const domain = this.#domain();
    try {
      const credential = await this.#readCredential();
      const fingerprint = await this.deps.system.tunnelServer.fingerprint();
      const tunnels = this.#tunnels();
      const streams = this.#streams();
      const cached = this.#agentJson;
      if (cached && cached.tunnels === tunnels && cached.streams === streams && cached.domain === domain && cached.fingerprint === fingerprint) return cached.json;
      const json = jsonBytes(buildAgentConfig(domain, tunnels, credential, fingerprint, streamClients(domain, streams)));
      this.#agentJson = { tunnels, streams, domain, fingerprint, json };
      return json;
    } catch (error) {
      throw new AppError(500, 'Failed to generate agent config', errorMessage(error));
    }
  }

  /** `withCredential` false leaves the tunnel credential out (a caller without `tunnels:read`). */
  async macPlist(withCredential: boolean): Promise<MacPlist> {
    const domain = this.#domain();
    try {
      const plist = renderMacPlist(domain, this.#tunnels(), withCredential ? await this.#readCredential() : null);
      const { ip, system } = this.deps.config.value;
      return { plist, instructions: macInstructions(accessUrls(domain, ip, system.ports).panel) };
    } catch (error) {
      throw new AppError(500, 'Failed to generate Mac plist', errorMessage(error));
    }
  }

  #domain(): string {
    const { domain } = this.deps.config.value;
    if (!domain) throw new AppError(400, 'Domain not configured');
    return domain;
  }

  async #readCredential(): Promise<TunnelCredential> {
    this.#credential ??= await this.deps.system.tunnelServer.credential();
    return this.#credential;
  }
}
