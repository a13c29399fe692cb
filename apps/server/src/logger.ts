import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/**
 * JSON logs. `destination` 1 is stdout (the server and the worker); the admin command line passes 2 so that
 * its stdout holds nothing but its one JSON answer. Tests pass a stream to read the lines back.
 */
export function createLogger(level: LogLevel, destination: 1 | 2 | DestinationStream = 1): Logger {
  return pino(
    {
      level,
      base: { service: 'quire' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Tokens and cookies must never reach a log line, whatever a caller decides to log.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.token', 'token'], censor: '[redacted]' },
    },
    typeof destination === 'number' ? pino.destination({ dest: destination, sync: false }) : destination,
  );
}
