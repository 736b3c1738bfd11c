import { randomBytes } from 'node:crypto';

/** Unguessable ids: a ticket id is a bearer credential until consumed. */
const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

export const newInstanceId = () => randomHex(16);
/** 64 hex characters, as the spec fixes for ticket ids. */
export const newTicketId = () => randomHex(32);
export const newSessionId = () => randomHex(16);
