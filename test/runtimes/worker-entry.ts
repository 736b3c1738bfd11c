// Entry bundled as an ES module Worker for workerd, the kit's sandbox files on workerd's in-memory
// node:fs. GET /__scenario answers the whole scenario's prints, run inside the isolate like the
// other runtimes' scripts; GET /__sweep the status of every GET route (route-sweep.ts); GET /__callers the callers' certificate headers; every other request is
// answered by the kit's app, so the ticket flow can also come from outside, request by request.
import type { TestApp } from '../../lib/testing.ts';
import { openKit, runScenario, runSweep } from './run-kit.ts';
import { AGENTS } from './scenario.ts';

// made by the first request: workerd allows no I/O (the kit's files) while the module loads
let served: Promise<TestApp> | undefined;
const kit = () => (served ??= openKit());

async function answer(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (pathname === '/__scenario') return new Response(await runScenario(), { headers: { 'content-type': 'application/json' } });
  if (pathname === '/__sweep') return new Response(await runSweep());
  const app = await kit();
  if (pathname === '/__callers') return Response.json({ admin: app.as.admin(), agents: Object.fromEntries(AGENTS.map((a) => [a.label, app.as.agent(a.label)])) });
  return app.fetch(request);
}

export default {
  async fetch(request: Request): Promise<Response> {
    try {
      return await answer(request);
    } catch (error) {
      // the stack, so a failure inside workerd is readable from the test
      return new Response(String((error as Error).stack ?? error), { status: 500 });
    }
  },
};
