// A multipart upload is streamed to disk by the Node edge as it arrives. Shown by order, not by a
// memory figure: the client sends the first half of a body and waits until the server's temp file
// holds most of it; a server that held the body until its end would write nothing before the
// second half. (A server that wrote to disk and also kept a copy would pass: what it holds is a
// figure of `npm run bench`. The rest of the multipart behaviour is in test/unit/http/multipart.test.ts.)
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { multipart } from '../../../../lib/http/multipart.ts';
import { json } from '../../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { callerHeaders, createTestApp, type TestApp } from '../../../../lib/testing.ts';
import { serve } from '../../../helpers/http-server.ts';
import { multipartHead, parseAnswer } from '../../../helpers/raw-http.ts';
import { withTimeout } from '../../../helpers/timeout.ts';

const MiB = 1024 * 1024;
const BOUNDARY = 'relayupload';
const HALF = 16 * MiB;

const upload = route({
  method: 'POST',
  path: '/api/test/upload',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  body: multipart({ maxFileBytes: 100 * MiB, maxTotalBytes: 128 * MiB, maxFiles: 1 }),
  handle: ({ body }) => json({ files: body.files.map((file) => ({ size: file.size, onDisk: file.path !== undefined })) }),
});

const s = suite('multipart upload: written to disk as it arrives');
let t: TestApp;
let http: Awaited<ReturnType<typeof serve>>;
let uploads: string;
let savedTmpdir: string | undefined;
s.before(async () => {
  // the upload's temp directory is made under os.tmpdir(): a directory of this test's own, so
  // that no other lane's upload is counted
  uploads = await mkdtemp(join(tmpdir(), 'relay-upload-order-'));
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = uploads;
  t = await createTestApp({ routes: [upload] });
  http = await serve(t.app);
});
s.after(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await http?.close();
  await t?.close();
  await rm(uploads, { recursive: true, force: true });
});

/** The bytes in the files of the uploads' temp directories. */
async function bytesOnDisk(): Promise<number> {
  let total = 0;
  for (const entry of await readdir(uploads, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath ?? entry.path, entry.name))).size;
  }
  return total;
}

s('the first half of a body is on disk before the second half is sent', () =>
  withTimeout('upload in two halves', 60_000, async () => {
    const head = Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="f"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`);
    const closing = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    const request = multipartHead('/api/test/upload', BOUNDARY, [
      ['content-length', `${head.length + 2 * HALF + closing.length}`],
      ...Object.entries(callerHeaders('admin')),
      ['connection', 'close'],
    ]);
    const socket = connect(http.port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (data) => void received.push(data));
    let isClosed = false;
    const closed = new Promise((resolve) => socket.on('close', () => resolve((isClosed = true))));
    await new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(request), head, Buffer.alloc(HALF, 120)]), () => resolve()));
    // all but what the scan holds back for a delimiter that may continue, and what is in flight
    const wanted = HALF - MiB;
    const deadline = Date.now() + 30_000;
    let onDisk = 0;
    while (!isClosed && (onDisk = await bytesOnDisk()) < wanted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(onDisk >= wanted, `${onDisk} of ${HALF} bytes on disk before the second half was sent; the server answered: ${Buffer.concat(received).toString().slice(0, 200) || 'nothing'}`);
    socket.write(Buffer.concat([Buffer.alloc(HALF, 120), closing]));
    await closed;
    const answer = parseAnswer(Buffer.concat(received));
    assert.is(answer.status, 200, answer.body);
    assert.equal(answer.json().files, [{ size: 2 * HALF, onDisk: true }]);
  }),
);

s.run();
