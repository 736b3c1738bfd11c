// The loopback UDP port nginx's traffic log sends to (syslog, one datagram per request). A datagram
// the panel cannot take in time is dropped by the kernel: heavy traffic never queues work for the
// panel beyond the socket's buffer, and nginx never waits for it.
//
// nginx cannot batch these (`logs to syslog cannot be buffered`) and a FIFO would block its master
// when the panel is down (docs/decisions.md, Traffic meter), so the batching is
// done here: the socket is read in turns. Between turns the datagrams wait in the kernel's buffer;
// a turn reads them all in one wake-up of the event loop, 32 a poll, until a poll finds none. One
// wake-up per datagram cost ~80 µs of CPU a line at 1,000 lines/s; turns up to MAX_WAIT_MS apart
// cost it once per batch (test/bench/traffic-receiver.mjs). The wait shrinks with the rate so a
// turn's datagrams never fill more than a share of the socket's buffer.
import { createSocket, type Socket } from 'node:dgram';
import type { TrafficMeter } from './meter.ts';

/** The longest datagrams wait between turns: a batch of 100 at 1,000 lines/s. */
export const MAX_WAIT_MS = 100;
/** The shortest: a turn's datagrams must fit in the buffer however fast they come. */
export const MIN_WAIT_MS = 2;
/**
 * The socket's receive buffer asked for. The kernel caps it at net.core.rmem_max (208 KiB by
 * default) and doubles it; a datagram takes ~832 bytes of it (measured on loopback).
 */
export const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;
const KERNEL_BYTES_PER_DATAGRAM = 1024;
/** A turn fills at most this share of the buffer: the rest is for an event loop running late. */
const TURN_SHARE_OF_BUFFER = 1 / 4;

/**
 * The wait before the next turn: as long as MAX_WAIT_MS, but short enough that at the rate the last
 * turn saw, the datagrams in between fill no more than TURN_SHARE_OF_BUFFER of the buffer.
 */
export function nextWaitMs(lastBatch: number, lastPeriodMs: number, bufferBytes: number): number {
  if (lastBatch <= 0 || lastPeriodMs <= 0) return MAX_WAIT_MS;
  const fits = (bufferBytes / KERNEL_BYTES_PER_DATAGRAM) * TURN_SHARE_OF_BUFFER;
  const wait = (fits / lastBatch) * lastPeriodMs;
  return Math.max(MIN_WAIT_MS, Math.min(MAX_WAIT_MS, Math.floor(wait)));
}

/** The UDP handle's recvStart/recvStop (node's dgram keeps them internal); null: not found, read each datagram as it comes. */
interface ReceiveSwitch {
  recvStart(): number;
  recvStop(): number;
}
export function receiveSwitch(socket: Socket): ReceiveSwitch | null {
  const state = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'state symbol');
  const handle = state ? (socket as unknown as Record<symbol, { handle?: Partial<ReceiveSwitch> }>)[state]?.handle : undefined;
  return typeof handle?.recvStart === 'function' && typeof handle.recvStop === 'function' ? (handle as ReceiveSwitch) : null;
}

export interface ReceiveOptions {
  /** false: every datagram as it comes, one wake-up each (the bench's before) */
  inTurns?: boolean;
}

export async function receiveTraffic(port: number, meter: TrafficMeter, onError: (e: Error) => void, { inTurns = true }: ReceiveOptions = {}): Promise<() => Promise<void>> {
  const socket: Socket = createSocket('udp4');
  let received = 0;
  socket.on('message', (message) => {
    received++;
    meter.record(message.toString('utf8'));
  });
  socket.on('error', onError);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  try {
    socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
  } catch {
    // the kernel's default buffer still holds a turn at 1,000 lines/s
  }
  const turns = inTurns ? readInTurns(socket, () => received) : null;
  return () =>
    new Promise((resolve) => {
      turns?.stop();
      socket.close(() => resolve());
    });
}

/** Reads the socket in turns, each until a poll of the event loop brings no datagram, then stops reading it until the next. */
function readInTurns(socket: Socket, received: () => number): { stop(): void } | null {
  const handle = receiveSwitch(socket);
  if (!handle) return null;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let seen = received();
  let turnStartedAt = performance.now();
  let turnStartCount = seen;
  let lastTurnAt = turnStartedAt;
  const pause = () => {
    if (stopped) return;
    handle.recvStop();
    const batch = received() - turnStartCount;
    const wait = nextWaitMs(batch, turnStartedAt - lastTurnAt, socket.getRecvBufferSize());
    // not unref'd: a stopped UDP handle no longer holds the event loop, the timer does as the socket did
    timer = setTimeout(turn, wait);
  };
  // setImmediate runs after each poll phase: the poll before it read what the socket held (32 at most)
  const drain = () => {
    if (stopped) return;
    const now = received();
    if (now === seen) return pause();
    seen = now;
    setImmediate(drain);
  };
  const turn = () => {
    if (stopped) return;
    lastTurnAt = turnStartedAt;
    turnStartedAt = performance.now();
    turnStartCount = seen = received();
    handle.recvStart();
    setImmediate(drain);
  };
  // bound and reading now: a first turn
  setImmediate(drain);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
