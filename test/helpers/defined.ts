/** The value a test expects to exist (a list element, a regex group), or a failure naming what was missing. */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`expected ${what}, found nothing`);
  return value;
}
