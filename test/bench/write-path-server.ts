// The panel with the ticket limits lifted, for the write-path growth figures of `npm run bench`:
// under the spec's limits (1,000 stored tickets, 10 requests per agent per minute) neither 10,000
// stored tickets nor a sustained load of round trips can be reached. Everything else is the bundle's.
import { start } from '../../lib/main.ts';

// No top-level await: build/build.mjs bundles as CommonJS.
void start({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  ticketLimits: { maxTickets: Number.POSITIVE_INFINITY, requestsPerWindow: Number.POSITIVE_INFINITY },
}).then((running) => {
  console.log(`relay-panel (bench, ticket limits lifted) listening on ${running.url}`);
  process.on('SIGTERM', () => void running.stop().then(() => process.exit(0)));
});
