// One stream server per tunnel. allow/deny run in the stream module's access phase, before nginx
// opens the upstream connection: a refused source never reaches the tunnel.
import { assertPort } from '../common/names.ts';
import { isCidr } from '../common/cidr.ts';
import { streamTrafficName } from '../../traffic/names.ts';
import type { StreamProtocol, StreamSpec } from './types.ts';

const STREAM_HEADER = '# relay-panel stream tunnel: written by relay-panel, edits are replaced';
const NAME = /^relay-stream-(tcp|udp)-(\d{1,5})\.conf$/;

/** The file of a stream server: its protocol and public port name it (one server per port and protocol). */
export function streamFileName(spec: Pick<StreamSpec, 'protocol' | 'publicPort'>): string {
  return `relay-stream-${spec.protocol}-${assertPort(spec.publicPort)}.conf`;
}

export function isStreamFileName(name: string): boolean {
  return NAME.test(name);
}



function assertCidr(text: string): string {
  if (!isCidr(text)) throw new Error(`not an address or network: ${JSON.stringify(text)}`);
  return text;
}

interface StreamRenderContext {
  /** `nginx.listenAddress`: `0.0.0.0`, `[::]` or one address */
  listenAddress: string;
  /** the panel's traffic port; null: no traffic log */
  trafficPort: number | null;
}

const logFormatName = (protocol: StreamProtocol, port: number) => `relay_stream_${protocol}_${port}`;

/**
 * The server, and above it its log_format (stream context, a global name: each file defines its
 * own, so no file depends on another). A line per session: the meter's `v`/`s`/`in`/`out`/`t` of an
 * HTTP request are the session's name, status (200, 403 refused, 502 no tunnel client), bytes from
 * and to the source, and duration.
 */
export function renderStreamServer(spec: StreamSpec, ctx: StreamRenderContext): string {
  const publicPort = assertPort(spec.publicPort);
  const tunnelPort = assertPort(spec.tunnelPort);
  const format = logFormatName(spec.protocol, publicPort);
  const lines = [STREAM_HEADER, `# ${spec.protocol.toUpperCase()} ${publicPort} -> 127.0.0.1:${tunnelPort}`];
  if (ctx.trafficPort !== null) {
    const fields = `"v":"${streamTrafficName(spec)}","s":$status,"in":$bytes_received,"out":$bytes_sent,"t":$session_time`;
    lines.push(`log_format ${format} escape=json '{${fields}}';`);
  }
  const body = [`listen ${ctx.listenAddress}:${publicPort}${spec.protocol === 'udp' ? ' udp' : ''};`];
  if (spec.allow.length > 0) body.push(...spec.allow.map((cidr) => `allow ${assertCidr(cidr)};`), 'deny all;');
  body.push(`proxy_pass 127.0.0.1:${tunnelPort};`);
  // nginx's 16k default moved a bulk transfer at 0.75 of direct loopback, 64k at 0.83 (test/bench/stream.ts)
  body.push('proxy_buffer_size 64k;');
  if (spec.proxyProtocol) body.push('proxy_protocol on;');
  // a dead tunnel client answers at once instead of after nginx's 60 s default
  body.push('proxy_connect_timeout 5s;');
  if (ctx.trafficPort !== null) body.push(`access_log syslog:server=127.0.0.1:${assertPort(ctx.trafficPort)},nohostname,tag=relay ${format};`);
  else body.push('access_log off;');
  lines.push('server {', ...body.map((l) => `    ${l}`), '}', '');
  return lines.join('\n');
}

/**
 * The `stream {}` block of the main configuration: the tunnels' servers and nothing else. The
 * module itself is loaded by Debian's `modules-enabled/50-mod-stream.conf` (libnginx-mod-stream).
 */
export function streamBlock(streamsDir: string): string {
  return `stream {\n    include ${streamsDir}/*.conf;\n}\n`;
}
