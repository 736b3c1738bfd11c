// The receiver reads nginx's datagrams in turns, a batch per wake-up of the event
// loop instead of one wake-up per request, and loses none of a burst the socket's buffer can hold.
// Not a unit test: a real UDP socket on loopback, and the turns' waits (up to MAX_WAIT_MS) in real time.
import { createSocket, type Socket } from 'node:dgram';
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TrafficMeter } from '../../../../lib/traffic/meter.ts';
import { FIRST_WAIT_MS, KERNEL_BYTES_PER_DATAGRAM, MAX_TURN_DATAGRAMS, MAX_WAIT_MS, MIN_WAIT_MS, nextWaitMs, readInTurns, receiveTraffic } from '../../../../lib/traffic/receiver.ts';
import { ManualClock } from '../../../helpers/manual-clock.ts';
import { unusedPort } from '../../../helpers/loopback-listener.ts';

const s = suite('traffic receiver: datagrams in turns');
const V = 'app:a.example.test';
const LINE = Buffer.from(`<190>Nov 27 05:28:33 relay: {"v":"${V}","s":200,"in":78,"out":312,"t":0.001,"u":"200"}`);
/** What the kernel gives a socket by default (net.core.rmem_default) and its cap doubled, as getRecvBufferSize reports it. */
const DEFAULT_BUFFER = 212_992;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function started(): Promise<{ meter: TrafficMeter; port: number; client: Socket; close: () => Promise<void> }> {
  const meter = new TrafficMeter(new ManualClock());
  meter.know(new Set([V]));
  const port = await unusedPort();
  const stop = await receiveTraffic(port, meter, (e) => assert.unreachable(e.message));
  const client = createSocket('udp4');
  return { meter, port, client, close: async () => (client.close(), await stop()) };
}

const counted = (meter: TrafficMeter) => meter.totals().get(V)?.requests ?? 0;

async function countedWithin(meter: TrafficMeter, expected: number, ms: number): Promise<number> {
  for (const end = Date.now() + ms; counted(meter) < expected && Date.now() < end; ) await sleep(10);
  return counted(meter);
}

s('20 datagrams 2 ms apart are counted in a few wake-ups of the event loop, not one each', async () => {
  const { meter, port, client, close } = await started();
  // which turn of the event loop each line is counted in: a counter moved after each poll phase
  let loopTurn = 0;
  let spinning = true;
  const spin = () => {
    loopTurn++;
    if (spinning) setImmediate(spin);
  };
  setImmediate(spin);
  const turnsCounting = new Set<number>();
  const record = meter.record.bind(meter);
  meter.record = (text: string) => (turnsCounting.add(loopTurn), record(text));
  try {
    await sleep(20); // the receiver's first turn found nothing: it waits
    const sendingFrom = Date.now();
    for (let i = 0; i < 20; i++) {
      client.send(LINE, port, '127.0.0.1');
      await sleep(2);
    }
    // ~40 ms on a quiet machine; a loaded one stretches the 2 ms sleeps, and the bound with them
    const sendingMs = Date.now() - sendingFrom;
    assert.is(await countedWithin(meter, 20, 2000), 20, 'every datagram counted');
    // at 500 lines/s turns are at least FIRST_WAIT_MS apart, whatever the buffer: one turn per FIRST_WAIT_MS of sending, and the two at its ends
    const most = Math.ceil(sendingMs / FIRST_WAIT_MS) + 2;
    assert.ok(turnsCounting.size <= most, `counted in ${turnsCounting.size} turns of the event loop, at most ${most} for ${sendingMs} ms of sending`);
  } finally {
    spinning = false;
    await close();
  }
});

s('a burst of 400 datagrams while the panel is busy is counted whole (the socket buffer is raised past the default 256)', async () => {
  const { meter, port, client, close } = await started();
  try {
    // sent while this process's event loop is held: nothing reads the socket until the burst is in the kernel
    const sent = Array.from({ length: 400 }, () => new Promise<void>((resolve) => client.send(LINE, port, '127.0.0.1', () => resolve())));
    await Promise.all(sent);
    const busyUntil = Date.now() + 50;
    while (Date.now() < busyUntil);
    assert.is(await countedWithin(meter, 400, 3000), 400);
  } finally {
    await close();
  }
});

s('the wait between turns: the longest at low rates, shorter as the rate grows so a turn fills a quarter of the buffer at most', () => {
  /** what getRecvBufferSize reports after the 4 MiB ask where net.core.rmem_max lets it through (the kernel doubles it) */
  const RAISED = 8 * 1024 * 1024;
  assert.is(nextWaitMs(0, 100, RAISED), FIRST_WAIT_MS, 'nothing came: back soon, to leave a quiet socket to node');
  assert.is(nextWaitMs(1, 1000, 256 * 1024 * 1024), MAX_WAIT_MS, 'a line a second and a huge buffer: the longest wait, no more');
  const atThousand = nextWaitMs(100, 100, RAISED);
  assert.ok(atThousand > 5 * FIRST_WAIT_MS, `1,000 lines/s with the raised buffer: far fewer turns than one per FIRST_WAIT_MS (${atThousand} ms)`);
  const defaultAtThousand = nextWaitMs(100, 100, DEFAULT_BUFFER * 2);
  assert.ok(defaultAtThousand < atThousand && defaultAtThousand <= FIRST_WAIT_MS, `1,000 lines/s with the default buffer: shorter (${defaultAtThousand} ms)`);
  for (const perSecond of [1, 100, 1000, 10_000, 50_000, 100_000, 1_000_000]) {
    for (const buffer of [DEFAULT_BUFFER, DEFAULT_BUFFER * 2, RAISED, 64 * 1024 * 1024]) {
      const wait = nextWaitMs(perSecond / 10, 100, buffer);
      assert.ok(wait >= MIN_WAIT_MS && wait <= MAX_WAIT_MS, `${wait} ms`);
      const holds = buffer / KERNEL_BYTES_PER_DATAGRAM;
      // a turn's datagrams within a quarter of the buffer, but at MIN_WAIT_MS
      if (wait > MIN_WAIT_MS) assert.ok((perSecond * wait) / 1000 <= holds / 4, `${perSecond}/s, ${buffer} bytes: ${wait} ms`);
      // a wait past FIRST_WAIT_MS holds a surge to 10,000 lines/s that starts with it
      if (wait > FIRST_WAIT_MS) assert.ok((10_000 * wait) / 1000 <= holds, `a surge within ${wait} ms fits ${buffer} bytes`);
    }
  }
});

s('what a datagram takes of the buffer is no less than the kernel counts for a traffic line', async () => {
  // sk_rmem_alloc of a socket nobody reads, from /proc/net/udp's rx_queue: the kernel's own accounting
  const receiver = createSocket('udp4');
  const sender = createSocket('udp4');
  try {
    await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', resolve));
    const { port } = receiver.address();
    const state = Object.getOwnPropertySymbols(receiver).find((sym) => sym.description === 'state symbol')!;
    (receiver as unknown as Record<symbol, { handle: { recvStop(): void } } | undefined>)[state]?.handle.recvStop();
    // the longest line within the bounds: a 258-character name
    const longest = Buffer.from(LINE.toString('utf8').replace(V, `app:${'a'.repeat(254)}`));
    for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => sender.send(longest, port, '127.0.0.1', () => resolve()));
    // a row: `sl local_address rem_address st tx_queue:rx_queue ...`, addresses and queues in hex
    const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
    const row = new RegExp(`^\\s*\\d+: ${local} [0-9A-F:]+ [0-9A-F]+ [0-9A-F]+:([0-9A-F]+) `, 'm').exec(await readFile('/proc/net/udp', 'utf8'));
    assert.ok(row, 'the socket in /proc/net/udp');
    const queued = parseInt(row?.[1] ?? '0', 16);
    assert.ok(queued > 0, 'the datagrams wait in the buffer');
    assert.ok(queued / 20 <= KERNEL_BYTES_PER_DATAGRAM, `${queued / 20} bytes a datagram against ${KERNEL_BYTES_PER_DATAGRAM}`);
  } finally {
    sender.close();
    receiver.close();
  }
});

s('a quiet receiver holds no timer, and the first datagram after the quiet starts the turns again', async () => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const { meter, port, client, close } = await started();
  try {
    // the turns are in use (had the receiver fallen back to node's reading, it would never hold a
    // timer and the wait below would prove nothing): the first turn found nothing and waits on one
    await tick();
    await tick();
    assert.is(timers(), before + 1, 'the first turn waits on a timer for the next');
    // two turns that find nothing (FIRST_WAIT_MS apart), then node reads the socket until a datagram comes
    for (const end = Date.now() + 2000; timers() > before && Date.now() < end; ) await sleep(10);
    assert.is(timers(), before, 'no timer of the receiver while nothing comes');
    client.send(LINE, port, '127.0.0.1');
    assert.is(await countedWithin(meter, 1, 2000), 1, 'the first datagram is counted');
    assert.is(timers(), before + 1, 'and starts the turns again: a timer for the next');
    for (let i = 0; i < 50; i++) client.send(LINE, port, '127.0.0.1');
    assert.is(await countedWithin(meter, 51, 2000), 51, 'and the turns read the rest');
  } finally {
    await close();
  }
});

s('a datagram past the line length or empty is read whole and refused, as one given to the meter', async () => {
  const { meter, port, client, close } = await started();
  try {
    const long = Buffer.concat([LINE, Buffer.alloc(3000, ' ')]);
    for (const datagram of [long, Buffer.alloc(0), LINE]) client.send(datagram, port, '127.0.0.1');
    assert.is(await countedWithin(meter, 1, 2000), 1);
    for (const end = Date.now() + 2000; meter.dropped().invalid < 2 && Date.now() < end; ) await sleep(10);
    assert.equal(meter.dropped(), { invalid: 2, unknownVhost: 0 });
  } finally {
    await close();
  }
});

/**
 * readInTurns over fakes: a socket that only emits what the test says, a handle that counts node's
 * reading stopped and started, and `read` taking from a queue (EAGAIN when it is empty) or failing.
 */
function fakeTurns(read: (buffer: Buffer) => number) {
  const socket = Object.assign(new EventEmitter(), { getRecvBufferSize: () => DEFAULT_BUFFER }) as unknown as Socket;
  const handle = { starts: 0, stops: 0, recvStart() { return ++this.starts; }, recvStop() { return ++this.stops; } };
  const recorded: string[] = [];
  const errors: Error[] = [];
  let reads = 0;
  const turns = readInTurns(socket, handle, (buffer) => (reads++, read(buffer)), { record: (text) => (recorded.push(text), true) }, (e) => void errors.push(e));
  return { socket, handle, recorded, errors, reads: () => reads, stop: () => turns.stop() };
}

const errno = (code: string) => Object.assign(new Error(`read: ${code}`), { code });

/** `count` datagrams waiting, then EAGAIN as a drained non-blocking socket answers. */
function queued(count: number) {
  let left = count;
  return (buffer: Buffer) => {
    if (left === 0) throw errno('EAGAIN');
    left--;
    return LINE.copy(buffer);
  };
}

s('a read that fails otherwise than EAGAIN is said once, and node reads the socket from then on', async () => {
  const fake = fakeTurns(() => { throw errno('EBADF'); });
  try {
    await tick(); // the first turn
    assert.is(fake.errors.length, 1);
    assert.is((fake.errors[0] as NodeJS.ErrnoException).code, 'EBADF');
    assert.equal({ stops: fake.handle.stops, starts: fake.handle.starts }, { stops: 1, starts: 1 }, 'node\'s reading stopped for the turns, then started again');
    await sleep(FIRST_WAIT_MS + 50); // when a turn that found nothing would have come next
    assert.is(fake.reads(), 1, 'no turn after the failure');
    assert.is(fake.errors.length, 1, 'said once, not each turn');
    fake.socket.emit('message', LINE);
    assert.equal(fake.recorded, [LINE.toString('utf8')], 'a datagram node reads is counted');
    assert.is(fake.handle.stops, 1, 'and does not start the turns again');
  } finally {
    fake.stop();
  }
});

s('a turn reads at most MAX_TURN_DATAGRAMS, lets the event loop run, then reads on', async () => {
  const fake = fakeTurns(queued(MAX_TURN_DATAGRAMS + 1));
  try {
    // queued after the receiver's first turn: runs between that turn and the next
    const between = new Promise<number>((resolve) => setImmediate(() => resolve(fake.recorded.length)));
    assert.is(await between, MAX_TURN_DATAGRAMS, 'the first turn stops at the limit and yields');
    await tick();
    assert.is(fake.recorded.length, MAX_TURN_DATAGRAMS + 1, 'the next turn, without the wait, reads the last one');
    assert.is(fake.errors.length, 0);
  } finally {
    fake.stop();
  }
});

s.run();
