// Logs go to stderr as JSON lines (stdout belongs to CLI output). Level: SM_LOG_LEVEL.
import { pino } from 'pino';

export const logger = pino(
  {
    level: process.env.SM_LOG_LEVEL ?? 'info',
    // Keys that could carry secrets never reach a log line.
    redact: { paths: ['*.token', '*.apiKey', '*.api_key', '*.authorization', 'req.headers.authorization'], censor: '[redacted]' },
  },
  pino.destination(2),
);
