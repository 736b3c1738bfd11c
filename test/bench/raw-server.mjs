// The ceiling: a minimal node:http server answering fixed bytes (fetched from the panel once).
// Usage: node raw-server.mjs /api/health=<file> /api/tunnels=<file> ...
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const routes = new Map();
for (const arg of process.argv.slice(2)) {
  const at = arg.indexOf('=');
  routes.set(arg.slice(0, at), readFileSync(arg.slice(at + 1)));
}

const JSON_TYPE = 'application/json; charset=utf-8';
const NOT_FOUND = Buffer.from(JSON.stringify({ error: 'Not found' }));

const server = createServer((request, response) => {
  const body = routes.get(request.url);
  response.writeHead(body ? 200 : 404, { 'content-type': JSON_TYPE, 'content-length': (body ?? NOT_FOUND).length });
  response.end(body ?? NOT_FOUND);
});

server.listen(0, '127.0.0.1', () => {
  console.log(`raw server listening on http://127.0.0.1:${server.address().port}`);
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
