// A log viewer that stops reading, over a loopback socket: 24 MB fill the kernel's socket buffers
// and the server's 256 KiB bound before the panel drops it. Real I/O that takes ~1 s on a quiet
// machine and far longer under load, so it runs in the local integration lane; the rest of the
// logs stream is test/unit/services/logs.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxControls } from '../../../../lib/system/index.ts';
import { openLogViewer, servedPanelPerTest } from '../../../helpers/service-logs.ts';
import { timed } from '../../../helpers/timeout.ts';

const s = suite('service logs stream: a viewer that does not read');
const panel = servedPanelPerTest(s);

const sandbox = () => sandboxControls(panel.t.services.system);

// 24 MB through one process's server and clients: ~1 s on a quiet machine, but twice past 20 s on a
// 2-core box under a load average of 5, so the bound only catches a hang.
s('a viewer that does not read is dropped; the others get every line', timed(60_000, async () => {
  const slow = await openLogViewer(panel.port, 'proxy');
  const fast = await openLogViewer(panel.port, 'proxy');
  // the slow client stops reading its socket: the server's send buffer fills up
  const slowSocket = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  slowSocket.pause();
  const big = 'x'.repeat(16 * 1024);
  const total = 1500; // 24 MB: far more than the kernel buffers on loopback plus the 256 KiB bound
  for (let i = 0; i < total; i++) {
    sandbox().appendLog('proxy', `${i} ${big}`);
    // the fast viewer reads in this same process: it gets a turn every 128 KiB, under the server's
    // 256 KiB bound; at 800 KiB a turn a loaded machine dropped it too, and the test waited forever
    if (i % 8 === 0) await new Promise((r) => setImmediate(r));
  }
  await fast.waitForLines(total);
  slowSocket.resume(); // it reads what the kernel still holds, then finds the connection gone
  assert.is((await slow.closed).code, 1006, 'terminated without a close frame');
  assert.ok(slow.lines.length < total, `the slow viewer got ${slow.lines.length} of ${total}`);
  assert.is(sandbox().listenerCount('proxy'), 1, 'the follow goes on for the fast viewer');
  fast.close();
}));

s.run();
