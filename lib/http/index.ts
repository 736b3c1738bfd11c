// `relay-panel/http`: the fetch core an integrator builds on (the package's exports map in
// package.json): the app factory, the route constructors and the response helpers handlers use.
// Everything here runs in any fetch runtime; nothing imports node:*.
export { createApp, type App, type AppOptions, type ResponseObserver } from './app.ts';
export {
  route,
  wsRoute,
  ADMIN_ONLY,
  ADMIN_OR_AGENT,
  type Access,
  type AnyRoute,
  type CallerOf,
  type Gate,
  type HandlerContext,
  type HttpMethod,
  type HttpRoute,
  type AnswerKind,
  type AnswerOf,
  type JsonBytes,
  type ResponseSpec,
  type Returned,
  type WsRoute,
} from './route.ts';
export { Response, attachment, errorBody, errorResponse, html, json, jsonBytes, jsonText, useResponseClass } from './responses.ts';
export { Reply, reply } from './reply.ts';
export { Ok, okWith } from './response-shapes.ts';
export { multipart, type MultipartBody, type MultipartLimits, type UploadedFile } from './multipart.ts';
export type { RouteSocket } from './socket.ts';
