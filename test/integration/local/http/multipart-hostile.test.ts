// A multipart body of one byte repeated (the delimiter's own `\r` or `-`) parses
// at the cost of any other body, and its parse never holds the event loop.
// Measurements of 8 MiB bodies (CPU against CPU, the event loop's longest turn across a real
// socket): seconds of real work that a loaded machine stretches, so in the local integration lane,
// not the unit pool; `npm run bench -- --only=upload-hostile` gives the figures.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { multipart } from '../../../../lib/http/multipart.ts';
import { json } from '../../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { streamMultipart } from '../../../../lib/node/multipart.ts';
import { callerHeaders, createTestApp } from '../../../../lib/testing.ts';
import { serve } from '../../../helpers/http-server.ts';
import { longestTurnCpu } from '../../../helpers/turn-cpu.ts';
import { withTimeout } from '../../../helpers/timeout.ts';

const MiB = 1024 * 1024;
const BOUNDARY = 'relayboundary';
const LIMITS = { maxFileBytes: 64 * MiB, maxTotalBytes: 64 * MiB, maxFiles: 1 };
// small pieces: a parse past its CPU budget is stopped within one of them
const PIECE = 16 * 1024;

const partHead = (name = 'big.bin') =>
  Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n`);
const closing = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** A one-file body of `size` copies of `byte`, in pieces. */
function* body(byte: number, size: number): Generator<Buffer> {
  yield partHead();
  const piece = Buffer.alloc(PIECE, byte);
  for (let sent = 0; sent < size; sent += PIECE) yield piece.subarray(0, Math.min(PIECE, size - sent));
  yield closing;
}

/** A node request as the edge hands it over, from its pieces. */
function request(pieces: Iterable<Buffer>, length: number): IncomingMessage {
  const stream = Readable.from(pieces, { objectMode: false });
  const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(length) };
  return Object.assign(stream, { headers, complete: true }) as unknown as IncomingMessage;
}

/** Parses a body of `byte`s; answers the CPU it took and checks the file came out exact. */
async function parseCpu(byte: number, size: number): Promise<number> {
  const length = partHead().length + size + closing.length;
  const before = process.cpuUsage();
  const parsed = await streamMultipart(request(body(byte, size), length), LIMITS);
  const used = process.cpuUsage(before);
  try {
    const [file] = parsed.body.files;
    assert.is(file?.size, size);
    const content = await readFile(file!.path!);
    assert.is(content.length, size);
    // compared natively: a callback per byte of 8 MiB cost more than the parse it checks
    assert.ok(content.equals(Buffer.alloc(size, byte)), `byte ${byte}: the file holds other bytes`);
  } finally {
    await parsed.cleanup();
  }
  return (used.user + used.system) / 1000;
}

const s = suite('multipart: hostile bodies');

s('a body of the delimiter’s own bytes costs at most 3× the CPU of a plain one of the same size', () =>
  withTimeout('hostile CPU', 40_000, async () => {
    const size = 8 * MiB;
    await parseCpu(120, MiB); // warms the path
    // the least of two runs: a GC pause or a neighbour's burst lands on one of them
    const least = async (byte: number) => Math.min(await parseCpu(byte, size), await parseCpu(byte, size));
    const plain = await least(120);
    for (const [label, byte] of [['\\r', 13], ['-', 45]] as const) {
      const hostile = await least(byte);
      assert.ok(hostile <= 3 * Math.max(plain, 20), `'${label}' body: ${hostile.toFixed(0)} ms of CPU against ${plain.toFixed(0)} ms for a plain one`);
    }
  }),
);

s('while a hostile upload is parsed, another request is answered and no turn of the event loop takes 200 ms of CPU', () =>
  withTimeout('event loop', 40_000, async () => {
    const upload = route({
      method: 'POST',
      path: '/api/test/hostile',
      access: { roles: ADMIN_ONLY, gate: 'open' },
      body: multipart(LIMITS),
      async handle({ body }) {
        const content = await readFile(body.files[0]!.path!);
        // one memcmp: a byte-by-byte check of 8 MiB would itself hold the event loop the test watches
        return json({ size: content.length, allCr: content.equals(Buffer.alloc(content.length, 13)) });
      },
    });
    const ping = route({ method: 'GET', path: '/api/test/ping', access: { roles: ADMIN_ONLY, gate: 'open' }, handle: () => json({ pong: true }) });
    const t = await createTestApp({ routes: [upload, ping] });
    const http = await serve(t.app);
    let turns: ReturnType<typeof longestTurnCpu> | undefined;
    try {
      const half = 4 * MiB;
      const head = partHead();
      const headers = [
        'POST /api/test/hostile HTTP/1.1',
        'host: 127.0.0.1',
        `content-type: multipart/form-data; boundary=${BOUNDARY}`,
        `content-length: ${head.length + 2 * half + closing.length}`,
        ...Object.entries(callerHeaders('admin')).map(([k, v]) => `${k}: ${v}`),
        'connection: close',
        '\r\n',
      ].join('\r\n');
      const received: Buffer[] = [];
      const socket = connect(http.port, '127.0.0.1');
      socket.on('data', (data) => void received.push(data));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      // fetch's first use loads undici, a turn of this test's own: done before the watch starts
      await (await fetch(`${http.url}/api/test/ping`, { headers: callerHeaders('admin') })).arrayBuffer();
      turns = longestTurnCpu();
      await new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(headers), head, Buffer.alloc(half, 13)]), () => resolve()));
      // the second half goes only once the ping is answered: the two overlap whatever the timing
      const pong = await fetch(`${http.url}/api/test/ping`, { headers: callerHeaders('admin') });
      assert.equal([pong.status, await pong.json()], [200, { pong: true }]);
      socket.write(Buffer.concat([Buffer.alloc(half, 13), closing]));
      await closed;
      const longestMs = turns.stop();
      const answer = Buffer.concat(received).toString();
      assert.match(answer, /^HTTP\/1\.1 200/, answer.slice(0, 300));
      assert.ok(answer.endsWith(JSON.stringify({ size: 2 * half, allCr: true })), answer.slice(-200));
      assert.ok(longestMs < 200, `one turn of the event loop took ${longestMs.toFixed(0)} ms of CPU`);
    } finally {
      turns?.stop();
      await http.close();
      await t.close();
    }
  }),
);

s.run();
