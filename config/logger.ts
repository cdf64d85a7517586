import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './index.js';

export type { Logger };

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
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie'],
      censor: '[redacted]',
    },
  };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
