import * as assert from 'uvu/assert';

/** The error `promise` rejects with, checked to be a `type`; a promise that resolves fails the test. */
export async function rejection<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, type);
    return error as E;
  }
  throw new Error('expected a rejection');
}
