import { z } from 'zod';
import { SECTION_NAMES } from './sections.ts';

export const BACKUP_FORMAT = 'relay-panel-backup';
export const BACKUP_VERSION = 1;

export const Manifest = z
  .object({
    format: z.literal(BACKUP_FORMAT),
    version: z.literal(BACKUP_VERSION),
    created: z.iso.datetime(),
    sections: z.array(z.enum(SECTION_NAMES)).max(SECTION_NAMES.length),
  })
  .strict();
export type Manifest = z.infer<typeof Manifest>;
