import { z } from 'zod';
import { SERVICE_ACTIONS, SERVICE_NAMES } from '../system/types.ts';

const name = z.enum(SERVICE_NAMES, { error: `Unknown service; expected one of ${SERVICE_NAMES.join(', ')}` });
const action = z.enum(SERVICE_ACTIONS, { error: `Unknown action; expected one of ${SERVICE_ACTIONS.join(', ')}` });

export const ServiceParams = z.object({ name });
export type ServiceParams = z.infer<typeof ServiceParams>;

export const ServiceActionParams = z.object({ name, action });
export type ServiceActionParams = z.infer<typeof ServiceActionParams>;
