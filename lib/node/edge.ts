import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Response as PonyfillResponse } from '@whatwg-node/fetch';
import { createServerAdapter } from '@whatwg-node/server';
import type { WebSocketServer } from 'ws';
import type { App } from '../http/app.ts';
import { renderError } from '../http/error-boundary.ts';
import type { MultipartLimits, ParsedMultipart } from '../http/multipart.ts';
import { useResponseClass } from '../http/responses.ts';
import type { EdgeContext } from '../http/state.ts';
import { upgraded, type PendingUpgrade } from '../http/websocket.ts';
import { closeAfterAnswerIfBodyUnread } from './unread-body.ts';
import { readBodyText } from './body-text.ts';
import { streamMultipart } from './multipart.ts';
import { endSocketWith, endSocketWithError, writeJsonError } from './raw-answer.ts';
import { APP_HOST, originTarget } from './request-target.ts';
import { handshakeRequest, replayWithoutUpgrade } from './upgrade.ts';

/** What the edge knows about one node request; becomes the chain's state. */
class NodeRequestContext implements EdgeContext {
  readonly peer: string | undefined;

  constructor(
    private readonly message: IncomingMessage,
    readonly upgrade?: PendingUpgrade,
  ) {
    this.peer = message.socket.remoteAddress;
  }

  /** Read on demand (development mode's DNS-rebinding check): onRequest replaced headers.host. */
  get host(): string | undefined {
    const raw = this.message.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'host') return raw[i + 1];
    return undefined;
  }

  readMultipart(limits: MultipartLimits): Promise<ParsedMultipart> {
    return streamMultipart(this.message, limits);
  }

  readText(limit: number): Promise<string> {
    return readBodyText(this.message, limit);
  }
}

interface AdapterContext {
  req: IncomingMessage;
  res: ServerResponse;
}

export interface NodeEdge {
  /** Closes every WebSocket with 1001 (going away). */
  closeSockets(): void;
}

const BAD_TARGET = 'Bad request target';

/**
 * Serves the app on a node:http server: requests through @whatwg-node/server, WebSocket handshakes
 * through `ws`. The app's Responses become the adapter's own class, which it sends fastest.
 */
export function attachNodeEdge(server: Server, app: App, options: { before?: (req: IncomingMessage, res: ServerResponse) => boolean } = {}): NodeEdge {
  useResponseClass(PonyfillResponse as unknown as typeof Response);
  // ws (and the https, tls and zlib it requires) is loaded on the first handshake, not at start.
  let sockets: WebSocketServer | undefined;
  let loadingSockets: Promise<WebSocketServer> | undefined;
  const webSockets = () =>
    (loadingSockets ??= import('ws').then(({ WebSocketServer }) => {
      sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
      // ws answers a malformed handshake with its own text/html page unless someone listens here.
      sockets.on('wsClientError', (error: Error, socket: Duplex) => endSocketWithError(socket, 400, error.message));
      return sockets;
    }));

  // Saying outright that the abort controller is the ponyfill's spares the adapter a look at
  // globalThis, whose getters load node's bundled undici: about 35 ms of cold start.
  const adapter = createServerAdapter<AdapterContext>(
    async (request, context) => {
      const response = await app.handle(request, new NodeRequestContext(context.req));
      closeAfterAnswerIfBodyUnread(context.req, context.res);
      return response;
    },
    { __useCustomAbortCtrl: true },
  );

  function onRequest(message: IncomingMessage, res: ServerResponse): void {
    // the sandbox's tunnel and site names (lib/sandbox-web), answered before the panel sees them
    if (options.before?.(message, res)) return;
    const target = originTarget(message.url);
    if (!target) return writeJsonError(res, 400, BAD_TARGET);
    message.url = target;
    message.headers.host = APP_HOST;
    void adapter.requestListener(message, res);
  }

  async function onUpgrade(message: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    if (message.method !== 'GET') return replayWithoutUpgrade(server, message, socket, head);
    const target = originTarget(message.url);
    if (!target) return endSocketWithError(socket, 400, BAD_TARGET);
    const handshakes = sockets ?? (await webSockets());
    let accepted = false;
    const upgrade: PendingUpgrade = {
      accept: (onSocket) => {
        accepted = true;
        handshakes.handleUpgrade(message, socket, head, onSocket);
      },
    };
    let response: Response;
    try {
      response = await app.handle(handshakeRequest(message, target), new NodeRequestContext(message, upgrade));
    } catch (error) {
      response = renderError(error, app.services);
    }
    if (response === upgraded()) return;
    // ws has written its own answer (101, or its refusal) on this socket: an HTTP answer after it would be garbage
    if (accepted) return void socket.destroy();
    endSocketWith(socket, response.status, new Uint8Array(await response.arrayBuffer()), response.headers.get('content-type') ?? undefined);
  }

  // node's own answer to unparsable HTTP is a bare 400; ours has the {error} shape like the rest.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    endSocketWithError(socket, tooLarge ? 431 : 400, tooLarge ? 'Request header fields too large' : 'Bad request');
  });
  server.on('request', onRequest);
  server.on('upgrade', (message, socket, head) => void onUpgrade(message, socket, head));
  return {
    closeSockets() {
      for (const client of sockets?.clients ?? []) client.close(1001, 'Server shutting down');
    },
  };
}
