// `node test/system/prebuild.mjs DIR`: builds the system test's box in DIR ahead of the test
// (prebuild.ts), leaving prebuilt.json with the releases or the error. test/run.mjs starts it.
import '../helpers/register.mjs';

const dir = process.argv[2];
const { buildBox, writeMarker } = await import('./prebuild.ts');
try {
  await writeMarker(dir, { releases: await buildBox(dir) });
} catch (e) {
  await writeMarker(dir, { error: e instanceof Error ? e.stack ?? e.message : String(e) });
  process.exitCode = 1;
}
