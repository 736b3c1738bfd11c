// Runs inside the box's network namespace (nsenter -n) with the host's files: for each port,
// listens on <dir>/<port>.sock and connects each client to 127.0.0.1:<port> of the box.
//   node bridge.mjs <dir> <port>...
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';

const [dir, ...ports] = process.argv.slice(2);
for (const port of ports) {
  createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: Number(port) });
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  }).listen(join(dir, `${port}.sock`));
}
process.on('SIGTERM', () => process.exit(0));
