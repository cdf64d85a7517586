import type { Logger } from '../../config/logger.js';
import { unavailableFor, type Refusal } from './errors.js';

/** At most one log line per failure kind in this many milliseconds (with how many were folded in). */
const REPORT_INTERVAL_MS = 10_000;

/** Socket-level codes of a PostgreSQL (or any TCP) dependency that is down, restarting or unreachable. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * SQLSTATEs that say the server cannot serve now, not that the request is wrong: 08xxx connection
 * exceptions, 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up or
 * shutting down), 53300 too many connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** pg and pg-pool report a lost or never-made connection by message only. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
];

/** gRPC UNAVAILABLE: the Temporal server does not answer (restarting, unreachable). */
const GRPC_UNAVAILABLE = 14;

/**
 * The failure kind when `error` (or an error it wraps: MikroORM's DriverException copies the
 * driver's fields, pg-pool and the Temporal client chain a `cause`) means a dependency is
 * unavailable rather than a bug; null otherwise.
 */
export function unavailableKind(error: unknown): string | null {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== 'object') return null;
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && SOCKET_CODES.has(code)) return `connection ${code}`;
    if (typeof code === 'string' && UNAVAILABLE_SQLSTATE.test(code)) return `SQLSTATE ${code}`;
    if (code === GRPC_UNAVAILABLE) return 'temporal UNAVAILABLE';
    if (typeof message === 'string') {
      const known = CONNECTION_MESSAGES.find((text) => message.startsWith(text));
      if (known) return known;
    }
    current = cause;
  }
  return null;
}

/**
 * Turns dependency failures into 503 SERVICE_UNAVAILABLE with Retry-After, logging each failure
 * kind concisely (no stack) at most once per interval with the count of the folded ones: an outage
 * under load is a few lines, not a flood. Other errors pass through as null.
 */
export function unavailableReporter(logger: Logger, clock: () => number = Date.now) {
  const reported = new Map<string, { at: number; folded: number }>();
  return (error: unknown): Refusal | null => {
    const kind = unavailableKind(error);
    if (!kind) return null;
    const now = clock();
    const last = reported.get(kind);
    if (!last || now - last.at >= REPORT_INTERVAL_MS) {
      logger.warn(
        { kind, reason: (error as Error).message, alsoSince: last?.folded ?? 0 },
        'dependency unavailable; answering 503',
      );
      reported.set(kind, { at: now, folded: 0 });
    } else {
      last.folded += 1;
    }
    return unavailableFor('SERVICE_UNAVAILABLE', 'The service is briefly unavailable; try again shortly');
  };
}
