// Bundled and run by test/bench/traffic-nginx.mjs: the traffic log lines of a tunnel's vhost exactly
// as the panel renders them (lib/system/proxy/templates.ts), so the bench's nginx sends what a box's
// nginx would. Usage: node <bundle> <fqdn> <tunnel port> <traffic port>; prints
// {"format": "log_format …", "access": "access_log …"}.
import { renderVhost } from '../../lib/system/proxy/templates.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../helpers/template-context.ts';

function main(): void {
  const [fqdn = '', port = '', trafficPort = ''] = process.argv.slice(2);
  // only the traffic lines are taken: the rest's TLS, ports and paths are placeholders
  const ctx = { ...SAMPLE_TEMPLATE_CONTEXT, trafficPort: Number(trafficPort) };
  const vhost = renderVhost({ kind: 'app', fqdn, port: Number(port) }, ctx);
  const line = (pattern: RegExp) => {
    const found = vhost.split('\n').map((l) => l.trim()).find((l) => pattern.test(l));
    if (!found) throw new Error(`the rendered vhost of ${fqdn} has no line matching ${pattern}`);
    return found;
  };
  process.stdout.write(JSON.stringify({ format: line(/^log_format relay_traffic_/), access: line(/^access_log syslog:/) }) + '\n');
}

// No top-level await: build/build.mjs bundles as CommonJS.
main();
