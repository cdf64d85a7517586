import type { Database } from '../../db/orm.js';
import { listWaitlist, type WaitlistFilter } from '../../db/queries/waitlist.js';
import type { AuditActor } from '../../db/writes/audit.js';
import { joinWaitlist } from '../../db/writes/waitlist.js';
import type { PlatformState } from '../platform/state.js';
import { requireFeature } from '../platform/state.js';
import { filterShown, readPageRecorded } from './recorded-reads.js';

/** The pre-launch waitlist: the public sign-up and the administration's recorded read. */

/**
 * Adds the address unless it is there (the answer is the same either way); needs the flag
 * waitlist.signup. `limit` counts the sign-up against the client's limit once the flag lets it
 * through: a sign-up refused by the flag uses up nothing.
 */
export async function signUpForWaitlist(
  db: Database,
  platform: PlatformState,
  email: string,
  limit: () => Promise<void>,
): Promise<void> {
  await requireFeature(platform, 'waitlist.signup');
  await limit();
  await joinWaitlist(db, email);
}

/** A page of sign-ups; the read is recorded (waitlist.list) with the filter used. */
export function readWaitlist(db: Database, audit: AuditActor, filter: WaitlistFilter) {
  const entry = { ...audit, action: 'waitlist.list', targetKind: 'waitlist' };
  const shown = filterShown(filter, ['search', 'from', 'to']);
  return readPageRecorded(db, entry, shown, filter, (sql) => listWaitlist(sql, filter));
}
