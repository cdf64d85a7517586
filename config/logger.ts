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

/**
 * JSON logs; `name` tells which part of the stack wrote the line (api, worker, seed...). Standard
 * output is written asynchronously: lines logged while a write is under way go out together in the
 * next one, instead of one write(2) per line on the request path (the API logs a line per request);
 * pino writes out what is left, synchronously, when the process exits.
 */
export function createLogger(
  config: Pick<Config, 'LOG_LEVEL'>,
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
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
