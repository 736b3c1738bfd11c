// The root helper's listener: systemd's socket (relay-panel-root.socket, root:<panel group>
// 0660) passed as fd 3, or a path (tests). One request per connection: the caller writes it and
// half-closes; the helper answers and closes. When nothing has come for `idleMs` it exits, and the
// socket unit starts it again at the next connection (a small VPS keeps ~40 MB for other things).
import { chmod, chown, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { MAX_ROOT_REQUEST_BYTES } from '../system/root/root-protocol.ts';
import type { Dispatcher } from './dispatch.ts';

export interface HelperListen {
  /** a descriptor from systemd */
  fd?: number;
  /** a socket path, made root:<gid> 0660 */
  path?: string;
  gid?: number;
}

export interface HelperServerOptions {
  dispatcher: Dispatcher;
  listen: HelperListen;
  /** 0: never */
  idleMs: number;
  /** a caller that sends nothing for this long is dropped */
  requestTimeoutMs?: number;
  log(line: string): void;
  onIdle(): void;
}

function serve(socket: Socket, o: HelperServerOptions, done: () => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  const reply = (text: string) => socket.end(text);
  socket.setTimeout(o.requestTimeoutMs ?? 10_000, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('close', done);
  socket.on('data', (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > MAX_ROOT_REQUEST_BYTES) {
      refused = true;
      o.log(`refused: request larger than ${MAX_ROOT_REQUEST_BYTES} bytes`);
      reply(JSON.stringify({ ok: false, error: `Refused: request larger than ${MAX_ROOT_REQUEST_BYTES} bytes` }));
      return;
    }
    chunks.push(chunk);
  });
  socket.on('end', () => {
    if (refused) return;
    // the action may take longer than a request may take to arrive (certbot, a slow reload)
    socket.setTimeout(0);
    void o.dispatcher.answer(Buffer.concat(chunks).toString('utf8')).then(({ answer, summary }) => {
      o.log(summary);
      reply(JSON.stringify(answer));
    });
  });
}

export async function startHelperServer(o: HelperServerOptions): Promise<Server> {
  let open = 0;
  let idle: NodeJS.Timeout | null = null;
  const arm = () => {
    if (idle) clearTimeout(idle);
    idle = o.idleMs > 0 && open === 0 ? setTimeout(o.onIdle, o.idleMs) : null;
  };
  // the caller half-closes after its request: the answer goes back on the still-open side
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    open++;
    arm();
    serve(socket, o, () => {
      open--;
      arm();
    });
  });
  if (o.listen.fd !== undefined) {
    server.listen({ fd: o.listen.fd });
  } else if (o.listen.path) {
    await rm(o.listen.path, { force: true });
    server.listen(o.listen.path);
  } else {
    throw new Error('the root helper needs a socket: systemd\'s (LISTEN_FDS) or --socket PATH');
  }
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  if (o.listen.path) {
    // what the socket unit sets: root's, the panel's group may connect, nobody else
    if (process.geteuid?.() === 0) await chown(o.listen.path, 0, o.listen.gid ?? 0);
    await chmod(o.listen.path, 0o660);
  }
  arm();
  return server;
}
