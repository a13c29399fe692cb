import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/**
 * JSON logs. `destination` 1 is stdout (the server and the worker); the admin command line passes 2 so that
 * its stdout holds nothing but its one JSON answer.
 */
export function createLogger(level: LogLevel, destination: 1 | 2 = 1): Logger {
  return pino(
    {
      level,
      base: { service: 'quire' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Tokens and cookies must never reach a log line, whatever a caller decides to log.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.token', 'token'], censor: '[redacted]' },
    },
    pino.destination({ dest: destination, sync: false }),
  );
}
