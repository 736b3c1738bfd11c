// The stream servers brought to the desired host state (desired.ts): each enabled TCP or UDP
// tunnel's written as the record says, every other file of the streams directory removed. One
// test and reload for all, none when every file already holds its text (StreamStore compares).
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { streamFileName } from '../system/streams/render.ts';
import type { StreamChange, StreamProxyAdapter, StreamSpec } from '../system/types.ts';

export async function repairStreams(streams: StreamProxyAdapter, desired: readonly StreamSpec[], log: Logger): Promise<string[]> {
  const wanted = new Set(desired.map(streamFileName));
  const orphans = (await streams.list()).filter((name) => !wanted.has(name));
  const changes: StreamChange[] = [...orphans.map((name) => ({ op: 'remove' as const, name })), ...desired.map((spec) => ({ op: 'put' as const, spec }))];
  try {
    await streams.apply(changes);
    if (orphans.length) log.info(`removed ${orphans.length} stream server${orphans.length === 1 ? '' : 's'} no tunnel names: ${orphans.join(', ')}`);
    return [];
  } catch (error) {
    const line = `stream servers: ${errorMessage(error)}`;
    log.warn(`repairing the TCP and UDP tunnels' stream servers failed, the earlier ones stay: ${errorMessage(error)}`);
    return [line];
  }
}
