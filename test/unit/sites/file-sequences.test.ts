import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callerHeaders } from '../../../lib/testing.ts';
import { placeholderPage } from '../../../lib/sites/files/placeholder.ts';
import { managedSite, siteApp } from './helpers.ts';

// Random sequences of uploads, deletes and listings on one site, with names that overlap as
// files and as folders (`a/b`, then `a/b/c.html`): no answer is a 5xx, every refusal is a 4xx
// {error}, and the site's totalSize is what is on disk after every step (less the placeholder page
// while it is still there: it is not an uploaded file).
// SITE_SEQUENCE_RUNS sequences (20), each on an app of its own, with a new seed each run; `npm run
// bench -- --only=fuzz` runs many more (test/bench/fuzz.mjs). 40 here cost about 1.5 s of the unit
// stage's CPU for the same ten names and seven folders, which 20 sequences of up to 12 steps already
// draw against each other many times.
const RUNS = Number(process.env.SITE_SEQUENCE_RUNS ?? 20);

const names = fc.constantFrom('index.html', 'a', 'a/b', 'a/b/c.html', 'img', 'img/x.png', 'a/index.html', '../x.html', '.hidden', 'run.sh');
const dirs = fc.constantFrom('.', 'a', 'a/b', 'img', 'index.html', '..', 'new/deep');

const step = fc.oneof(
  fc.record({ op: fc.constant('upload' as const), dir: dirs, files: fc.array(names, { minLength: 1, maxLength: 3 }) }),
  fc.record({ op: fc.constant('delete' as const), path: fc.oneof(names, dirs) }),
  fc.record({ op: fc.constant('list' as const), path: dirs }),
);

/** Uploaded bytes: everything on disk but an untouched placeholder page. */
function uploadedBytes(root: string): number {
  const page = join(root, 'index.html');
  const untouched = existsSync(page) && statSync(page).isFile() && readFileSync(page, 'utf8') === placeholderPage('blog');
  return bytesOnDisk(root) - (untouched ? statSync(page).size : 0);
}

function bytesOnDisk(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? bytesOnDisk(path) : statSync(path).size;
  }
  return total;
}

const s = suite('sites: file operations in random order');

s('never a 5xx; refusals are 4xx {error}; totalSize follows the disk', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
      const t = await siteApp();
      try {
        const site = await managedSite(t, 'blog');
        for (const [i, st] of steps.entries()) {
          let response: Response;
          if (st.op === 'upload') {
            const form = new FormData();
            st.files.forEach((name, n) => form.append('file', new Blob(['x'.repeat(n + i + 1)]), name));
            const query = `?path=${encodeURIComponent(st.dir)}`;
            response = await t.app.fetch(new Request(`http://panel.test/api/sites/${site.id}/files${query}`, { method: 'POST', body: form, headers: callerHeaders('admin') }));
          } else if (st.op === 'delete') {
            response = await t.request('DELETE', `/api/sites/${site.id}/files`, { body: { path: st.path } });
          } else {
            response = await t.request('GET', `/api/sites/${site.id}/files?path=${encodeURIComponent(st.path)}`);
          }
          const body = await response.json();
          const where = `step ${i} ${JSON.stringify(st)}: ${response.status} ${JSON.stringify(body)}`;
          assert.ok(response.status < 500, where);
          if (response.status >= 400) assert.equal(Object.keys(body), ['error'], where);
          assert.is(t.services.store.sites.value[0]!.totalSize, uploadedBytes(site.rootPath), where);
        }
      } finally {
        await t.close();
      }
    }),
    { numRuns: RUNS },
  );
});

s.run();
