/** Log levels in order; a logger drops entries below its level. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Structured fields of one log line. Callers pass names, uids and codes only: never tokens, bodies or contents. */
export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  log(level: LogLevel, msg: string, fields?: LogFields): void;
}

/** A logger that writes one JSON object per line through `write`, stamped by `now`. */
export function createJsonLogger(options: {
  level: LogLevel;
  write: (line: string) => void;
  now?: () => number;
}): Logger {
  const min = LOG_LEVELS.indexOf(options.level);
  const now = options.now ?? Date.now;
  return {
    log(level, msg, fields = {}) {
      if (LOG_LEVELS.indexOf(level) < min) return;
      options.write(JSON.stringify({ time: new Date(now()).toISOString(), level, msg, ...fields }));
    },
  };
}
