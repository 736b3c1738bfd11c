import { z } from 'zod';

/**
 * A path id in UUID form (8-4-4-4-12 hex, any version, the nil UUID included), lower-cased like
 * the stored ids (`randomUUID`). Portlama's clients treat a UUID that names nothing as a lookup
 * (404) and only a string that is no UUID at all as malformed (400 `Validation failed`), so the
 * version and variant digits are not checked here.
 */
export const UuidParam = z.guid('must be a UUID').transform((id) => id.toLowerCase());
