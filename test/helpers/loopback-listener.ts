// A TCP listener on 127.0.0.1, as chisel holds one for a connected tunnel client's session, and a
// port nothing listens on (a client that is not connected).
import { createServer, type Server } from 'node:net';
import { freePorts } from '../infra/ports.ts';

/** On `port`, or on a free one. */
export function listenOnLoopback(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

export const portOf = (server: Server): number => (server.address() as { port: number }).port;

/** Closes it; nothing to do when it is closed already. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
}

/** A port nothing listens on (test/infra/ports.ts). */
export async function unusedPort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}
