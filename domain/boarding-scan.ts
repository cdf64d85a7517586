import {
  authenticityRefusal,
  type PresentedCredential,
  type TicketBoardingState,
} from './boarding-credential.js';
import type { TicketStatus } from './documents.js';

/**
 * The driver app's scan at the door (POST /driver/api/trips/{id}/scan): the signed credential is
 * verified and, when it lets its holder board, the traveller is checked in through the dispatch
 * CHECK_IN action. Every scan ends in one outcome, stored under the app's client scan id so a
 * replay gets the same answer.
 */
export const SCAN_OUTCOMES = ['CHECKED_IN', 'ALREADY_CHECKED_IN', 'REFUSED'] as const;
export type ScanOutcome = (typeof SCAN_OUTCOMES)[number];

export const SCAN_REFUSALS = [
  'UNKNOWN_KEY',
  'SIGNATURE_INVALID',
  'WRONG_TRIP',
  'TICKET_NOT_FOUND',
  'TICKET_REISSUED',
  'TICKET_CANCELLED',
  'REVOKED',
  'TICKET_NOT_CONFIRMED',
  'EXPIRED',
  'TICKET_NOT_VALID',
  'MARKED_NO_SHOW',
  'TRIP_NOT_BOARDING',
] as const;
export type ScanRefusal = (typeof SCAN_REFUSALS)[number];

export interface ScanFacts extends PresentedCredential<TicketStatus> {
  scanningTripId: string;
  /**
   * The ticket as it is now; `expired`: its QR had expired at the scan's moment (now for a live scan,
   * the time it was scanned for one queued offline), read by the same SQL as POST /driver/api/verify
   * reads it (db/queries/boarding-credentials.ts ticketQrExpiredSql).
   */
  ticket?: (TicketBoardingState & { status: TicketStatus; expired: boolean }) | undefined;
}

/**
 * Why the credential does not let its holder board, checks in this order: its authenticity for
 * this trip (authenticityRefusal), the ticket existing, not re-issued (the ticket or the
 * credential: a re-signed ticket makes older copies worthless), not cancelled, not on the
 * revocation list, confirmed for boarding, and, while VALID, its QR not expired at the scan's moment
 * (EXPIRED: the bus had left the leg's boarding stop or the trip was over, exactly when POST
 * /driver/api/verify answered, or would have answered, EXPIRED then; every channel follows one rule
 * and none boards a traveller on its own, while a scan queued offline during boarding still counts).
 * A USED ticket passes: the check-in answers ALREADY_CHECKED_IN with who and when.
 */
export function scanRefusal(facts: ScanFacts): ScanRefusal | null {
  const unauthentic = authenticityRefusal(facts, facts.scanningTripId);
  if (unauthentic) return unauthentic;
  const ticket = facts.ticket;
  if (!ticket) return 'TICKET_NOT_FOUND';
  if (ticket.status === 'REISSUED' || ticket.signature !== facts.presentedSignature) return 'TICKET_REISSUED';
  if (ticket.status === 'CANCELLED') return 'TICKET_CANCELLED';
  if (ticket.revoked) return 'REVOKED';
  if (ticket.status === 'PENDING_CONFIRMATION' || !ticket.boardingAuthorized) return 'TICKET_NOT_CONFIRMED';
  if (ticket.status === 'VALID' && ticket.expired) return 'EXPIRED';
  return null;
}

/** The scan's refusal for a check-in the dispatch rules refused (their errorCode). */
export function scanRefusalOfDispatch(errorCode: string): ScanRefusal {
  if (errorCode === 'TRAVELLER_MARKED_NO_SHOW') return 'MARKED_NO_SHOW';
  if (errorCode === 'TRIP_ACTION_NOT_ALLOWED') return 'TRIP_NOT_BOARDING';
  return 'TICKET_NOT_VALID';
}
