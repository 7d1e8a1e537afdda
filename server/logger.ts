// Logs go to stderr as JSON lines (stdout belongs to CLI output). Level: SM_LOG_LEVEL.
import { pino } from 'pino';

const destination = pino.destination({ dest: 2, sync: true });
// A reader that went away (`sm serve 2>&1 | head -2`) must not stop the server, nor its shutdown:
// from then on log lines are dropped.
destination.on('error', () => {});

export const logger = pino(
  {
    level: process.env.SM_LOG_LEVEL ?? 'info',
    // Keys that could carry secrets never reach a log line.
    redact: { paths: ['*.token', '*.apiKey', '*.api_key', '*.authorization', 'req.headers.authorization'], censor: '[redacted]' },
  },
  destination,
);
