// Free loopback ports for the bench's own servers: bind port 0, read the number, close.
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/** `count` distinct TCP ports: all are held open together so none is returned twice. */
export async function freeTcpPorts(count) {
  const servers = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((s) => s.address().port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}

/** A UDP port nothing listens on (the panel's traffic log port, which it binds itself). */
export function freeUdpPort() {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}
