// One client of the shared provisioning stream: the full state first, then every event; closed
// (1000) once the run completes, since onboarding routes are gone after that.
import { STREAM_SOCKET_OPEN, type StreamSocket } from './stream-socket.ts';
import type { StreamMessage } from './events.ts';
import type { ProgressBoard } from './progress-board.ts';

const STREAM_DONE = { code: 1000, reason: 'Provisioning complete' };

export function attachProgressStream(board: ProgressBoard, socket: StreamSocket): void {
  const send = (message: StreamMessage) => {
    if (socket.readyState === STREAM_SOCKET_OPEN) socket.send(JSON.stringify(message));
  };
  const state = board.snapshot();
  send(state);
  if (state.run === 'completed') {
    socket.close(STREAM_DONE.code, STREAM_DONE.reason);
    return;
  }
  const unsubscribe = board.subscribe((message) => {
    send(message);
    if (message.type === 'complete') socket.close(STREAM_DONE.code, STREAM_DONE.reason);
  });
  socket.on('close', unsubscribe);
  socket.on('error', unsubscribe);
  // clients only listen; anything they send is ignored
}
