import { z } from 'zod';

// Shapes many routes answer with, for their `response` schemas (lib/http/route.ts).

/** `{ok: true}`: a change done, nothing more to say. */
export const Ok = z.object({ ok: z.literal(true) });

/** `{ok: true, ...fields}`. */
export const okWith = <S extends z.ZodRawShape>(shape: S) => Ok.extend(shape);
