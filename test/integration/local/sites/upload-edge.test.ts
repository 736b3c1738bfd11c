// Site uploads through the real Node edge: a loopback socket and Node's HTTP server, an upload cut
// off mid-file and an early 413 (each waits a few hundred ms of real time for what did not happen).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { callerHeaders } from '../../../../lib/testing.ts';
import { largestBody } from '../../../../lib/upload-refusals.ts';
import { SITE_UPLOAD_LIMITS } from '../../../../lib/upload-limits.ts';
import { serve } from '../../../helpers/http-server.ts';
import { multipartHead } from '../../../helpers/raw-http.ts';
import { rawUpload } from '../../../helpers/raw-upload.ts';
import { withTimeout } from '../../../helpers/timeout.ts';
import { managedSite, siteSuite } from '../../../unit/sites/helpers.ts';

const s = siteSuite('sites: uploads through the real Node edge', async (t) => ({ site: await managedSite(t, 'blog') }));

s('through the real Node edge: streamed to disk, and an upload aborted mid-file leaves no file', ({ t, site }) =>
  withTimeout('edge upload', 20_000, async () => {
    const http = await serve(t.app);
    try {
      const form = new FormData();
      form.append('file', new Blob(['x'.repeat(300_000)]), 'big.txt');
      const ok = await fetch(`${http.url}/api/sites/${site.id}/files`, { method: 'POST', body: form, headers: callerHeaders('admin') });
      assert.equal([ok.status, await ok.json()], [200, { ok: true, files: ['big.txt'] }]);
      assert.is(readFileSync(join(site.rootPath, 'big.txt'), 'utf8').length, 300_000);

      await abortMidFile(http.port, site.id);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(readdirSync(site.rootPath).sort(), ['big.txt', 'index.html'], 'no partial half.txt, no temp file');
      assert.not.ok(existsSync(join(site.rootPath, 'half.txt')));
    } finally {
      await http.close();
    }
  }),
);

// The upload limit (a streamed part cut off at its limit: test/unit/http/multipart.test.ts, on a 1 MiB route).
s('a Content-Length over the limit: 400 Upload failed and the connection closed while the client has sent only the head; nothing on disk', ({ t, site }) =>
  withTimeout('declared length', 6000, async () => {
    // formidable's temp directories go to os.tmpdir(): one of this test's own shows what is left behind
    const savedTmp = process.env.TMPDIR;
    const tmp = await mkdtemp(join(tmpdir(), 'relay-early-refusal-'));
    process.env.TMPDIR = tmp;
    const http = await serve(t.app);
    const head = (length: number) => ({ headers: [['content-length', String(length)], ...Object.entries(callerHeaders('admin'))] as [string, string][], chunked: false, fileBytes: 0 });
    try {
      const declared = largestBody(SITE_UPLOAD_LIMITS) + 1;
      const { answer } = await rawUpload(http.port, `/api/sites/${site.id}/files`, head(declared));
      assert.equal([answer.status, answer.json()], [400, { error: `Upload failed: Upload too large: at most ${SITE_UPLOAD_LIMITS.maxTotalBytes} bytes in all` }]);
      assert.is(answer.headers.connection, 'close');
      assert.equal(readdirSync(site.rootPath), ['index.html'], "only the site's placeholder page");
      assert.equal(readdirSync(tmp), [], 'no temp directory');
      // one byte less may be a real upload: the server waits for its body
      const within = await rawUpload(http.port, `/api/sites/${site.id}/files`, { ...head(declared - 1), quietMs: 300 }).catch((error: Error) => error.message);
      assert.match(String(within), /^no close within 300 ms/);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      await http.close();
      await rm(tmp, { recursive: true, force: true });
    }
  }),
);

/** Declares 5 MB, sends 1 MB of one file part, then hangs up. */
function abortMidFile(port: number, id: string): Promise<void> {
  const boundary = 'siteboundary';
  const head = multipartHead(`/api/sites/${id}/files`, boundary, [['content-length', String(5 * 1024 * 1024)], ...Object.entries(callerHeaders('admin'))])
    + `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="half.txt"\r\ncontent-type: text/plain\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      socket.write(Buffer.alloc(1024 * 1024, 97), () => setTimeout(() => socket.destroy(), 150));
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

s.run();
