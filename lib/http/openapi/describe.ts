import { z, type ZodType } from 'zod';
import { isMultipartSpec } from '../multipart.ts';
import type { Access, AnyRoute } from '../route.ts';
import { declaredAnswers, errorAnswers } from './errors.ts';

type JsonSchema = Record<string, unknown>;
type Operation = Record<string, unknown>;

export interface DocumentInfo {
  title: string;
  version: string;
}

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a zod schema; `io` picks what a caller sends or gets. */
export function jsonSchemaOf(schema: ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

/** `/api/tunnels/:id` -> `/api/tunnels/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const pathNames = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

function parameters(route: AnyRoute): JsonSchema[] {
  const params = route.params ? jsonSchemaOf(route.params, 'input') : {};
  const paramProps = (params.properties ?? {}) as Record<string, JsonSchema>;
  const inPath = pathNames(route.path).map((name) => ({ name, in: 'path', required: true, schema: paramProps[name] ?? { type: 'string' } }));
  if (!route.query) return inPath;
  const query = jsonSchemaOf(route.query, 'input');
  const required = new Set((query.required ?? []) as string[]);
  const inQuery = Object.entries((query.properties ?? {}) as Record<string, JsonSchema>).map(([name, schema]) => ({ name, in: 'query', required: required.has(name), schema }));
  return [...inPath, ...inQuery];
}

function requestBody(route: AnyRoute): JsonSchema | undefined {
  if (route.kind !== 'http' || !route.body) return undefined;
  if (isMultipartSpec(route.body)) {
    const { limits } = route.body;
    const file = { type: 'string', contentMediaType: 'application/octet-stream' };
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, file] } },
        },
      },
      'x-upload-limits': limits,
    };
  }
  return { required: false, content: { 'application/json': { schema: jsonSchemaOf(route.body, 'input') } } };
}

function success(route: AnyRoute): [string, JsonSchema] {
  const spec = route.response;
  if (route.kind === 'ws') {
    const message = spec ? { content: { 'application/json': { schema: jsonSchemaOf(spec.schema, 'output') } } } : {};
    return ['101', { description: 'WebSocket upgrade; the content describes one message', ...message }];
  }
  if (!spec) return ['200', { description: 'Success (undocumented shape)', content: { 'application/json': { schema: { type: 'object' } } } }];
  const type = spec.contentType ?? 'application/json';
  const json = spec.json && { 'application/json': { schema: jsonSchemaOf(spec.json, 'output') } };
  return [String(spec.status ?? 200), { description: 'Success', content: { [type]: { schema: jsonSchemaOf(spec.schema, 'output') }, ...json } }];
}

function accessExtension(access: Access): JsonSchema {
  return Object.fromEntries(Object.entries(access).filter(([, value]) => value !== undefined));
}

function operation(route: AnyRoute): Operation {
  const [status, answer] = success(route);
  const body = requestBody(route);
  const params = parameters(route);
  const chain = errorAnswers(route);
  return {
    operationId: `${route.kind === 'ws' ? 'ws' : route.method.toLowerCase()}${openApiPath(route.path).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(params.length > 0 && { parameters: params }),
    ...(body && { requestBody: body }),
    responses: { [status]: answer, ...chain, ...declaredAnswers(route, chain, answer) },
    ...(route.access.public ? { security: [] } : {}),
    'x-access': accessExtension(route.access),
    ...(route.kind === 'ws' && { 'x-websocket': true }),
  };
}

// A route object is immutable and its schemas are converted once: tables built for tests, mounts and
// unmounts reuse the operations of the routes they share (the documents are only serialized).
const operations = new WeakMap<AnyRoute, Operation>();

function operationOf(route: AnyRoute): Operation {
  let described = operations.get(route);
  if (!described) operations.set(route, (described = operation(route)));
  return described;
}

/** The OpenAPI 3.1 document of these routes (built-in first, then each mount's). */
export function describeRoutes(routes: readonly AnyRoute[], info: DocumentInfo): JsonSchema {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = operationOf(route);
  }
  return {
    openapi: '3.1.0',
    info: { ...info, description: 'Generated from the route table and its zod schemas.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        clientCertificate: { type: 'mutualTLS', description: 'A certificate of the panel CA, checked by nginx (X-SSL-Client-* headers).' },
      },
    },
    security: [{ clientCertificate: [] }],
  };
}

const ERROR_SCHEMA = {
  type: 'object',
  properties: { error: { type: 'string' }, details: {} },
  required: ['error'],
};
