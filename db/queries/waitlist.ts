import type { PoolClient } from 'pg';
import { isoUtc } from './admins.js';
import { containingPattern, countedPage, tableListing } from './filtered-lists.js';

/** The pre-launch waitlist as the administration reads it (each read recorded in the audit log). */
type Sql = Pick<PoolClient, 'query'>;

export interface WaitlistRow {
  id: string;
  email: string;
  created_at: string;
}

export interface WaitlistFilter {
  /** Part of the e-mail address, any case. */
  search?: string | undefined;
  /** Sign-ups at or after this instant. */
  from?: string | undefined;
  /** Sign-ups before this instant. */
  to?: string | undefined;
  limit: number;
  offset: number;
}

/** Sign-ups, newest first, with the total matching the filter. */
export async function listWaitlist(
  sql: Sql,
  filter: WaitlistFilter,
): Promise<{ items: WaitlistRow[]; total: number }> {
  const where = `($1::text is null or email like $1) and ($2::timestamptz is null or created_at >= $2)
    and ($3::timestamptz is null or created_at < $3)`;
  const pattern = filter.search ? containingPattern(filter.search.toLowerCase()) : null;
  const params = [pattern, filter.from ?? null, filter.to ?? null];
  const columns = `id, email, ${isoUtc('created_at')} as created_at`;
  const listing = tableListing(columns, 'waitlist_entries', {
    where,
    orderBy: 'waitlist_entries.created_at desc, waitlist_entries.id',
  });
  return countedPage<WaitlistRow>(sql, listing, params, filter);
}
