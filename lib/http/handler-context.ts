import { ANONYMOUS } from '../auth/identity.ts';
import type { Runtime } from '../runtime.ts';
import { clientAddress } from './client-address.ts';
import type { HandlerContext } from './route.ts';
import type { RequestState } from './state.ts';

/** What a handler (or a WebSocket route's `connect`) gets from the chain. */
export function handlerContext(request: Request, state: RequestState, services: Runtime): HandlerContext {
  return {
    request,
    params: state.params,
    query: state.query,
    body: state.body,
    identity: state.identity ?? ANONYMOUS,
    services,
    clientAddress: () => clientAddress(state.peer, request.headers.get('x-forwarded-for')),
  };
}
