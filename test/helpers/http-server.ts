import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../lib/http/app.ts';
import { nodeRequestListener } from '../../lib/http/node-listener.ts';

/** Serves an app on a loopback port (a free one unless `port` is given), as main.ts does, for WebSocket and HTTP client tests. */
export async function serve(app: App, port = 0): Promise<{ server: Server; port: number; url: string; close(): Promise<void> }> {
  const server = createServer(nodeRequestListener(app));
  server.on('upgrade', (request, socket, head) => void app.handleUpgrade(request, socket, head));
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
