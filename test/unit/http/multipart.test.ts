// Multipart bodies streamed to disk on the Node edge (by its own delimiter scan), request.formData() elsewhere.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { multipart, uploadErrors } from '../../../lib/http/multipart.ts';
import { largestBody, sizeRefusal } from '../../../lib/upload-refusals.ts';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { callerHeaders, createTestApp, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { multipartHead } from '../../helpers/raw-http.ts';
import { rawUpload } from '../../helpers/raw-upload.ts';
import { withTimeout } from '../../helpers/timeout.ts';

const MiB = 1024 * 1024;
const seenPaths: string[] = [];

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

/** Echoes what it got; remembers each temp path so the test can look for it afterwards. */
const upload = route({
  method: 'POST',
  path: '/api/test/upload',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  body: multipart({ maxFileBytes: 100 * MiB, maxTotalBytes: 128 * MiB, maxFiles: 2, allowedExtensions: ['.txt', '.bin'] }),
  async handle({ body }) {
    const files = [];
    for (const file of body.files) {
      if (file.path) seenPaths.push(file.path);
      files.push({ field: file.field, name: file.originalName, size: file.size, content: file.size < 1024 ? await text(file.stream()) : null });
    }
    return json({ fields: body.fields, files, onDisk: body.files.map((f) => f.path !== undefined) });
  },
});

const small = route({
  method: 'POST',
  path: '/api/test/upload-small',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  body: multipart({ maxFileBytes: 10, maxTotalBytes: 15, maxFiles: 2, allowedExtensions: ['.txt'] }),
  handle: ({ body }) => json({ files: body.files.length }),
});

let keepInto = '';
/** Moves its file out of the temp directory: it must survive the clean-up. */
const keep = route({
  method: 'POST',
  path: '/api/test/upload-keep',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  body: multipart({ maxFileBytes: MiB, maxTotalBytes: MiB, maxFiles: 1 }),
  async handle({ body }) {
    const file = body.files[0]!;
    await rename(file.path!, keepInto);
    return json({ kept: true });
  },
});

/** One file of at most 1 MiB, two in all: the per-file limit is the one a single big file breaks. */
const CUT_LIMITS = { maxFileBytes: MiB, maxTotalBytes: 2 * MiB, maxFiles: 2 };
const cut = route({
  method: 'POST',
  path: '/api/test/upload-cut',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  body: multipart(CUT_LIMITS),
  handle: ({ body }) => json({ files: body.files.length }),
});

interface Ctx {
  t: TestApp;
  http: Awaited<ReturnType<typeof serve>>;
  tmp: string;
  savedTmp: string | undefined;
  logged: string[];
}
const s = suite<Ctx>('multipart uploads', {} as Ctx);

s.before.each(async (ctx) => {
  // Uploads go to os.tmpdir(): a directory of this test's own shows what is left behind.
  ctx.savedTmp = process.env.TMPDIR;
  ctx.tmp = await mkdtemp(join(tmpdir(), 'relay-upload-test-'));
  process.env.TMPDIR = ctx.tmp;
  ctx.t = await createTestApp({ routes: [upload, small, keep, cut] });
  ctx.http = await serve(ctx.t.app);
  ctx.logged = [];
  for (const level of ['warn', 'error'] as const) ctx.t.services.log[level] = (message) => void ctx.logged.push(`${level}: ${message}`);
  seenPaths.length = 0;
});
s.after.each(async (ctx) => {
  if (ctx.savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = ctx.savedTmp;
  await ctx.http.close();
  await ctx.t.close();
  await rm(ctx.tmp, { recursive: true, force: true });
});

/** Upload directories still in this test's temp directory. */
const leftovers = async (ctx: Ctx) => (await readdir(ctx.tmp)).filter((name) => name.startsWith('relay-upload-'));

function form(files: [string, string, string][], fields: Record<string, string> = {}): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const [field, name, content] of files) data.append(field, new Blob([content], { type: 'text/plain' }), name);
  return data;
}

const admin = callerHeaders('admin');
const viaListener = (ctx: Ctx, path: string, body: FormData | string, headers: Record<string, string> = {}) =>
  fetch(`${ctx.http.url}${path}`, { method: 'POST', body, headers: { ...admin, ...headers } });
const viaFetch = (ctx: Ctx, path: string, body: FormData | string, headers: Record<string, string> = {}) =>
  ctx.t.app.fetch(new Request(`http://panel.test${path}`, { method: 'POST', body, headers: { ...admin, ...headers } }));

s('the same route works through the real listener (streamed to disk) and through app.fetch (formData)', (ctx) =>
  withTimeout('both edges', 5000, async () => {
    const payload = () => form([['doc', 'a.txt', 'alpha'], ['doc', 'b.bin', 'beta!']], { title: 'two files' });
    const expected = {
      fields: { title: 'two files' },
      files: [
        { field: 'doc', name: 'a.txt', size: 5, content: 'alpha' },
        { field: 'doc', name: 'b.bin', size: 5, content: 'beta!' },
      ],
    };
    const listened = await viaListener(ctx, '/api/test/upload', payload());
    assert.equal(await listened.json(), { ...expected, onDisk: [true, true] });
    const fetched = await viaFetch(ctx, '/api/test/upload', payload());
    assert.equal(await fetched.json(), { ...expected, onDisk: [false, false] });
  }),
);

s('temp files are gone once the handler returned, unless it moved them', (ctx) =>
  withTimeout('clean-up', 5000, async () => {
    await viaListener(ctx, '/api/test/upload', form([['doc', 'a.txt', 'alpha']]));
    assert.is(seenPaths.length, 1);
    assert.not.ok(existsSync(seenPaths[0]!), 'temp file left behind');
    keepInto = join(ctx.t.dir, 'kept.bin');
    const kept = await viaListener(ctx, '/api/test/upload-keep', form([['doc', 'k.bin', 'keep me']]));
    assert.is(kept.status, 200);
    assert.ok(existsSync(keepInto));
    assert.equal(await leftovers(ctx), []);
  }),
);

s('a broken limit answers 413 or 400 with a clear message, on both edges', (ctx) =>
  withTimeout('limits', 5000, async () => {
    const cases: [FormData | string, Record<string, string>, number, string][] = [
      [form([['f', 'a.txt', '12345678901']]), {}, 413, 'File too large: at most 10 bytes per file'],
      [form([['f', 'a.txt', '12345678'], ['f', 'b.txt', '12345678']]), {}, 413, 'Upload too large: at most 15 bytes in all'],
      [form([['f', 'a.txt', '1'], ['f', 'b.txt', '2'], ['f', 'c.txt', '3']]), {}, 413, 'Too many files: at most 2 per upload'],
      [form([['f', 'evil.sh', '1']]), {}, 400, "File type not allowed: 'evil.sh' (allowed: .txt)"],
      ['{}', { 'content-type': 'application/json' }, 415, 'Content-Type must be multipart/form-data'],
    ];
    for (const send of [viaListener, viaFetch]) {
      for (const [body, headers, status, error] of cases) {
        const response = await send(ctx, '/api/test/upload-small', body, headers);
        assert.equal({ status: response.status, body: await response.json() }, { status, body: { error } }, `${send === viaListener ? 'listener' : 'fetch'}: ${error}`);
      }
    }
    assert.equal(await leftovers(ctx), []);
  }),
);

// Formidable checked a file's size when its part ended; the parse must end at the limit.
s('a file streamed past its limit (chunked, or under a Content-Length that allows it) is cut off there: 413, connection closed', (ctx) =>
  withTimeout('cut off', 8000, async () => {
    // what the server had read when its answer went out (after it, it discards what still arrives)
    const readAtAnswer: number[] = [];
    ctx.http.server.on('request', (req, res) => res.on('finish', () => void readAtAnswer.push(req.socket.bytesRead)));
    const limit = MiB;
    const framings: [string, [string, string]][] = [
      ['chunked', ['transfer-encoding', 'chunked']],
      ['declared', ['content-length', String(largestBody(CUT_LIMITS) - 1)]],
    ];
    for (const [label, framing] of framings) {
      const headers: [string, string][] = [framing, ...Object.entries(admin)];
      // a truthful client sends no more than it declared (the declared length allows a 2 MiB file)
      const fileBytes = label === 'chunked' ? 16 * limit : 2 * limit;
      const { answer, reset } = await rawUpload(ctx.http.port, '/api/test/upload-cut', { headers, chunked: label === 'chunked', fileBytes });
      assert.equal([answer.status, answer.json()], [413, { error: `File too large: at most ${limit} bytes per file` }], label);
      assert.is(answer.headers.connection, 'close', label);
      assert.not.ok(reset, `${label}: the connection was reset`);
      // the head, the part's head and the file up to the limit, then at most what node's parser
      // took from the socket before the paused request stopped it
      const read = readAtAnswer.at(-1)!;
      assert.ok(read > limit && read < limit + 512 * 1024, `${label}: the server read ${read} bytes`);
    }
    assert.equal(await leftovers(ctx), []);
  }),
);

// A client still sending when the answer comes (curl reads it only between writes) must not be
// reset: a reset drops the answer it has not read yet ("Send failure: Broken pipe" for the 413).
s('after an early 413, what still arrives is discarded until the client closes: no reset', (ctx) =>
  withTimeout('linger', 6000, async () => {
    const headers: [string, string][] = [['transfer-encoding', 'chunked'], ...Object.entries(admin)];
    for (let i = 0; i < 3; i++) {
      const { answer, reset } = await rawUpload(ctx.http.port, '/api/test/upload-cut', { headers, chunked: true, fileBytes: 16 * MiB, afterAnswer: 4 * MiB });
      assert.is(answer.status, 413);
      assert.not.ok(reset, `round ${i}: the connection was reset`);
    }
    assert.equal(await leftovers(ctx), []);
  }),
);

s("the panel's check before sending refuses what the server would, in the server's words", () => {
  const limits = { maxFileBytes: 10, maxTotalBytes: 15, maxFiles: 2 };
  const cases: [number[], string | undefined][] = [
    [[10, 5], undefined],
    [[11], uploadErrors.fileTooLarge(limits).message],
    [[8, 8], uploadErrors.totalTooLarge(limits).message],
    [[1, 1, 1], uploadErrors.tooManyFiles(limits).message],
  ];
  for (const [sizes, refusal] of cases) assert.is(sizeRefusal(limits, sizes.map((size) => ({ size }))), refusal, sizes.join(', '));
});

/** Starts a multipart upload declaring `declared` bytes, sends `sent` of them, then drops the connection. */
function abortedUpload(port: number, declared: number, sent: number): Promise<void> {
  const boundary = 'relayboundary';
  const preamble = `--${boundary}\r\ncontent-disposition: form-data; name="f"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`;
  const head = multipartHead('/api/test/upload', boundary, [['content-length', String(declared)], ...Object.entries(admin)]);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head + preamble);
      socket.write(Buffer.alloc(sent, 7), () => setTimeout(() => socket.destroy(), 150));
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

s('an aborted upload leaves no temp file and logs one line without a stack', (ctx) =>
  withTimeout('aborted upload', 8000, async () => {
    await abortedUpload(ctx.http.port, 50 * MiB, 2 * MiB);
    for (let waited = 0; ctx.logged.length === 0 && waited < 3000; waited += 25) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 100));
    assert.is(ctx.logged.length, 1, ctx.logged.join('\n---\n'));
    assert.not.match(ctx.logged[0]!, /\n/);
    assert.equal(await leftovers(ctx), []);
  }),
);

s.run();
