import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import type { App, NodeServerContext } from './app.ts';

/** node:http request listener for the app: the adapter with no plugins (each one costs per request). */
export function nodeRequestListener(app: App): (req: IncomingMessage, res: ServerResponse) => void {
  // Saying outright that the Request class is the ponyfill's spares the adapter a look at
  // globalThis.Request, whose getter loads node's bundled undici: about 35 ms of cold start.
  return createServerAdapter<NodeServerContext>((request, context) => app.fetch(request, context), { __useCustomAbortCtrl: true })
    .requestListener;
}
