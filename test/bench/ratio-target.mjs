/**
 * A target row comparing two endpoints of the same run: `key`'s CPU per request within `limit`×
 * `baseKey`'s. Unmeasured endpoints give an n/a row rather than a verdict.
 */
export function ratioTarget(byKey, { key, baseKey, figure, target, limit }) {
  const subject = byKey[key];
  const base = byKey[baseKey];
  const measured = subject?.measured && base?.measured;
  const ratio = measured ? subject.aggregate.cpuUsPerReq / base.aggregate.cpuUsPerReq : NaN;
  return {
    figure,
    target,
    measured: measured
      ? `${ratio.toFixed(2)}× (${subject.aggregate.cpuUsPerReq.toFixed(1)} vs ${base.aggregate.cpuUsPerReq.toFixed(1)} µs)`
      : `n/a (${subject?.skipped ?? base?.skipped ?? 'not measured'})`,
    met: measured ? ratio <= limit : null,
  };
}
