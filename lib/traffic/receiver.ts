// The loopback UDP port nginx's traffic log sends to (syslog, one datagram per request). A datagram
// the panel cannot take in time is dropped by the kernel: heavy traffic never queues work for the
// panel beyond the socket's buffer, and nginx never waits for it.
import { createSocket, type Socket } from 'node:dgram';
import type { TrafficMeter } from './meter.ts';

export async function receiveTraffic(port: number, meter: TrafficMeter, onError: (e: Error) => void): Promise<() => Promise<void>> {
  const socket: Socket = createSocket('udp4');
  socket.on('message', (message) => meter.record(message.toString('utf8')));
  socket.on('error', onError);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return () => new Promise((resolve) => socket.close(() => resolve()));
}
