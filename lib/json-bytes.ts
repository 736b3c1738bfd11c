const encoder = new TextEncoder();

/** JSON serialized once as bytes, for bodies cached between requests (a string is encoded again on every send). */
export const jsonBytes = (data: unknown): Uint8Array<ArrayBuffer> => encoder.encode(JSON.stringify(data));
