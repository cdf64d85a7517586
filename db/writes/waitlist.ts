import type { Database } from '../orm.js';

/**
 * A pre-launch sign-up: the e-mail address (lower case) and the time, nothing else. Signing up
 * twice keeps the first row; the caller answers both alike, so the list's members are not told.
 */
export async function joinWaitlist(db: Database, email: string): Promise<{ added: boolean }> {
  const rows = await db.query(
    `insert into waitlist_entries (email) values (lower($1)) on conflict (email) do nothing returning id`,
    [email],
  );
  return { added: rows.length > 0 };
}
