import { inspect, types } from 'node:util';
import type { Logger } from './logger.js';

/**
 * README "Logs": a failure is one concise JSON line, never a stack. An error nothing caught (thrown
 * in a timer or an event handler, a promise rejected with no one waiting on it, a start-up step
 * failing, such as PostgreSQL refusing the settings) made Node print its stack on standard error,
 * outside the log, and exit. Installed by each process's entry (api/server.ts, api/cluster.ts,
 * worker/main.ts) once its logger exists, this logs one fatal line instead (the error's message, its
 * code, the line that threw) and exits 1 at once: after an uncaught error the process's state is
 * unknown, so it never keeps serving; its supervisor (api/cluster.ts, the orchestrator) starts another.
 */
export function exitOnUncaughtError(logger: Logger): void {
  const fail = (origin: string, thrown: unknown) => {
    try {
      logger.fatal({ origin, ...described(thrown) }, 'uncaught error; exiting');
    } finally {
      // pino writes out what is still queued as the process exits (config/logger.ts).
      process.exit(1);
    }
  };
  process.on('uncaughtException', (error, origin) => fail(origin, error));
  process.on('unhandledRejection', (reason) => fail('unhandledRejection', reason));
}

/** The error's name, message, code and the line that threw: one line's fields, no stack. */
function described(thrown: unknown): Record<string, unknown> {
  if (!types.isNativeError(thrown) && !(thrown instanceof Error)) {
    return { reason: inspect(thrown, { depth: 2, breakLength: Infinity }) };
  }
  const { code } = thrown as NodeJS.ErrnoException;
  // An AggregateError (a connection refused on every address of a host) has an empty message.
  const inner = thrown instanceof AggregateError ? thrown.errors.map((error) => String(error)) : [];
  return {
    errorName: thrown.name,
    reason: thrown.message || inner.join('; '),
    ...(code === undefined ? {} : { code }),
    thrownAt: /^\s+at (.+)$/m.exec(thrown.stack ?? '')?.[1],
  };
}
