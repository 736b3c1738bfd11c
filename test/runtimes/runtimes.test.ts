import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFor } from './bundle.mjs';
import { firstDifference } from './compare.ts';
import { binaryOf, runIn, runWorker, startWorker, type Runtime } from './runtimes.mjs';
import { normalize, ticketFlow, type Answer, type Headers } from './scenario.ts';

// The same scenario (scenario.ts: tunnels as admin and agents, a 400 with details.issues, a 404
// under /api, the entry document, the whole ticket flow) through the documented testing kit in
// Node, Bun, Deno and workerd; every runtime's answers must equal Node's byte for byte. The clock
// is injected (fixed), ids are random and normalized alike in every print (scenario.ts#normalize).

const here = new URL('.', import.meta.url).pathname;
const s = suite<{ dir: string; node: Answer[] }>('runtimes: the kit scenario in Node, Bun, Deno and workerd', { dir: '', node: [] });

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-runtimes-'));
  await bundleFor('node', `${here}kit-entry.ts`, join(ctx.dir, 'kit.mjs'));
  await bundleFor('worker', `${here}worker-entry.ts`, join(ctx.dir, 'worker.mjs'));
  ctx.node = JSON.parse(await runIn('node', join(ctx.dir, 'kit.mjs')));
});
s.after(async ({ dir }) => rm(dir, { recursive: true, force: true }));

s('Node answers the scenario as the handlers promise (the reference the others must equal)', ({ node }) => {
  const statuses = Object.fromEntries(node.map((a) => [a.step, a.status]));
  assert.equal(statuses, {
    'tunnels as admin': 200,
    'create as admin': 201,
    'tunnels as reader': 200,
    'create as reader': 403,
    'tunnels without capability': 403,
    'create as writer': 201,
    'invalid body': 400,
    'unknown api path': 404,
    'entry document': 200,
    scope: 201,
    instance: 201,
    assignment: 201,
    ticket: 201,
    inbox: 200,
    validate: 200,
    session: 201,
    'session heartbeat': 200,
    'instance heartbeat': 200,
  });
  const invalid = JSON.parse(node.find((a) => a.step === 'invalid body')!.body);
  assert.equal(invalid.details.issues.map((i: { path: string }) => i.path), ['subdomain', 'port']);
  assert.match(node.find((a) => a.step === 'entry document')!.body, /^<!doctype html>/);
  assert.match(node.find((a) => a.step === 'session heartbeat')!.body, '"authorized":true');
});

for (const runtime of ['bun', 'deno', 'workerd'] as const satisfies readonly Runtime[]) {
  s(`${runtime} answers byte for byte as Node`, async ({ dir, node }) => {
    const answers: Answer[] = JSON.parse(await runIn(runtime, join(dir, runtime === 'workerd' ? 'worker.mjs' : 'kit.mjs')));
    assert.is(firstDifference(node, answers), null);
  });
}

s('workerd answers the ticket flow sent from outside, request by request, as Node', async ({ dir, node }) => {
  const worker = await startWorker(join(dir, 'worker.mjs'));
  try {
    const callers = (await (await worker.fetch('http://panel.test/__callers')).json()) as { admin: Headers; agents: Record<string, Headers> };
    // miniflare's Response is undici's, the same interface the scenario reads
    const send = (path: string, init?: RequestInit) => worker.fetch(`http://panel.test${path}`, init);
    const answers = normalize(await ticketFlow(send, { admin: () => callers.admin, agent: (label) => callers.agents[label]! }));
    // Node's ticket flow comes after the tunnel steps, whose ids are UUIDs: its hex ids are numbered
    // from <hex1> there as here
    assert.is(firstDifference(node.slice(node.findIndex((a) => a.step === 'scope')), answers), null);
  } finally {
    await worker.close();
  }
});

// README, "In Bun, Deno and workerd": the GET routes that cannot answer in workerd, and why
const NOT_IN_WORKERD = new Set(['/metrics', '/api/system/stats']);

s('every GET route answers in workerd as in Node but those the README lists, and those do not', async ({ dir }) => {
  const node = (await runIn('node', join(dir, 'kit.mjs'), ['sweep'])).trim().split('\n');
  const workerd = (await runWorker(join(dir, 'worker.mjs'), 'http://panel.test/__sweep')).trim().split('\n');
  assert.ok(node.length > 30, `${node.length} GET routes swept`);
  const differing = node.flatMap((line, i) => (line === workerd[i] ? [] : [`${line} (workerd: ${workerd[i]})`]));
  assert.equal(differing.map((line) => line.split(' ')[1]), [...NOT_IN_WORKERD], differing.join('; '));
});

s('a different answer is detected: a status, one header byte, one body byte, a missing answer', ({ node }) => {
  const changed = (at: number, change: Partial<Answer>) => node.map((a, i) => (i === at ? { ...a, ...change } : a));
  const ticket = node.findIndex((a) => a.step === 'ticket');
  assert.match(firstDifference(node, changed(ticket, { status: 200 })) ?? '', /^ticket: status 200 instead of 201/);
  const type = node[0]!.headers['content-type']!;
  assert.match(firstDifference(node, changed(0, { headers: { 'content-type': type.replace('; ', ';') } })) ?? '', /^tunnels as admin: headers/);
  assert.match(firstDifference(node, changed(ticket, { body: node[ticket]!.body.replace('"ok":true', '"ok":True') })) ?? '', /^ticket: body/);
  assert.match(firstDifference(node, node.slice(0, -1)) ?? '', /missing \(instance heartbeat\)/);
});

s('a missing binary fails with a message that says how to get it', async ({ dir }) => {
  assert.throws(() => binaryOf('bun', dir), /bun is missing: .* pinned in test\/runtimes\/tools\/package\.json .* `node test\/run\.mjs runtimes`/);
});

s.run();
