/** PostgreSQL error codes the writes act on (most become business refusals). */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_EXCLUSION_VIOLATION = '23P01';
/** A `for update nowait` found the row locked by another transaction. */
export const PG_LOCK_NOT_AVAILABLE = '55P03';
/** Two transactions waited on each other's locks; PostgreSQL aborted this one. */
export const PG_DEADLOCK = '40P01';

/** The SQLSTATE of a failed statement (pg puts it on the error as `code`), if any. */
export const pgCode = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;

/** The constraint (or unique index) a failed statement violated, if any. */
export const pgConstraint = (error: unknown): string | undefined =>
  (error as { constraint?: string } | null)?.constraint;

const DEADLOCK_ATTEMPTS = 3;

/**
 * Runs a transaction again when PostgreSQL aborted it as a deadlock's victim (up to three times in
 * all): two transactions that lock a trip and a journey in opposite orders (a dispatch CANCEL and a
 * traveller's modify, say) cannot always be ordered alike, and the one aborted has written nothing.
 */
export async function withDeadlockRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (pgCode(error) !== PG_DEADLOCK || attempt >= DEADLOCK_ATTEMPTS) throw error;
    }
  }
}
