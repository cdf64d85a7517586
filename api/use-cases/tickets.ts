import type { Database } from '../../db/orm.js';
import { findOwnTicket, type OwnTicket } from '../../db/queries/tickets.js';
import { reissueTicket, type ReissueReason } from '../../db/writes/tickets.js';
import type { SigningOptions } from '../../db/writes/boarding-credentials.js';

/**
 * POST /tickets: re-issues an own ticket's boarding credential and answers the new ticket as the
 * ticket reads show it, with the id of the one it replaced.
 */
export async function reissueOwnTicket(
  db: Database,
  input: { ticketId: string; userId: string; reason: ReissueReason; signing: SigningOptions },
): Promise<{ ticket: OwnTicket; replacedTicketId: string }> {
  const reissued = await reissueTicket(db, input);
  const ticket = await findOwnTicket(db, input.userId, reissued.ticketId);
  return { ticket: ticket!, replacedTicketId: reissued.replacedTicketId };
}
