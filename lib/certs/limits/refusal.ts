import { SystemError } from '../../system/errors.ts';
import type { LimitCount } from './schema.ts';

/**
 * An order the panel did not place because the CA would refuse it: a SystemError so that a create
 * renders it as its certificate step's failure (the spec's 500 with details) and a forced renewal
 * as `Certificate renewal failed`.
 */
export class CertLimitRefusal extends SystemError {
  constructor(
    message: string,
    readonly count: LimitCount,
  ) {
    super(message, 'certbot', undefined, 'rate-limit');
    this.name = 'CertLimitRefusal';
  }
}
