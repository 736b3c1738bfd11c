export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogEntry {
  timestamp: string;
  level: LogLevel;
  message: string;
}

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** The most recent entries, oldest first (the sandbox's `panel` service log). */
  recent(limit: number): LogEntry[];
  /** Live entries; returns the unsubscribe function. */
  subscribe(listener: (entry: LogEntry) => void): () => void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
/** Names operators write for our levels (syslog's and other loggers' spellings). */
const ALIASES: Record<string, LogLevel> = { warning: 'warn', err: 'error' };

/**
 * The level named by `LOG_LEVEL`, any case, aliases included; unset is `info`. An unknown name
 * throws one line: a threshold that matched nothing would have silenced every line, errors too.
 */
export function parseLogLevel(text: string | undefined): LogLevel {
  if (text === undefined || text.trim() === '') return 'info';
  const name = text.trim().toLowerCase();
  if (Object.hasOwn(ORDER, name)) return name as LogLevel;
  if (Object.hasOwn(ALIASES, name)) return ALIASES[name]!;
  throw new Error(`LOG_LEVEL must be one of debug, info, warn (or warning), error (err); not '${text}'`);
}
const KEEP = 500;

export function createLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const ring: LogEntry[] = [];
  const listeners = new Set<(entry: LogEntry) => void>();
  const emit = (level: LogLevel) => (message: string) => {
    const entry = { timestamp: new Date().toISOString(), level, message };
    ring.push(entry);
    if (ring.length > KEEP) ring.shift();
    for (const listener of listeners) listener(entry);
    if (ORDER[level] >= threshold) write(`${entry.timestamp} ${level.toUpperCase()} ${message}`);
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    recent: (limit) => ring.slice(-limit),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** For tests: keeps entries, writes nothing. */
export const silentLogger = (): Logger => createLogger({ level: 'error', write: () => {} });

/** Names in a log line: the first `shown`, then how many more (a list of 1,000 vhosts made one 30 KB line). */
export function namesForLog(names: readonly string[], shown = 10): string {
  if (names.length <= shown) return names.join(', ');
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}
