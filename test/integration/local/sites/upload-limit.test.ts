// The 50 MB per-file limit at its edge, with 50 MiB bodies through the app (real disk writes: too slow
// for the unit half).
import { readdirSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { managedSite, siteSuite, uploadFiles } from '../../../unit/sites/helpers.ts';

const s = siteSuite('sites: the per-file upload limit');

s('50 MiB per file: one byte more is refused with 400 Upload failed (the spec\'s words for every upload refusal) and nothing is written; exactly 50 MiB is stored', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  const MiB = 1024 * 1024;
  const over = await uploadFiles(t, site.id, { 'over.bin.txt': 'x'.repeat(50 * MiB + 1) });
  assert.equal([over.status, over.body], [400, { error: `Upload failed: File too large: at most ${50 * MiB} bytes per file` }]);
  // only the new site's placeholder page
  assert.equal(readdirSync(site.rootPath), ['index.html']);
  const limit = await uploadFiles(t, site.id, { 'limit.txt': 'x'.repeat(50 * MiB) });
  assert.equal([limit.status, limit.body], [200, { ok: true, files: ['limit.txt'] }]);
});

s.run();
