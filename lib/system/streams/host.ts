// Host stream proxy: the servers' files in `nginx.streamsDir`, nginx's test and reload as the HTTP
// vhosts have them (run here, or asked of the root helper).
import { streamsDirOf, type SystemConfig } from '../config.ts';
import { renderStreamServer } from './render.ts';
import { listStreamFiles, StreamStore } from './store.ts';
import { SystemError } from '../errors.ts';
import type { StreamChange, StreamProxyAdapter } from './types.ts';

/**
 * On an installed box (`helper`), the panel only reads the directory: the root helper's `streams`
 * action writes, tests, reloads and rolls back, as it does the vhosts (nginx's master is root's).
 */
export function createStreamsAdapter(
  config: SystemConfig,
  root: { nginxTest(): Promise<void>; nginxReload(): Promise<void> },
  helper: { applyStreams(changes: StreamChange[]): Promise<void> } | null,
  beforeChange?: () => Promise<unknown>,
): StreamProxyAdapter {
  if (!helper) return createHostStreams(config, root, beforeChange);
  const dir = streamsDirOf(config);
  return {
    async apply(changes) {
      if (changes.length === 0) return;
      // the helper tells a change from none; its test reads every nginx file either way
      await beforeChange?.();
      try {
        await helper.applyStreams(changes);
      } catch (e) {
        const err = e as Partial<SystemError>;
        throw new SystemError((e as Error).message, 'nginx', err.stderr, err.code);
      }
    },
    list: () => listStreamFiles(dir),
  };
}

/** `beforeChange`: StreamStoreOptions'. */
export function createHostStreams(config: SystemConfig, root: { nginxTest(): Promise<void>; nginxReload(): Promise<void> }, beforeChange?: () => Promise<unknown>): StreamProxyAdapter {
  const ctx = { listenAddress: config.nginx.listenAddress, trafficPort: config.nginx.trafficPort };
  return new StreamStore({
    dir: streamsDirOf(config),
    render: (spec) => renderStreamServer(spec, ctx),
    test: () => root.nginxTest(),
    reload: () => root.nginxReload(),
    beforeChange,
  });
}
