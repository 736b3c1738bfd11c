// Child of the traffic bench: requests at a steady rate for a number of seconds, then one
// `result {json}` line on stdout. Paced each millisecond, not per second as autocannon's overallRate
// is (a burst of a second's requests, then silence): the panel sees an even stream of traffic lines.
// A process of its own so its CPU does not stall the bench's own latency measurements.
// Usage: node traffic-load.mjs <url> <requests per second> <seconds> [vhost]
//   http://127.0.0.1:<port>/…  GET requests (through nginx)
//   udp://127.0.0.1:<port>     no nginx on the machine: the syslog datagram nginx would send for
//                              each request of <vhost> (app:<fqdn>), straight to the panel's port
import { createSocket } from 'node:dgram';
import { Agent } from 'node:http';
import { send } from './http.mjs';

const [url, rateArg, secondsArg, vhost] = process.argv.slice(2);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const statuses = {};
let sent = 0;
let failed = 0;
let inFlight = 0;

function httpSender() {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  return {
    send: () => send(url, { agent }).then((answer) => answer.status),
    close: () => agent.destroy(),
  };
}

function syslogSender() {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error(`refusing to send traffic to ${target.hostname}`);
  const socket = createSocket('udp4');
  // what templates.ts trafficLog makes nginx send (syslog header, then the JSON line)
  const line = Buffer.from(`<190>Nov 27 05:28:33 relay: {"v":"${vhost}","s":200,"in":78,"out":312,"t":0.001,"u":"200"}`);
  return {
    send: () => new Promise((resolve, reject) => socket.send(line, Number(target.port), '127.0.0.1', (e) => (e ? reject(e) : resolve(200)))),
    close: () => socket.close(),
  };
}

const sender = url.startsWith('udp:') ? syslogSender() : httpSender();

const one = () => {
  sent++;
  inFlight++;
  sender.send().then(
    (status) => (statuses[status] = (statuses[status] ?? 0) + 1),
    () => failed++,
  ).finally(() => inFlight--);
};

console.log('traffic load started');
const started = performance.now();
const timer = setInterval(() => {
  const elapsedS = (performance.now() - started) / 1000;
  if (elapsedS >= seconds) return finish(elapsedS);
  for (const due = Math.floor(elapsedS * rate); sent < due; ) one();
}, 1);

async function finish(elapsedS) {
  clearInterval(timer);
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  sender.close();
  console.log(`result ${JSON.stringify({ sent, failed, statuses, seconds: elapsedS })}`);
}
