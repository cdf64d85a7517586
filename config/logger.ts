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
 * output, at most LOG_BACKLOG_MAX_MB of lines wait in memory; later ones are dropped and counted, and
 * a warn line gives the count (reportDroppedLines).
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

/** How often, at most, a backlog still draining is asked to take the count of dropped lines. */
const DROP_REPORT_EVERY_MS = 1000;

/**
 * Counts the lines `stdout` drops at its cap and logs the count as one warn line: once its backlog is
 * written out ('drain'), or, while a reader slower than the process keeps it from emptying, after a
 * write at most every second. A count whose own line was dropped is kept for the next try, so the
 * number of lines lost is never lost itself.
 */
function reportDroppedLines(stdout: ReturnType<typeof pino.destination>, logger: Logger): void {
  let lines = 0;
  let bytes = 0;
  let reporting = false;
  let reportDropped = false;
  let lastTry = 0;
  stdout.on('drop', (data: string | Buffer) => {
    if (reporting) {
      reportDropped = true;
      return;
    }
    const text = typeof data === 'string' ? data : data.toString('utf8');
    lines += text.split('\n').length - 1 || 1;
    bytes += Buffer.byteLength(text);
  });
  const report = () => {
    if (lines === 0) return;
    lastTry = Date.now();
    // The destination takes or drops a line synchronously: a dropped count is tried again later.
    reporting = true;
    reportDropped = false;
    logger.warn(
      { droppedLines: lines, droppedBytes: bytes },
      'log lines dropped while standard output was not read',
    );
    reporting = false;
    if (reportDropped) return;
    lines = 0;
    bytes = 0;
  };
  stdout.on('drain', report);
  // 'write' comes before the written bytes leave the backlog: try once they have (next tick).
  stdout.on('write', () => {
    if (lines > 0 && Date.now() - lastTry >= DROP_REPORT_EVERY_MS) process.nextTick(report);
  });
}
