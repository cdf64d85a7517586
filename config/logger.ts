import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './index.js';

export type { Logger };

/** JSON logs; `name` tells which part of the stack wrote the line (api, worker, seed...). */
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
  return destination ? pino(options, destination) : pino(options);
}
