import type { Database, TransactionClient } from '../../db/orm.js';
import { recordedTransaction, type AuditEntry } from '../../db/writes/audit.js';
import type { Refusal } from '../http/errors.js';

/**
 * Reads the administration records in the audit log (they show travellers' and companies'
 * data): each read is one transaction with its audit row, so what was shown is always recorded.
 */

/** A page read with its audit row: the filter as shown, the page asked for and how many rows it returned. */
export function readPageRecorded<Page extends { items: unknown[] }>(
  db: Database,
  entry: Omit<AuditEntry, 'details'>,
  shownFilter: Record<string, unknown>,
  page: { limit: number; offset: number },
  read: (client: TransactionClient) => Promise<Page>,
): Promise<Page> {
  return recordedTransaction(db, read, (found) => ({
    ...entry,
    details: { filter: shownFilter, limit: page.limit, offset: page.offset, returned: found.items.length },
  }));
}

/** The filter as a list's audit row shows it: each of `fields`, null where the query left it out. */
export function filterShown<F extends object>(filter: F, fields: readonly (keyof F & string)[]) {
  return Object.fromEntries(fields.map((field) => [field, filter[field] ?? null]));
}

/** One record read with its audit row; when there is none, the refusal `missing` gives (and no audit row). */
export function readOneRecorded<Found>(
  db: Database,
  entry: Omit<AuditEntry, 'details'>,
  read: (client: TransactionClient) => Promise<Found | null | undefined>,
  missing: () => Refusal,
): Promise<Found> {
  return recordedTransaction(
    db,
    async (client) => {
      const found = await read(client);
      if (!found) throw missing();
      return found;
    },
    () => entry,
  );
}
