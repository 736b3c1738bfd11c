// What the root helper accepts as stream server changes: ports, an enum, CIDR texts and booleans,
// each checked before anything is rendered; the directory is the helper's own configuration's, so
// a request cannot name a path. A removal names a stream server's file, nothing else.
import { z } from 'zod';
import { isCidr } from '../common/cidr.ts';
import { isStreamFileName } from './render.ts';
import type { StreamChange } from './types.ts';

/** Far above the TCP and UDP tunnels of one box, far below a memory problem. */
const MAX_STREAM_CHANGES = 2000;
/** As many sources as the API takes for one tunnel. */
const MAX_SOURCES = 64;

const port = z.number().int().min(1).max(65535);

const spec = z.strictObject({
  protocol: z.enum(['tcp', 'udp']),
  publicPort: port,
  tunnelPort: port,
  allow: z.array(z.string().max(64).refine(isCidr, 'must be an address or a CIDR network')).max(MAX_SOURCES),
  proxyProtocol: z.boolean(),
});

export const streamChangesSchema = z
  .array(
    z.discriminatedUnion('op', [
      z.strictObject({ op: z.literal('put'), spec }),
      z.strictObject({ op: z.literal('remove'), name: z.string().max(64).refine(isStreamFileName, 'must be a relay-panel stream server file name') }),
    ]),
  )
  .min(1)
  .max(MAX_STREAM_CHANGES) satisfies z.ZodType<StreamChange[]>;
