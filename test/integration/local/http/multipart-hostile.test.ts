// A multipart body of one byte repeated (the delimiter's own `\r` or `-`) is scanned as any other
// body is, and its parse never holds the event loop. Both are shown by counts, not by clocks (a
// loaded machine stretches any time): the scan's pieces of data (formidable's parser emitted one per
// `\r`) and the bytes scanned within one turn of the event loop. The CPU and the longest
// turn are figures of `npm run bench -- --only=upload-hostile`.
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
import { MultipartScanner } from '../../../../lib/node/multipart-scanner.ts';
import { callerHeaders, createTestApp } from '../../../../lib/testing.ts';
import { serve } from '../../../helpers/http-server.ts';
import { multipartHead } from '../../../helpers/raw-http.ts';
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

/** Parses a body of `byte`s sent in pieces and checks the file came out exact. */
async function parseChecked(byte: number, size: number): Promise<void> {
  const length = partHead().length + size + closing.length;
  const parsed = await streamMultipart(request(body(byte, size), length), LIMITS);
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
}

/** The scanner's events for a body of `byte`s, by kind. */
function scanEvents(byte: number, size: number): Record<string, number> {
  const scanner = new MultipartScanner(BOUNDARY);
  const counts: Record<string, number> = {};
  for (const piece of body(byte, size)) for (const event of scanner.push(piece)) counts[event.kind] = (counts[event.kind] ?? 0) + 1;
  scanner.finish();
  return counts;
}

/** The most body bytes the scanner was given within one turn of the event loop while `work` ran. */
async function mostScannedInOneTurn(work: () => Promise<void>): Promise<number> {
  let turn = 0;
  let running = true;
  const tick = () => {
    turn++;
    if (running) setImmediate(tick);
  };
  const scanned = new Map<number, number>();
  const push = MultipartScanner.prototype.push;
  MultipartScanner.prototype.push = function (this: MultipartScanner, chunk: Buffer) {
    scanned.set(turn, (scanned.get(turn) ?? 0) + chunk.length);
    return push.call(this, chunk);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    running = false;
    MultipartScanner.prototype.push = push;
  }
  return Math.max(...scanned.values());
}

const s = suite('multipart: hostile bodies');

s("a body of the delimiter's own bytes is scanned in as many pieces as a plain one, and parses exact", () =>
  withTimeout('hostile scan', 40_000, async () => {
    const size = 8 * MiB;
    const plain = scanEvents(120, size);
    // one piece of data per piece sent at most, one part, one end
    assert.ok(plain.data! <= size / PIECE + 1, JSON.stringify(plain));
    for (const [label, byte] of [['\\r', 13], ['-', 45]] as const) {
      assert.equal(scanEvents(byte, size), plain, `'${label}' body`);
      await parseChecked(byte, size);
    }
    await parseChecked(120, size);
  }),
);

s('a large field of the delimiter\'s bytes in one chunk is scanned 64 KiB a turn of the event loop (a field, so no file write gives the loop its turns)', () =>
  withTimeout('hostile field turns', 40_000, async () => {
    const size = 960 * 1024;
    const field = Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="note"\r\n\r\n`),
      Buffer.alloc(size, 13),
      closing,
    ]);
    const most = await mostScannedInOneTurn(async () => {
      const parsed = await streamMultipart(request([field], field.length), LIMITS);
      await parsed.cleanup();
    });
    assert.ok(most <= 64 * 1024, `${most} bytes of a field scanned in one turn`);
  }),
);

s('while a hostile upload is parsed, another request is answered', () =>
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
    try {
      const half = 4 * MiB;
      const head = partHead();
      const headers = multipartHead('/api/test/hostile', BOUNDARY, [
        ['content-length', `${head.length + 2 * half + closing.length}`],
        ...Object.entries(callerHeaders('admin')),
        ['connection', 'close'],
      ]);
      const received: Buffer[] = [];
      const socket = connect(http.port, '127.0.0.1');
      socket.on('data', (data) => void received.push(data));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      await new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(headers), head, Buffer.alloc(half, 13)]), () => resolve()));
      // the second half goes only once the ping is answered: the two overlap whatever the timing
      const pong = await fetch(`${http.url}/api/test/ping`, { headers: callerHeaders('admin') });
      assert.equal([pong.status, await pong.json()], [200, { pong: true }]);
      socket.write(Buffer.concat([Buffer.alloc(half, 13), closing]));
      await closed;
      const answer = Buffer.concat(received).toString();
      assert.match(answer, /^HTTP\/1\.1 200/, answer.slice(0, 300));
      assert.ok(answer.endsWith(JSON.stringify({ size: 2 * half, allCr: true })), answer.slice(-200));
    } finally {
      await http.close();
      await t.close();
    }
  }),
);

s.run();
