import { AppError } from '../errors.ts';
import type { AgentRecord } from '../state/schemas.ts';

const labelTaken = (label: string) => new AppError(409, `Agent certificate '${label}' already exists`);

/**
 * Labels being issued right now (POST /api/certs/agent, enrollment): the check against the registry
 * and the claim happen in one synchronous call, so concurrent requests for one label get one winner.
 */
export class LabelClaims {
  readonly #inFlight = new Set<string>();

  constructor(private readonly agents: () => readonly AgentRecord[]) {}

  /** Claims the label or throws 409 when it is in flight or held by an unrevoked agent. */
  claim(label: string): () => void {
    if (this.#inFlight.has(label) || this.agents().some((a) => a.label === label && a.revokedAt === null)) throw labelTaken(label);
    this.#inFlight.add(label);
    return () => void this.#inFlight.delete(label);
  }
}
