// Logs go to stderr (stdout belongs to CLI output and the banner): readable lines on a terminal,
// JSON lines otherwise (SM_LOG_FORMAT=pretty|json decides instead). Level: SM_LOG_LEVEL.
import { createRequire } from 'node:module';
import { pino, type DestinationStream } from 'pino';

const pretty = (process.env.SM_LOG_FORMAT || (process.stderr.isTTY ? 'pretty' : 'json')) === 'pretty';

function destination(): DestinationStream {
  // pino-pretty is loaded only for a terminal: a piped CLI command never pays for it.
  const stream = pretty
    ? (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty'))({ destination: 2, sync: true, colorize: process.stderr.isTTY, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' })
    : pino.destination({ dest: 2, sync: true });
  // A reader that went away (`sm serve 2>&1 | head -2`) must not stop the server, nor its shutdown:
  // from then on log lines are dropped.
  stream.on('error', () => {});
  return stream;
}

export const logger = pino(
  {
    level: process.env.SM_LOG_LEVEL ?? 'info',
    // Keys that could carry secrets never reach a log line.
    redact: { paths: ['*.token', '*.apiKey', '*.api_key', '*.authorization', 'req.headers.authorization'], censor: '[redacted]' },
  },
  destination(),
);
