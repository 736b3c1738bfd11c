// The longest turn of the event loop, in CPU time: a busy machine that takes the CPU away from this
// process stretches a turn's wall time (which monitorEventLoopDelay reports) but not its CPU time.
// The process's CPU includes libuv's threads; their share of a turn (file writes) is small.
export function longestTurnCpu(): { stop(): number } {
  let last = process.cpuUsage();
  let longestMs = 0;
  let running = true;
  const tick = () => {
    const now = process.cpuUsage();
    longestMs = Math.max(longestMs, (now.user - last.user + now.system - last.system) / 1000);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop() {
      running = false;
      return longestMs;
    },
  };
}
