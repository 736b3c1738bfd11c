/**
 * The parts of a multipart/form-data body, found by searching each chunk for the whole delimiter
 * (`\r\n--boundary`) with Buffer.indexOf. The cost is linear in the body whatever its bytes: a body
 * of one byte repeated (`\r` or `-`, the delimiter's own) costs what any other does. formidable's
 * parser steps byte by byte on such bodies and emits an event per `\r`, stalling the event loop for seconds on a hostile 50 MB body, hence this scan.
 */

/** What one chunk yields, in body order. */
export type ScanEvent =
  | { kind: 'part'; headers: Record<string, string> }
  | { kind: 'data'; bytes: Buffer }
  | { kind: 'partEnd' }
  | { kind: 'end' };

export class MalformedMultipart extends Error {}

/** Part headers are a few lines; more than this is no form a browser or curl sends. */
const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

type State = 'preamble' | 'afterDelimiter' | 'headers' | 'body' | 'done';

export class MultipartScanner {
  private readonly delimiter: Buffer;
  private state: State = 'preamble';
  /** Bytes held back from the last chunk: a delimiter (or part headers) may continue in the next one. */
  private carry: Buffer;

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
    // the first delimiter opens the body without the CRLF before it
    this.carry = CRLF;
  }

  get finished(): boolean {
    return this.state === 'done';
  }

  /** The events of one more chunk; throws MalformedMultipart where the body breaks the format. */
  *push(chunk: Buffer): Generator<ScanEvent> {
    let buffer = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    this.carry = Buffer.alloc(0);
    let at = 0;
    while (at < buffer.length && this.state !== 'done') {
      if (this.state === 'preamble' || this.state === 'body') {
        const found = buffer.indexOf(this.delimiter, at);
        // without a match, all but what could start a delimiter is data
        const dataEnd = found === -1 ? Math.max(at, buffer.length - this.delimiter.length + 1) : found;
        if (this.state === 'body' && dataEnd > at) yield { kind: 'data', bytes: buffer.subarray(at, dataEnd) };
        if (found === -1) {
          this.carry = buffer.subarray(dataEnd);
          return;
        }
        if (this.state === 'body') yield { kind: 'partEnd' };
        at = found + this.delimiter.length;
        this.state = 'afterDelimiter';
      } else if (this.state === 'afterDelimiter') {
        if (buffer.length - at < 2) break;
        const next = buffer.toString('latin1', at, at + 2);
        if (next === '--') {
          this.state = 'done';
          yield { kind: 'end' };
          return;
        }
        if (next !== '\r\n') throw new MalformedMultipart('delimiter followed by neither CRLF nor --');
        // the CRLF stays: it lets an empty header block end at the first `\r\n\r\n`
        this.state = 'headers';
      } else {
        const end = buffer.indexOf(HEADERS_END, at);
        if (end === -1) {
          if (buffer.length - at > MAX_HEADER_BYTES) throw new MalformedMultipart('part headers too long');
          break;
        }
        yield { kind: 'part', headers: parseHeaders(buffer.toString('utf8', at + 2, end)) };
        at = end + HEADERS_END.length;
        this.state = 'body';
      }
    }
    if (this.state !== 'done') this.carry = Buffer.from(buffer.subarray(at));
  }

  /** At the body's end: a body cut short of its closing delimiter is malformed. */
  finish(): void {
    // a closing delimiter without its `--` (some clients): the last part is complete
    if (this.state === 'afterDelimiter' && this.carry.length === 0) this.state = 'done';
    if (this.state !== 'done') throw new MalformedMultipart('body ended before its closing delimiter');
  }
}

/** Header names lower-cased; an empty header block is a part without headers. */
function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (block === '') return headers;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MalformedMultipart('part header without a name');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** The boundary of a multipart Content-Type, quoted or not; undefined when it has none. */
export function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match ? (match[1] ?? match[2]) : undefined;
}

/** A part's field name and file name, as formidable read them from Content-Disposition. */
export function dispositionOf(headers: Record<string, string>): { name: string; filename: string | null } {
  const value = headers['content-disposition'] ?? '';
  const name = /\bname=("([^"]*)"|([^()<>@,;:\\"/[\]?={}\s\t]+))/i.exec(value);
  const file = /\bfilename=("(.*?)"|([^()<>{}[\]@,;:"?=\s/\t]+))($|;\s)/i.exec(value);
  let filename: string | null = null;
  if (file) {
    const raw = file[2] ?? file[3] ?? '';
    // browsers on Windows once sent the whole path; quotes arrive percent- or entity-encoded
    filename = raw
      .slice(raw.lastIndexOf('\\') + 1)
      .replace(/%22/g, '"')
      .replace(/&#(\d{4});/g, (_, code: string) => String.fromCharCode(Number(code)));
  }
  return { name: name ? (name[2] ?? name[3] ?? '') : '', filename };
}
