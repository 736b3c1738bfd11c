// doctor and an operator's own hash bucket sizes: said when below what the longest relay name needs.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bucketFindings, bucketNeeded } from '../../../lib/install/bucket-doctor.ts';
import { renderVhost, vhostName } from '../../../lib/system/proxy/templates.ts';
import type { VhostSpec } from '../../../lib/system/types.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../helpers/template-context.ts';

const s = suite<{ dir: string; cases: number }>('doctor: operator hash bucket sizes', { dir: '', cases: 0 });
s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-bucket-doctor-'));
});
s.after(async (ctx) => {
  if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
});

const long = `${'a'.repeat(60)}.example.test`;

async function box(ctx: { dir: string; cases: number }, http: string, specs: VhostSpec[]): Promise<{ conf: string; available: string }> {
  const dir = join(ctx.dir, `case-${++ctx.cases}`);
  const available = join(dir, 'sites-available');
  await mkdir(available, { recursive: true });
  await writeFile(join(dir, 'nginx.conf'), `events {}\nhttp {\n${http}\n}\n`);
  for (const spec of [{ kind: 'default' } as VhostSpec, ...specs]) await writeFile(join(available, vhostName(spec)), renderVhost(spec, SAMPLE_TEMPLATE_CONTEXT));
  return { conf: join(dir, 'nginx.conf'), available };
}

s('the bucket a name needs: 46 characters fit 64 bytes, 253 need 272', () => {
  assert.equal([bucketNeeded(46), bucketNeeded(47), bucketNeeded(253)], [64, 72, 272]);
});

s('neither set by the operator: one finding, fine', async (ctx) => {
  const { conf, available } = await box(ctx, '# server_names_hash_bucket_size 64;', [{ kind: 'app', fqdn: long, port: 8080 }]);
  const findings = await bucketFindings(conf, available);
  assert.is(findings.length, 1);
  assert.ok(findings[0]!.ok);
});

s('server_names_hash_bucket_size 64 with a 73-character tunnel: a problem naming the name and the fix', async (ctx) => {
  const { conf, available } = await box(ctx, 'server_names_hash_bucket_size 64;', [{ kind: 'app', fqdn: long, port: 8080 }, { kind: 'app', fqdn: 'short.example.test', port: 8081 }]);
  const [finding] = await bucketFindings(conf, available);
  assert.is(finding!.ok, false);
  assert.match(finding!.message, `below the 96 bytes ${long} (73 characters) needs`);
  assert.match(finding!.fix!, 'server_names_hash_bucket_size 512;');
});

s('map_hash_bucket_size counts the shared routes; a large enough value is fine', async (ctx) => {
  const specs: VhostSpec[] = [{ kind: 'tunnels', fqdn: 'example.test' }, { kind: 'app', fqdn: long, port: 8080, shared: true }];
  const small = await box(ctx, 'map_hash_bucket_size 64;', specs);
  assert.equal((await bucketFindings(small.conf, small.available)).map((f) => f.ok), [false]);
  const big = await box(ctx, 'map_hash_bucket_size 128; server_names_hash_bucket_size 128;', specs);
  assert.equal((await bucketFindings(big.conf, big.available)).map((f) => f.ok), [true, true]);
});

s.run();
