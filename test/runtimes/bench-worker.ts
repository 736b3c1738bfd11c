// Entry bundled as a Worker for workerd: the cost figures (bench-kit.ts) as the answer's body;
// `?N` is the number of measured requests of each kind.
import { measure } from './bench-kit.ts';

export default {
  async fetch(request: Request): Promise<Response> {
    const count = Number(new URL(request.url).search.slice(1) || 2000);
    try {
      return new Response(JSON.stringify(await measure(count)));
    } catch (error) {
      return new Response(String((error as Error).stack ?? error), { status: 500 });
    }
  },
};
