import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../lib/http/app.ts';
import { nodeRequestListener } from '../../lib/http/node-listener.ts';

/** Serves an app on a free loopback port, as main.ts does, for WebSocket and HTTP client tests. */
export async function serve(app: App): Promise<{ server: Server; port: number; url: string; close(): Promise<void> }> {
  const server = createServer(nodeRequestListener(app));
  server.on('upgrade', (request, socket, head) => void app.handleUpgrade(request, socket, head));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
