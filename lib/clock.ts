/** Time and timers, injected so tests move time without sleeping. */
export interface Clock {
  now(): number;
  /** Runs `task` every `ms`; returns a function that stops it. */
  every(ms: number, task: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, task) {
    const timer = setInterval(task, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

export const isoNow = (clock: Clock): string => new Date(clock.now()).toISOString();

/** An epoch-ms time as ISO text; null stays null. */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
