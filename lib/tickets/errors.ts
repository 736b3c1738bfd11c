import { AppError } from '../errors.ts';

// Agent-facing authorization failures share one answer so that they reveal nothing about what exists.

export const genericNotFound = () => new AppError(404, 'Not found');
export const invalidTicket = () => new AppError(401, 'Invalid ticket');
export const limitReached = (what: string) => new AppError(503, `${what} limit reached`);
