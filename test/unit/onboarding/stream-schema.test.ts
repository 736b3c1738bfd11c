// The provisioning stream's route describes one message (its response schema), and the panel types
// the messages from it: every message a failed run, its state and a successful retry send must be
// what the schema says, field for field (parsing strips fields the schema lacks, so a message
// carrying one no longer equals its parse).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ZodType } from 'zod';
import { routes } from '../../../handlers/index.ts';
import type { StreamMessage } from '../../../lib/onboarding/events.ts';
import { createTestApp } from '../../../lib/testing.ts';
import { CHEAP_ONBOARDING, provisionAndWait, walkToDnsReady } from './support.ts';

const s = suite('onboarding stream messages and their schema');

s('every message of a failed run, its state and the retry is what the route documents', async () => {
  const stream = routes.find((r) => r.kind === 'ws' && r.path === '/api/onboarding/provision/stream');
  const schema = stream?.response?.schema as ZodType | undefined;
  assert.ok(schema, 'the stream documents its message');
  const t = await createTestApp({ onboarding: CHEAP_ONBOARDING });
  try {
    await walkToDnsReady(t);
    const sent: StreamMessage[] = [t.services.onboarding.board.snapshot()];
    t.services.onboarding.board.subscribe((m) => sent.push(m));
    const services = t.services.system.services;
    const status = services.status;
    services.status = async (name) => ({ ...(await status(name)), ...(name === 'tunnel-server' ? { status: 'failed' as const } : {}) });
    assert.is((await provisionAndWait(t)).outcome.type, 'error');
    sent.push(t.services.onboarding.board.snapshot());
    services.status = status;
    assert.is((await provisionAndWait(t)).outcome.type, 'complete');
    assert.equal([...new Set(sent.map((m) => m.type))].sort(), ['complete', 'error', 'state', 'task']);
    assert.ok(sent.some((m) => m.type === 'state' && m.error !== null), 'a state naming the failed task');
    for (const message of sent) assert.equal(schema.parse(message), message, `${message.type} ${message.task}`);
  } finally {
    await t.close();
  }
});

s.run();
