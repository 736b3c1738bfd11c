// Host stream proxy: the servers' files in `nginx.streamsDir`, nginx's test and reload as the HTTP
// vhosts have them (run here, or asked of the root helper).
import { streamsDirOf, type SystemConfig } from '../config.ts';
import { renderStreamServer } from './render.ts';
import { StreamStore } from './store.ts';
import type { StreamProxyAdapter } from './types.ts';

export function createHostStreams(config: SystemConfig, root: { nginxTest(): Promise<void>; nginxReload(): Promise<void> }): StreamProxyAdapter {
  const ctx = { listenAddress: config.nginx.listenAddress, trafficPort: config.nginx.trafficPort };
  return new StreamStore({
    dir: streamsDirOf(config),
    render: (spec) => renderStreamServer(spec, ctx),
    test: () => root.nginxTest(),
    reload: () => root.nginxReload(),
  });
}
