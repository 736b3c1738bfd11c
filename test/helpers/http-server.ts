import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../lib/http/app.ts';
import { attachNodeEdge, type NodeEdge } from '../../lib/node/edge.ts';

/** Serves an app on a loopback port (a free one unless `port` is given), as main.ts does, for WebSocket and HTTP client tests. */
export async function serve(app: App, port = 0): Promise<{ server: Server; edge: NodeEdge; port: number; url: string; close(): Promise<void> }> {
  const server = createServer();
  const edge = attachNodeEdge(server, app);
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    edge,
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
