// Logs go to stderr (stdout belongs to CLI output and the banner): readable lines on a terminal,
// JSON lines otherwise (SM_LOG_FORMAT=pretty|json decides instead). Level: SM_LOG_LEVEL.
import { createRequire } from 'node:module';
import { pino, type DestinationStream } from 'pino';

const pretty = (process.env.SM_LOG_FORMAT || (process.stderr.isTTY ? 'pretty' : 'json')) === 'pretty';

function destination(): DestinationStream {
  if (!pretty) return quiet(pino.destination({ dest: 2, sync: true }));
  // pino-pretty (~50 ms to load) is loaded for a terminal only, and by the first line written:
  // a command run at a terminal that logs nothing (most do) never pays for it.
  let stream: DestinationStream | undefined;
  return {
    write(line: string) {
      stream ??= quiet(
        (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty'))({
          destination: 2,
          sync: true,
          colorize: process.stderr.isTTY,
          translateTime: 'SYS:HH:MM:ss',
          ignore: 'pid,hostname',
        }),
      );
      stream.write(line);
    },
  };
}

// A reader that went away (`sm serve 2>&1 | head -2`) must not stop the server, nor its shutdown:
// from then on log lines are dropped.
function quiet<S extends DestinationStream & { on(event: 'error', listener: () => void): unknown }>(stream: S): S {
  stream.on('error', () => {});
  return stream;
}

export const logger = pino(
  {
    level: process.env.SM_LOG_LEVEL ?? 'info',
    // Keys that could carry secrets never reach a log line.
    redact: {
      paths: ['*.token', '*.apiKey', '*.api_key', '*.authorization', 'req.headers.authorization'],
      censor: '[redacted]',
    },
  },
  destination(),
);
