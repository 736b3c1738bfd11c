// Certificate limits against real certbot and pebble (test/infra/harness.ts, an infrastructure of
// this file's own on free ports): with low configured limits, the order past one is refused with
// the spec's 500 before certbot runs (certbot's own log directory gains no run), a renewal certbot
// makes outside the panel (as the renewal timer runs it) is counted from certbot's archive, and a
// failure certbot reports from the CA's validation counts against the hostname.
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renewCommand } from '../../../../lib/system/certs/renew-units.ts';
import type { TestApp } from '../../../../lib/testing.ts';
import { timed } from '../../../helpers/timeout.ts';
import { startInfra, TEST_DOMAIN, type Infra } from '../../../infra/harness.ts';
import { freePorts } from '../../../infra/ports.ts';
import { forgetFakeSystemctl, onboardedPanelOn } from '../../../infra/onboarded-panel.ts';

/** dnsmasq answers NXDOMAIN for this one: pebble's validation of its names fails */
const NOWHERE = 'nowhere.test';

const s = suite('certificate limits against certbot and pebble');
let infra: Infra;
let t: TestApp;
let ports: number[] = [];

s.before(async () => {
  // this lane's workers get a private TMPDIR (0700), which nginx's workers cannot traverse to the
  // ACME webroot: the infrastructure goes under the system's (its stop removes it)
  const own = process.env.TMPDIR;
  process.env.TMPDIR = '/tmp';
  try {
    infra = await startInfra();
  } finally {
    if (own === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = own;
  }
  ports = await freePorts(4);
  t = await onboardedPanelOn(infra, { config: { certLimits: { newPerRegisteredDomain: 1, duplicatePerNameSet: 2, failedValidationsPerHostname: 1 } } });
});

s.after(async () => {
  await t?.close();
  forgetFakeSystemctl();
  await infra?.stop();
});

/** certbot keeps one log file per run in its logs directory. */
const certbotRuns = async () => (await readdir(t.services.config.value.system.acme.logsDir)).filter((f) => f.startsWith('letsencrypt.log')).length;
const tunnel = (subdomain: string, port: number) => t.call('POST', '/api/tunnels', { body: { subdomain, port } });
type Count = { limit: string; key: string; count: number; max: number | null };
const countOf = async (limit: string, key: string): Promise<Count | undefined> =>
  ((await t.call('GET', '/api/certs/limits')).body.counts as Count[]).find((c) => c.limit === limit && c.key === key);

s('one new certificate a week under example.test: pebble issues the first; the second is refused and certbot never runs', timed(60_000, async () => {
  const made = await tunnel('app', ports[0]!);
  assert.is(made.status, 201, JSON.stringify(made.body));
  const runs = await certbotRuns();
  const refused = await tunnel('web', ports[1]!);
  assert.equal([refused.status, refused.body.error], [500, 'Failed to create tunnel']);
  assert.match(refused.body.details, /^Certificate issuance failed: rate limit reached: the configured \(certLimits\) limit of 1 new certificates per registered domain per 7 days \(newPerRegisteredDomain\); example\.test has 1; the next slot frees at /);
  assert.is(await certbotRuns(), runs, 'no certbot run');
  assert.equal(t.services.store.tunnels.value.map((x) => x.subdomain), ['app']);
  const counted = (await t.call('GET', '/api/certs/limits')).body.counts.find((c: { limit: string }) => c.limit === 'newPerRegisteredDomain');
  assert.equal([counted.key, counted.count, counted.max, typeof counted.nextFreeAt], ['example.test', 1, 1, 'string']);
}));

s("certbot renew as the timer runs it counts under the lineage's names (a duplicate, not new); the panel's forced renewal past the limit is refused", timed(60_000, async () => {
  const lineage = `app.${TEST_DOMAIN}`;
  assert.is((await countOf('duplicatePerNameSet', lineage))?.count, 1, "the panel's issuance");
  const { system } = t.services.config.value;
  // the renewal service's ExecStart and environment (renew-units.ts), one lineage forced: the deploy
  // hook certbot stored in its renewal configuration reloads the infrastructure's nginx
  const [certbot, ...args] = renewCommand(system);
  await promisify(execFile)(certbot!, [...args, '--cert-name', lineage, '--force-renewal'], {
    env: { ...process.env, ...(system.acme.caBundle ? { REQUESTS_CA_BUNDLE: system.acme.caBundle } : {}) },
    timeout: system.timeouts.certbotMs,
  });
  const records = t.services.store.certIssuances.value.length;
  const duplicates = await countOf('duplicatePerNameSet', lineage);
  assert.equal([duplicates?.count, duplicates?.max], [2, 2], "the timer's renewal, read from certbot's archive");
  assert.is((await countOf('newPerRegisteredDomain', 'example.test'))?.count, 1, 'a renewal is not a new certificate');
  const versions = async () => (await readdir(join(system.acme.configDir, 'archive', lineage))).filter((f) => f.startsWith('cert')).sort();
  assert.equal(await versions(), ['cert1.pem', 'cert2.pem'], "the panel's issuance and the timer's renewal");
  const refused = await t.call('POST', `/api/certs/${lineage}/renew`);
  assert.equal([refused.status, refused.body.error], [500, 'Certificate renewal failed']);
  assert.match(refused.body.details, /the configured \(certLimits\) limit of 2 certificates for the same set of names per 7 days \(duplicatePerNameSet\); app\.example\.test has 2; the next slot frees at /);
  assert.equal(await versions(), ['cert1.pem', 'cert2.pem'], 'certbot renewed nothing');
  assert.is(t.services.store.certIssuances.value.length, records, 'a refused order is no order');
}));

s("a validation pebble fails (the name does not resolve) counts against the hostname: the retry is refused before certbot", timed(60_000, async () => {
  await t.completeOnboarding(NOWHERE, `ops@${TEST_DOMAIN}`);
  const failed = await tunnel('lost', ports[2]!);
  assert.equal([failed.status, failed.body.error], [500, 'Failed to create tunnel']);
  assert.match(failed.body.details, /^Certificate issuance failed: certbot could not issue lost\.nowhere\.test/);
  const [order] = t.services.store.certIssuances.value.filter((r) => r.names[0] === `lost.${NOWHERE}`);
  assert.equal([order?.outcome, order?.failedValidations], ['failed', [`lost.${NOWHERE}`]], `certbot's words: ${failed.body.details}`);
  const runs = await certbotRuns();
  const refused = await tunnel('lost', ports[3]!);
  assert.match(refused.body.details, /1 failed validations per hostname per hour \(failedValidationsPerHostname\); lost\.nowhere\.test has 1/);
  assert.is(await certbotRuns(), runs, 'no certbot run');
}));

s.run();
