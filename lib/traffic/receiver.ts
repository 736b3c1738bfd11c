// The loopback UDP port nginx's traffic log sends to (syslog, one datagram per request). A datagram
// the panel cannot take in time is dropped by the kernel: heavy traffic never queues work for the
// panel beyond the socket's buffer, and nginx never waits for it.
//
// nginx cannot batch these (`logs to syslog cannot be buffered`) and a FIFO would block its master
// when the panel is down (docs/decisions.md, Traffic meter), so the batching is done here: the
// socket is read in turns. Between turns the datagrams wait in the kernel's buffer; a turn reads
// them all with one read(2) each into one reused buffer, synchronously, until the socket has none
// (EAGAIN), then waits for the next. node's own reading cost a call from C++ into JS, a 64 KiB
// allocation, a Buffer and an address object per datagram, and a turn of the event loop per 32
// (docs/decisions.md, Traffic meter (Scale)). The wait follows the rate and what the socket's buffer
// really holds, so a turn's datagrams never fill more than a share of it: a box whose
// net.core.rmem_max lets the 4 MiB ask through takes turns ~650 ms apart at 1,000 lines/s, one with
// the kernel's default about twelve a second. A turn that finds none leaves the socket to node
// until the next datagram, so a quiet panel runs no timer for it.
import { createSocket, type Socket } from 'node:dgram';
import { readSync } from 'node:fs';
import type { TrafficMeter } from './meter.ts';

/**
 * The longest datagrams wait between turns: /metrics and the 5 s live poll read the meter, so a
 * line is seen at most this late. Reached at low rates once the buffer holds 10,000 datagrams
 * (12.8 MB as getRecvBufferSize reports it; the surge bound below keeps a smaller one's turns shorter).
 */
export const MAX_WAIT_MS = 1000;
/**
 * The wait when the last turn found nothing (a quiet moment: two such turns leave the socket to
 * node) and before the first turn after a quiet spell, when the rate is not known yet.
 */
export const FIRST_WAIT_MS = 100;
/** The shortest: a turn's datagrams must fit in the buffer however fast they come. */
export const MIN_WAIT_MS = 2;
/**
 * The socket's receive buffer asked for. The kernel caps it at net.core.rmem_max (208 KiB by
 * default) and doubles it (getRecvBufferSize reports the doubled size).
 */
export const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;
/**
 * What one datagram takes of that buffer: the kernel counts its whole allocation (truesize), not
 * the payload. Measured on loopback: 832 bytes for a line up to ~190 bytes, 1,280 up to ~640 (a
 * line naming a 258-character vhost is ~360), 2,304 to 1,500, 4,352 at the 2 KiB a line may be.
 */
export const KERNEL_BYTES_PER_DATAGRAM = 1280;
/** A turn fills at most this share of the buffer: the rest is for an event loop running late or a rate that jumps within a wait. */
const TURN_SHARE_OF_BUFFER = 1 / 4;

/**
 * The most lines a second the panel is sized for: a wait past FIRST_WAIT_MS is never longer than the
 * buffer takes to fill at this rate, so a rate that jumps to it within a long wait loses nothing.
 */
const SURGE_LINES_PER_S = 10_000;

/**
 * The wait before the next turn: as long as MAX_WAIT_MS, but short enough that at the rate the last
 * turn saw, the datagrams in between fill no more than TURN_SHARE_OF_BUFFER of the buffer, and,
 * past FIRST_WAIT_MS, that a surge to SURGE_LINES_PER_S fits in it; FIRST_WAIT_MS when the last turn found none.
 */
export function nextWaitMs(lastBatch: number, lastPeriodMs: number, bufferBytes: number): number {
  if (lastBatch <= 0 || lastPeriodMs <= 0) return FIRST_WAIT_MS;
  const holds = bufferBytes / KERNEL_BYTES_PER_DATAGRAM;
  const atThisRate = ((holds * TURN_SHARE_OF_BUFFER) / lastBatch) * lastPeriodMs;
  const surgeFits = Math.max(FIRST_WAIT_MS, (holds / SURGE_LINES_PER_S) * 1000);
  return Math.max(MIN_WAIT_MS, Math.floor(Math.min(MAX_WAIT_MS, atThisRate, surgeFits)));
}

/** The UDP handle's file descriptor, recvStart and recvStop (node's dgram keeps them internal); null: not found, read each datagram as it comes. */
interface UdpHandle {
  fd: number;
  recvStart(): number;
  recvStop(): number;
}
function udpHandle(socket: Socket): UdpHandle | null {
  const state = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'state symbol');
  const handle = state ? (socket as unknown as Record<symbol, { handle?: Partial<UdpHandle> }>)[state]?.handle : undefined;
  return typeof handle?.recvStart === 'function' && typeof handle.recvStop === 'function' && typeof handle.fd === 'number' && handle.fd >= 0 ? (handle as UdpHandle) : null;
}

export interface ReceiveOptions {
  /** false: every datagram as node reads it, one call into JS each (the bench's before) */
  inTurns?: boolean;
  /** the receive buffer asked for: the bench plays a box with the kernel's default cap by asking less */
  bufferBytes?: number;
}

export async function receiveTraffic(port: number, meter: TrafficMeter, onError: (e: Error) => void, { inTurns = true, bufferBytes = RECEIVE_BUFFER_BYTES }: ReceiveOptions = {}): Promise<() => Promise<void>> {
  const socket: Socket = createSocket('udp4');
  socket.on('error', onError);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  try {
    socket.setRecvBufferSize(bufferBytes);
  } catch {
    // the kernel's default buffer: the turns are shorter (nextWaitMs reads what the socket holds)
  }
  const handle = inTurns ? udpHandle(socket) : null;
  const turns = handle ? readInTurns(socket, handle, (buffer) => readSync(handle.fd, buffer, 0, buffer.length, null), meter, onError) : null;
  if (!turns) socket.on('message', (message) => meter.record(message.toString('utf8')));
  return () =>
    new Promise((resolve) => {
      turns?.stop();
      socket.close(() => resolve());
    });
}

/** The largest UDP payload over IPv4: no datagram is cut short, so a long one is refused by its length as before. */
const MAX_DATAGRAM_BYTES = 65_507;
/** A turn reads at most this many, then lets the event loop run before it reads on: a flood cannot hold the panel. */
export const MAX_TURN_DATAGRAMS = 4096;

/**
 * Quiet turns before the socket is left to node: one quiet turn is a gap between requests, where a
 * wake-up per datagram would cost more turns than the timer (two: a turn that found none, then FIRST_WAIT_MS with none).
 */
const EMPTY_TURNS_BEFORE_IDLE = 2;

/**
 * Stops node's reading of the socket and reads it in turns instead. The socket is non-blocking
 * (libuv opens every socket so), so a read with nothing waiting fails with EAGAIN at once: the turn's end.
 * Turns that find nothing hand the socket back to node until a datagram comes: a quiet panel
 * wakes for no timer, and the first datagram starts the turns again, FIRST_WAIT_MS later.
 * `readDatagram` is one read(2) of the socket into the buffer (its datagram's length); a parameter so the
 * unit tests can fail it or flood it without a socket.
 */
export function readInTurns(
  socket: Pick<Socket, 'on' | 'getRecvBufferSize'>,
  handle: Pick<UdpHandle, 'recvStart' | 'recvStop'>,
  readDatagram: (buffer: Buffer) => number,
  meter: Pick<TrafficMeter, 'record'>,
  onError: (e: Error) => void,
): { stop(): void } {
  const buffer = Buffer.allocUnsafe(MAX_DATAGRAM_BYTES);
  const bufferBytes = socket.getRecvBufferSize();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastWaitAt = performance.now();
  /** read since the last wait: the rate the next wait is cut to */
  let batch = 0;
  /** turns in a row that found nothing */
  let emptyTurns = 0;
  /** node reads the socket: the panel was quiet, and the first datagram wakes it */
  let idle = false;
  const turn = () => {
    if (stopped) return;
    let read = 0;
    for (; read < MAX_TURN_DATAGRAMS; read++) {
      let bytes: number;
      try {
        bytes = readDatagram(buffer);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK') break;
        // not the end of what waits: said once, and node reads the socket from now on, each datagram as it comes
        onError(e as Error);
        stopped = true;
        handle.recvStart();
        return;
      }
      meter.record(buffer.toString('utf8', 0, bytes));
    }
    batch += read;
    if (read === MAX_TURN_DATAGRAMS) {
      setImmediate(turn);
      return;
    }
    emptyTurns = batch === 0 ? emptyTurns + 1 : 0;
    if (emptyTurns >= EMPTY_TURNS_BEFORE_IDLE) {
      idle = true;
      handle.recvStart();
      return;
    }
    const now = performance.now();
    const wait = nextWaitMs(batch, now - lastWaitAt, bufferBytes);
    lastWaitAt = now;
    batch = 0;
    // not unref'd: a stopped UDP handle no longer holds the event loop, the timer does as the socket did
    timer = setTimeout(turn, wait);
  };
  socket.on('message', (message) => {
    meter.record(message.toString('utf8'));
    if (!idle || stopped) return;
    // the rest of the burst waits in the kernel's buffer for the turn; the rate is measured from now
    idle = false;
    emptyTurns = 0;
    handle.recvStop();
    lastWaitAt = performance.now();
    timer = setTimeout(turn, FIRST_WAIT_MS);
  });
  // bound and read by node until now: a first turn reads what came, from then on the turns read
  handle.recvStop();
  setImmediate(turn);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
