import { Reply } from './reply.ts';
import { json, jsonText } from './responses.ts';
import type { JsonBytes, ResponseSpec } from './route.ts';

/**
 * A Response of any class (the runtime's, the edge's): plugin routes are plain JavaScript, and one
 * written when handlers still built their Responses keeps answering rather than being sent as `{}`.
 */
const isResponse = (value: unknown): value is Response =>
  typeof value === 'object' && value !== null && typeof (value as Response).arrayBuffer === 'function' && typeof (value as Response).status === 'number';

/**
 * How the chain turns what a handler returned into the Response, chosen once per route from its
 * `response` declaration; undefined when the handler builds the Response itself (undocumented
 * routes, files and streams).
 */
export function serializer(spec: ResponseSpec | undefined): ((returned: unknown) => Response) | undefined {
  if (!spec || spec.kind === 'response') return undefined;
  const status = spec.status ?? 200;
  // cached bytes go out untouched: no serialization and no schema parse per request
  if (spec.kind === 'bytes') return (returned) => (isResponse(returned) ? returned : jsonText(returned as JsonBytes, status));
  return (returned) => {
    if (returned instanceof Reply) return json(returned.body, returned.status ?? status, returned.headers);
    return isResponse(returned) ? returned : json(returned, status);
  };
}
