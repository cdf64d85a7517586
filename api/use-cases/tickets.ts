import { bookingTraveller } from '../../db/queries/booking-ownership.js';
import { liveConfirmationShares } from '../../db/queries/document-shares.js';
import { findOwnTicket, type OwnTicket } from '../../db/queries/tickets.js';
import { releaseOverdueScopesOf } from '../../db/writes/journeys/index.js';
import { reissueTicket, type ReissueReason } from '../../db/writes/tickets.js';
import type { SigningOptions } from '../../db/writes/boarding-credentials.js';
import { Refusal } from '../http/errors.js';
import { revokeShare, type DocumentSharing } from './document-sharing.js';

/**
 * POST /tickets: re-issues an own ticket's boarding credential and answers the new ticket as the
 * ticket reads show it, with the id of the one it replaced. A credential reported leaked
 * (CREDENTIAL_LEAKED) first ends the live shares of the confirmation that shows it: the leak may
 * have come through one, whose recipient would otherwise be shown the new credential too. They
 * end even when the re-issue is then refused (the ticket used, the trip gone): the traveller
 * said the credential leaked, and may share again.
 */
export async function reissueOwnTicket(
  sharing: DocumentSharing,
  input: { ticketId: string; userId: string; reason: ReissueReason; signing: SigningOptions },
): Promise<{ ticket: OwnTicket; replacedTicketId: string }> {
  const { db } = sharing.context;
  // A ticket of a request past its decision deadline is CANCELLED first (releaseOverdueScopesOf).
  await releaseOverdueScopesOf(db, { kind: 'TICKET', id: input.ticketId });
  if (input.reason === 'CREDENTIAL_LEAKED') {
    const grantIds = await liveConfirmationShares(db, input.userId, input.ticketId);
    await endConfirmationShares(sharing, input.userId, grantIds);
  }
  const reissued = await reissueTicket(db, input);
  const ticket = await findOwnTicket(db, input.userId, reissued.ticketId);
  return { ticket: ticket!, replacedTicketId: reissued.replacedTicketId };
}

/**
 * Revokes, as the booking's owner, each of these live shares of its confirmation (a credential
 * re-issued as leaked, a modification); one that expired meanwhile is left. A share whose workflow
 * an operator ended is revoked all the same, in the database (revokeShare). Temporal not answering
 * is 503 SHARE_UNAVAILABLE, the shares not yet revoked left live.
 */
export async function endConfirmationShares(
  sharing: DocumentSharing,
  userId: string,
  grantIds: string[],
): Promise<void> {
  if (grantIds.length === 0) return;
  const owner = { kind: 'TRAVELLER' as const, ...(await bookingTraveller(sharing.context.db, userId)) };
  for (const grantId of grantIds) {
    await revokeShare(sharing, owner, grantId).catch((error: unknown) => {
      if (!(error instanceof Refusal) || error.code !== 'SHARE_EXPIRED') throw error;
    });
  }
}
