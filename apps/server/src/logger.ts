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
      // The pid tells apart the lines of the processes of one deployment (QUIRE_PROCESSES) on one output.
      base: { service: 'quire', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Tokens and cookies must never reach a log line, whatever a caller decides to log.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.token', 'token'], censor: '[redacted]' },
    },
    typeof destination === 'number' ? pino.destination({ dest: destination, sync: false }) : destination,
  );
}

/**
 * Exits once the log lines are written. Everything that matters is closed by then; what may remain is a job
 * handed back past the shutdown bound that still waits on the network, or a cluster worker's channel to its
 * primary, neither of which may keep a stopped process alive.
 */
export function exitAfterLogs(logger: Logger, code: number): void {
  logger.flush(() => process.exit(code));
}
