// A tunnel's port revoked while its client is connected: chisel keeps that session's reverse
// listener, so the grant change ends the sessions (a restart) exactly when a revoked port still
// listens; a listener on a port still granted, or a revoked port with none, restarts nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AuthfileStore } from '../../../lib/system/common/authfile.ts';
import { grantOnly } from '../../../lib/system/common/revoked-sessions.ts';

const s = suite('revoked tunnel ports: live sessions ended');

const listen = () => new Promise<Server>((resolve) => {
  const server = createServer((socket) => socket.destroy());
  server.listen(0, '127.0.0.1', () => resolve(server));
});
const portOf = (server: Server) => (server.address() as { port: number }).port;
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

s('only a revoked port that still listens ends the sessions, and the restart closes it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-revoked-'));
  const [session, kept, gone] = await Promise.all([listen(), listen(), listen()]);
  const [a, b, c] = [session, kept, gone].map(portOf) as [number, number, number];
  await close(gone); // c: granted, but its client is not connected
  try {
    const store = new AuthfileStore(dir);
    await store.setAllowedPorts([a, b, c]);
    const ended: number[][] = [];
    // what restarting chisel does to a live session: its listener goes away
    const restart = async (live: number[]) => {
      ended.push(live);
      await close(session);
    };
    await grantOnly(store, [a, b], restart);
    assert.equal(ended, [], 'c had no session; a and b are still granted');
    await grantOnly(store, [b], restart);
    assert.equal(ended, [[a]]);
    assert.not.ok(session.listening, 'the revoked session\'s listener is gone');
    assert.ok(kept.listening, 'the granted one stays');
    assert.equal(await store.allowedPorts(), [b]);
    await grantOnly(store, [b], restart);
    assert.equal(ended, [[a]], 'nothing revoked, nothing ended');
  } finally {
    await close(kept);
    if (session.listening) await close(session);
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
