// The delimiter scan finds every delimiter wherever the chunks split it, and
// nothing short of a whole delimiter ends a part.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '../../../lib/errors.ts';
import { streamMultipart } from '../../../lib/node/multipart.ts';

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

const s = suite('multipart: delimiters');

s('near-delimiters stay content, in one chunk and in one-byte chunks', async () => {
  assert.equal(await parse([BODY]), EXPECTED);
  assert.equal(await parse([...BODY].map((byte) => Buffer.of(byte))), EXPECTED, 'one byte a chunk');
});

s('a split anywhere, the delimiters and part headers across it included, changes nothing', async () => {
  for (let cut = 1; cut < BODY.length; cut++) {
    assert.equal(await parse([BODY.subarray(0, cut), BODY.subarray(cut)]), EXPECTED, `split at ${cut}`);
  }
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
