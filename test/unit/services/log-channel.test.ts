// LogChannel with stand-in sockets: the drop rule is checked exactly, without the network.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { BACKLOG, LogChannel, MAX_BUFFERED } from '../../../lib/service-control/log-channel.ts';
import { createLogFollow, type LogProducer } from '../../../lib/system/services/log-follow.ts';

class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  sent: string[] = [];
  closedWith: [number, string] | null = null;
  terminated = false;
  send(data: Buffer) {
    this.sent.push(String(data));
  }
  close(code: number, reason: string) {
    this.closedWith = [code, reason];
    this.readyState = 3;
  }
  terminate() {
    this.terminated = true;
    this.readyState = 3;
  }
}

function channel() {
  let producer!: LogProducer;
  let stopped = 0;
  let ended = 0;
  const follow = createLogFollow((p) => {
    producer = p;
    return () => void stopped++;
  });
  const ch = new LogChannel(follow, () => void ended++);
  const line = (i: number) => producer.push({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), message: `line ${i}` });
  return { ch, line, producer: () => producer, stopped: () => stopped, ended: () => ended };
}

const s = suite('log channel');
const tick = () => new Promise((r) => setImmediate(r));
const asSocket = (f: FakeSocket) => f as unknown as WebSocket;

s('fan-out: every viewer gets each line; a late viewer gets the last 100 first', async () => {
  const { ch, line } = channel();
  const a = new FakeSocket();
  ch.add(asSocket(a));
  for (let i = 0; i < 150; i++) line(i);
  await tick();
  assert.is(a.sent.length, 150);
  const late = new FakeSocket();
  ch.add(asSocket(late));
  assert.is(late.sent.length, BACKLOG);
  assert.equal(JSON.parse(late.sent[0]!), { timestamp: '2026-01-01T00:00:50.000Z', message: 'line 50' });
  line(150);
  await tick();
  assert.is(a.sent.at(-1), late.sent.at(-1));
});

s('a viewer with too many unsent bytes is terminated and gets nothing more; the others go on', async () => {
  const { ch, line, stopped } = channel();
  const slow = new FakeSocket();
  const fast = new FakeSocket();
  ch.add(asSocket(slow));
  ch.add(asSocket(fast));
  line(1);
  await tick();
  slow.bufferedAmount = MAX_BUFFERED - 10; // the next line does not fit
  line(2);
  line(3);
  await tick();
  assert.ok(slow.terminated);
  assert.is(slow.sent.length, 1);
  assert.is(fast.sent.length, 3);
  assert.is(ch.viewers, 1);
  assert.is(stopped(), 0, 'the follow goes on for the others');
});

s('the follow stops when the last viewer leaves (close or error), once', async () => {
  const { ch, stopped, ended } = channel();
  const a = new FakeSocket();
  const b = new FakeSocket();
  ch.add(asSocket(a));
  ch.add(asSocket(b));
  a.emit('close');
  assert.is(stopped(), 0);
  b.emit('error', new Error('ECONNRESET'));
  b.emit('close');
  assert.is(stopped(), 1);
  assert.is(ended(), 1);
});

s('the follow ending closes the viewers: 1000 when it ends, 1011 with the reason when it fails', async () => {
  const ended = channel();
  const a = new FakeSocket();
  ended.ch.add(asSocket(a));
  ended.producer().end();
  await tick();
  assert.equal(a.closedWith, [1000, 'Log stream ended']);
  assert.is(ended.ended(), 1);

  const failed = channel();
  const b = new FakeSocket();
  failed.ch.add(asSocket(b));
  failed.producer().end(new Error(`journalctl exited with status 1: ${'x'.repeat(300)}`));
  await tick();
  assert.is(b.closedWith![0], 1011);
  assert.match(b.closedWith![1], 'Log stream failed: journalctl exited with status 1');
  assert.ok(Buffer.byteLength(b.closedWith![1]) <= 123);
});

s('close (shutdown) ends the follow and closes viewers with 1001', async () => {
  const { ch, stopped } = channel();
  const a = new FakeSocket();
  ch.add(asSocket(a));
  ch.close();
  assert.equal(a.closedWith, [1001, 'Server shutting down']);
  assert.is(stopped(), 1);
  const late = new FakeSocket();
  ch.add(asSocket(late));
  assert.is(late.closedWith![0], 1001);
});

s.run();
