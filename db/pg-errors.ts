/** PostgreSQL error codes the writes act on (most become business refusals). */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_EXCLUSION_VIOLATION = '23P01';
/** A `for update nowait` found the row locked by another transaction. */
export const PG_LOCK_NOT_AVAILABLE = '55P03';

/** The SQLSTATE of a failed statement (pg puts it on the error as `code`), if any. */
export const pgCode = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;
