// Entry bundled as an ES module Worker for workerd: every request answers the scenario's answers,
// run inside the isolate against the kit (its sandbox files on workerd's in-memory node:fs).
import { runScenario } from './run-kit.ts';

export default {
  async fetch(): Promise<Response> {
    try {
      return new Response(await runScenario(), { headers: { 'content-type': 'application/json' } });
    } catch (error) {
      // the stack, so a failure inside workerd is readable from the test
      return new Response(String((error as Error).stack ?? error), { status: 500 });
    }
  },
};
