// Free loopback ports for what a test binds later (a child's listener, nginx, dnsmasq, a UDP log).
// Picked below the kernel's ephemeral range (32768-60999 here): a port that range gave, closed
// again, could become the local port of any process's outgoing TCP connection or DNS query before
// the test bound it (EADDRINUSE in a loaded run). Each is checked free for TCP and UDP on 127.0.0.1,
// and all are held together while picked, so one call never returns the same port twice.
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** 20000-20999 stay for the fixed ports some tests name. */
const FIRST = 21_000;

/** The port below this machine's ephemeral range (32767 where it cannot be read, Linux's default start). */
function lastBelowEphemeral(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    // a range that leaves no room above FIRST: the ports then come from it after all, as bind(0) gave them
    return low > FIRST + 1000 ? low - 1 : 60_999;
  } catch {
    return 32_767;
  }
}

const LAST = lastBelowEphemeral();

function holdTcp(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function holdUdp(port: number): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(null);
    });
    socket.bind(port, '127.0.0.1', () => resolve(socket));
  });
}

export async function freePorts(count: number): Promise<number[]> {
  const held: Array<Server | Socket> = [];
  const ports: number[] = [];
  try {
    for (let tries = 0; ports.length < count; tries++) {
      if (tries >= 1000) throw new Error(`no ${count} free ports in ${FIRST}-${LAST} after 1000 tries`);
      const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
      if (ports.includes(port)) continue;
      const tcp = await holdTcp(port);
      if (!tcp) continue;
      held.push(tcp);
      const udp = await holdUdp(port);
      if (!udp) continue;
      held.push(udp);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(held.map((h) => new Promise<void>((resolve) => void h.close(() => resolve()))));
  }
}
