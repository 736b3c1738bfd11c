// The delimiter scan finds every delimiter wherever the chunks split it, and
// nothing short of a whole delimiter ends a part.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '../../../lib/errors.ts';
import { streamMultipart } from '../../../lib/node/multipart.ts';
import { MultipartScanner } from '../../../lib/node/multipart-scanner.ts';

const BOUNDARY = 'relayboundary';
const LIMITS = { maxFileBytes: 1024 * 1024, maxTotalBytes: 1024 * 1024, maxFiles: 4 };

/** Content that is almost a delimiter, in every way it can fall short, and ends on the delimiter's first bytes. */
const TRICKY = [
  `--${BOUNDARY} at the start, without its CRLF\r\n`,
  `\r\n--${BOUNDARY.slice(0, -1)}`,
  `\r\n--${BOUNDARY.slice(0, -1)}X`,
  `\r\r\n--\r\n-\r\n--${BOUNDARY.slice(0, 4)}\n--${BOUNDARY}`,
  '\r\n--',
].join('');

const part = (headers: string, content: string) => `--${BOUNDARY}\r\n${headers}\r\n\r\n${content}\r\n`;
const BODY = Buffer.from(
  part('content-disposition: form-data; name="title"', 'a -- title\r\n') +
    part('content-disposition: form-data; name="file"; filename="tricky.bin"\r\ncontent-type: application/octet-stream', TRICKY) +
    part('content-disposition: form-data; name="file"; filename="empty.bin"\r\ncontent-type: application/octet-stream', '') +
    part('content-disposition: form-data; name="file"; filename="cr.bin"\r\ncontent-type: application/octet-stream', '\r'.repeat(300)) +
    `--${BOUNDARY}--\r\n`,
);

function request(pieces: Buffer[], length = BODY.length): IncomingMessage {
  const stream = Readable.from(pieces, { objectMode: false });
  const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(length) };
  return Object.assign(stream, { headers, complete: true }) as unknown as IncomingMessage;
}

/** The form as the handler gets it, the files' contents read back from disk. */
async function parse(pieces: Buffer[]): Promise<unknown> {
  const parsed = await streamMultipart(request(pieces), LIMITS);
  try {
    const files = [];
    for (const file of parsed.body.files) files.push([file.originalName, (await readFile(file.path!)).toString('latin1')]);
    return { fields: parsed.body.fields, files };
  } finally {
    await parsed.cleanup();
  }
}

const EXPECTED = {
  fields: { title: 'a -- title\r\n' },
  files: [
    ['tricky.bin', TRICKY],
    ['empty.bin', ''],
    ['cr.bin', '\r'.repeat(300)],
  ],
};

/**
 * The form as the scanner's events give it, the bytes of each file part kept in memory: what the
 * writer would put in the fields and in the temp files.
 */
function scan(pieces: Buffer[]): unknown {
  const scanner = new MultipartScanner(BOUNDARY);
  const fields: Record<string, string> = {};
  const files: [string, string][] = [];
  let current: { name: string; filename: string | null; chunks: Buffer[] } | undefined;
  for (const piece of pieces) {
    for (const event of scanner.push(piece)) {
      if (event.kind === 'part') {
        const disposition = event.headers['content-disposition'] ?? '';
        current = { name: /name="([^"]*)"/.exec(disposition)![1]!, filename: /filename="([^"]*)"/.exec(disposition)?.[1] ?? null, chunks: [] };
      } else if (event.kind === 'data') current!.chunks.push(Buffer.from(event.bytes));
      else if (event.kind === 'partEnd') {
        const content = Buffer.concat(current!.chunks).toString('latin1');
        if (current!.filename === null) fields[current!.name] = content;
        else files.push([current!.filename, content]);
        current = undefined;
      }
    }
  }
  scanner.finish();
  return { fields, files };
}

const s = suite('multipart: delimiters');

s('near-delimiters stay content, in one chunk and in one-byte chunks', async () => {
  assert.equal(await parse([BODY]), EXPECTED);
  assert.equal(await parse([...BODY].map((byte) => Buffer.of(byte))), EXPECTED, 'one byte a chunk');
});

// Where a chunk ends is the scanner's business alone (what it holds back for the next chunk): the
// writer gets the same parts and bytes, only in more or fewer data events, which the one-byte
// chunks above already give it. So every cut is checked on the scanner, and the whole parse (temp
// files written and read back, about 3 ms each) at one cut inside each delimiter and each header
// block, where the scanner holds bytes back; the other cuts of the whole parse add nothing the
// scanner's do not.
s('a split anywhere, the delimiters and part headers across it included, changes nothing', async () => {
  for (let cut = 1; cut < BODY.length; cut++) {
    assert.equal(scan([BODY.subarray(0, cut), BODY.subarray(cut)]), EXPECTED, `split at ${cut}`);
  }
  const text = BODY.toString('latin1');
  const held = [...text.matchAll(new RegExp(`\r\n--${BOUNDARY}|\r\n\r\n`, 'g'))].map((m) => m.index! + Math.floor(m[0].length / 2));
  assert.ok(held.length >= 8, `${held.length} cuts inside delimiters and header ends`);
  for (const cut of held) assert.equal(await parse([BODY.subarray(0, cut), BODY.subarray(cut)]), EXPECTED, `whole parse split at ${cut}`);
});

s('a body cut short of its closing delimiter is malformed: 400', async () => {
  for (const end of [BODY.length - 10, BODY.length - 3, 200]) {
    try {
      await streamMultipart(request([BODY.subarray(0, end)], end), LIMITS);
      assert.unreachable(`cut at ${end} parsed`);
    } catch (error) {
      assert.instance(error, AppError, `cut at ${end}`);
      assert.equal([(error as AppError).status, (error as AppError).message], [400, 'Malformed multipart body'], `cut at ${end}`);
    }
  }
});

s.run();
