import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './index.js';

export type { Logger };

/** The request being handled where a line is logged (api/http/middleware.ts requestLifecycle). */
const handling = new AsyncLocalStorage<{ requestId: string }>();

/**
 * Runs `work` as the handling of request `requestId`: every line a logger of createLogger writes
 * meanwhile, from `work` or anything it starts, carries that `requestId`, whichever code logs it
 * (a use case, a provider client, the Temporal clients), so the request id of an error answer
 * finds the line with its cause. A line that names a requestId itself keeps it.
 */
export function handlingRequest<T>(requestId: string, work: () => T): T {
  return handling.run({ requestId }, work);
}

/** LOG_BACKLOG_MAX_MB's default, for loggers made before the configuration is read. */
export const DEFAULT_LOG_BACKLOG_MAX_MB = 8;

/**
 * JSON logs; `name` tells which part of the stack wrote the line (api, worker, seed...). Standard
 * output is written asynchronously: lines logged while a write is under way go out together in the
 * next one, instead of one write(2) per line on the request path (the API logs a line per request);
 * pino writes out what is left, synchronously, when the process exits. While nothing reads standard
 * output, at most LOG_BACKLOG_MAX_MB of lines wait in memory; later ones are dropped, and once the
 * backlog is written out one line says how many were.
 */
export function createLogger(
  config: Pick<Config, 'LOG_LEVEL'> & Partial<Pick<Config, 'LOG_BACKLOG_MAX_MB'>>,
  name: string,
  destination?: DestinationStream,
): Logger {
  const options = {
    name,
    level: config.LOG_LEVEL,
    mixin: () => {
      const request = handling.getStore();
      return request ? { requestId: request.requestId } : {};
    },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie'],
      censor: '[redacted]',
    },
  };
  if (destination) return pino(options, destination);
  const stdout = pino.destination({
    dest: 1,
    sync: false,
    maxLength: (config.LOG_BACKLOG_MAX_MB ?? DEFAULT_LOG_BACKLOG_MAX_MB) * 1024 * 1024,
  });
  const logger = pino(options, stdout);
  reportDroppedLines(stdout, logger);
  return logger;
}

/** Counts the lines `stdout` drops at its cap; once its backlog is written out, logs the count once. */
function reportDroppedLines(stdout: ReturnType<typeof pino.destination>, logger: Logger): void {
  let lines = 0;
  let bytes = 0;
  stdout.on('drop', (data: string | Buffer) => {
    const text = typeof data === 'string' ? data : data.toString('utf8');
    lines += text.split('\n').length - 1 || 1;
    bytes += Buffer.byteLength(text);
  });
  // 'drain': everything waiting was written, so the count itself finds room.
  stdout.on('drain', () => {
    if (lines === 0) return;
    const dropped = { droppedLines: lines, droppedBytes: bytes };
    lines = 0;
    bytes = 0;
    logger.warn(dropped, 'log lines dropped while standard output was not read');
  });
}
