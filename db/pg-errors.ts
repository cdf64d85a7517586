/** PostgreSQL error codes the writes turn into business refusals. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_EXCLUSION_VIOLATION = '23P01';

/** The SQLSTATE of a failed statement (pg puts it on the error as `code`), if any. */
export const pgCode = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;
