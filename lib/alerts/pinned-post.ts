// One POST to a webhook that connects only to addresses already checked (lib/alerts/target.ts): the
// request's `lookup` answers with them instead of asking DNS again, so nothing can rebind the name
// between the check and the connection. The URL's name still goes in the Host header and in TLS
// (SNI and the certificate check). Redirects are never followed (node:http does not), and the
// answer's body is never read.
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './target.ts';

export interface PinnedPost {
  url: URL;
  /** the checked addresses; the first is tried first */
  addresses: readonly ResolvedAddress[];
  headers: OutgoingHttpHeaders;
  body: string;
  signal: AbortSignal;
}

/** The answer's status code. */
export async function postPinned({ url, addresses, headers, body, signal }: PinnedPost): Promise<number> {
  const [first] = addresses;
  if (!first) throw new Error('no address to connect to');
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, addresses.map((a) => ({ ...a })));
    else callback(null, first.address, first.family);
  };
  // node:https (and tls) loaded with the first https delivery, not at every start (cold start)
  const send = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  return new Promise((resolve, reject) => {
    // agent: false, a connection of its own: a pooled socket was connected for an earlier check
    const request = send(url, { method: 'POST', headers, agent: false, lookup, signal }, (answer) => {
      resolve(answer.statusCode ?? 0);
      answer.destroy();
    });
    request.on('error', reject);
    request.end(body);
  });
}
