// A tunnel's port revoked while its client is connected: chisel keeps that session's reverse
// listener, so the grant change ends the sessions (a restart) exactly when a revoked port still
// listens; a listener on a port still granted, or a revoked port with none, restarts nothing.
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AuthfileStore } from '../../../lib/system/tunnel-server/authfile.ts';
import { grantOnly } from '../../../lib/system/tunnel-server/revoked-sessions.ts';
import { closeServer, listenOnLoopback, portOf } from '../../helpers/loopback-listener.ts';

const s = suite('revoked tunnel ports: live sessions ended');


s('only a revoked port that still listens ends the sessions, and the restart closes it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-revoked-'));
  const [session, kept, gone] = await Promise.all([listenOnLoopback(), listenOnLoopback(), listenOnLoopback()]);
  const [a, b, c] = [session, kept, gone].map(portOf) as [number, number, number];
  await closeServer(gone); // c: granted, but its client is not connected
  try {
    const store = new AuthfileStore(dir);
    await store.setAllowedPorts([a, b, c]);
    const ended: number[][] = [];
    // what restarting chisel does to a live session: its listener goes away
    const restart = async (live: number[]) => {
      ended.push(live);
      await closeServer(session);
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
    await closeServer(kept);
    await closeServer(session);
    await rm(dir, { recursive: true, force: true });
  }
});

s('the grants before a change are read by the write itself; an unchanged grant reads and parses them no second time', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-revoked-'));
  try {
    const store = new AuthfileStore(dir, { rewriteGapMs: 0 });
    assert.equal(await store.setAllowedPorts([20001, 20002]), [], 'nothing was granted before');
    assert.equal(await store.setAllowedPorts([20002, 20003]), [20001, 20002]);
    assert.is(await store.setAllowedPorts([20003, 20002]), null, 'the same grants: nothing written');
    // a start's sync with nothing changed: the old grants are not read apart from the write
    store.allowedPorts = () => Promise.reject(new Error('read the grants again'));
    let ended = false;
    await grantOnly(store, [20002, 20003], async () => void (ended = true));
    assert.not.ok(ended);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s("a revoked UDP tunnel's session (a UDP socket on loopback) ends the sessions too", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-revoked-udp-'));
  const socket = createSocket('udp4');
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const port = socket.address().port;
  try {
    const store = new AuthfileStore(dir);
    await store.setAllowedPorts([port]);
    const ended: number[][] = [];
    await grantOnly(store, [], async (live) => void ended.push(live));
    assert.equal(ended, [[port]]);
  } finally {
    socket.close();
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
