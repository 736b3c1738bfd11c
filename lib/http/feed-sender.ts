import { SOCKET_OPEN } from '../service-control/viewer-socket.ts';
import type { RouteSocket } from './socket.ts';

/** A viewer this far behind is dropped rather than buffered without bound. */
const MAX_BUFFERED = 1024 * 1024;

/** How a live feed (WsRoute.feed) sends a message: nothing once the socket closed, and a viewer too far behind is dropped. */
export function feedSender(socket: RouteSocket): (json: string) => void {
  return (json) => {
    if (socket.readyState !== SOCKET_OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED) return socket.terminate();
    socket.send(json);
  };
}
