import { availableParallelism } from 'node:os';
import { z } from 'zod';

/**
 * Settings that change between one development machine and a deployment over several hosts: how
 * many API processes one `npm start` (or `node api/cluster.ts`) runs, and where Temporal is and how
 * to reach it (address, namespace, TLS with an optional client certificate, or an API key).
 */
const pem = (label: string) =>
  z
    .string()
    .transform((value) => value.replaceAll('\\n', '\n'))
    .refine((value) => value.includes('-----BEGIN '), `must be a PEM ${label}`);

export const deploymentSettings = {
  /** API processes sharing the port (node:cluster); unset: one per core; 1: a single process. */
  API_PROCESSES: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => availableParallelism()),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('bus-booking'),
  /** TLS to Temporal with the system CAs; implied by any TEMPORAL_TLS_* setting below. */
  TEMPORAL_TLS: z
    .enum(['true', 'false', '1', '0'])
    .transform((value) => value === 'true' || value === '1')
    .default(false),
  /** CA that signed the Temporal server's certificate (PEM, literal \n accepted); unset: system CAs. */
  TEMPORAL_TLS_CA_PEM: pem('certificate').optional(),
  /** Client certificate and its private key for mutual TLS (both or neither). */
  TEMPORAL_TLS_CERT_PEM: pem('certificate').optional(),
  TEMPORAL_TLS_KEY_PEM: pem('private key').optional(),
  /** Name expected in the server's certificate when it differs from the address's host. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().optional(),
};

/**
 * The pool of each API process on a host: the processes share DATABASE_POOL_MAX connections
 * equally, each keeping at least two (one for a transaction, one for the reads beside it) unless
 * DATABASE_POOL_MAX itself is smaller. How many connections PostgreSQL serves well depends on its
 * cores, not on how many processes ask: on two cores, two processes with three connections each
 * booked about 7 % more a second than with six each, with a shorter tail (bench/README.md
 * "bench:bookings", 2026-12-03).
 */
export function poolPerApiProcess(poolMax: number, processes: number): number {
  return Math.max(Math.min(2, poolMax), Math.floor(poolMax / processes));
}

/**
 * The CSV and JSON report streams one API process serves at once (REPORT_STREAMS_MAX, given its
 * share of the pool): each holds a pooled connection until its last byte is written, so they never
 * take every connection of the process. Unset: half its pool; never more than the pool less one;
 * at least 1 (a pool of one connection is shared with that one stream).
 */
export function reportStreamsPerProcess(config: {
  DATABASE_POOL_MAX: number;
  REPORT_STREAMS_MAX?: number | undefined;
}): number {
  const wanted = config.REPORT_STREAMS_MAX ?? Math.floor(config.DATABASE_POOL_MAX / 2);
  return Math.max(1, Math.min(wanted, config.DATABASE_POOL_MAX - 1));
}

type DeploymentSettings = {
  TEMPORAL_TLS_CERT_PEM?: string | undefined;
  TEMPORAL_TLS_KEY_PEM?: string | undefined;
};

/** A client certificate without its key (or the reverse) is a half-done setting: refused at start-up. */
export function refuseHalfMutualTls(config: DeploymentSettings): void {
  if (Boolean(config.TEMPORAL_TLS_CERT_PEM) !== Boolean(config.TEMPORAL_TLS_KEY_PEM)) {
    throw new Error(
      'Invalid configuration:\n  TEMPORAL_TLS_CERT_PEM / TEMPORAL_TLS_KEY_PEM: set both (mutual TLS) or neither',
    );
  }
}
