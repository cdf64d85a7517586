import type { Database } from '../../db/orm.js';
import {
  findSigningKey,
  findTicketAtBoarding,
  tripCompany,
  type TicketAtBoarding,
} from '../../db/queries/boarding-credentials.js';
import {
  credentialRefusal,
  publicKeyFromPem,
  verifyCredential,
  type CredentialRefusal,
} from '../../domain/boarding-credential.js';
import { Refusal } from '../../domain/refusal.js';

export interface PresentedCredential {
  payload: Record<string, unknown>;
  signature: string;
  /** The trip being boarded. */
  tripId: string;
}

export interface BoardingVerdict {
  valid: boolean;
  reason?: CredentialRefusal;
  /** Present once the signature is authentic and the ticket exists. */
  ticket?: {
    ticketId: string;
    tripId: string;
    legSequence: number;
    travellerName: string;
    seatNumber: string;
    status: TicketAtBoarding['status'];
  };
}

/** The ticket the payload names, read only once the signature is authentic. */
async function ticketOf(
  db: Database,
  credential: PresentedCredential,
  signatureValid: boolean,
): Promise<TicketAtBoarding | undefined> {
  const ticketId = credential.payload.ticketId;
  return signatureValid && typeof ticketId === 'string' ? findTicketAtBoarding(db, ticketId) : undefined;
}

/**
 * POST /driver/api/verify: a driver of the trip's company checks a scanned credential (a trip of
 * another company is 404 TRIP_NOT_FOUND). Reads only: nothing is marked as used.
 */
export async function verifyAtBoarding(
  db: Database,
  driver: { companyId: string },
  credential: PresentedCredential,
): Promise<BoardingVerdict> {
  if ((await tripCompany(db, credential.tripId)) !== driver.companyId) {
    throw new Refusal(404, 'TRIP_NOT_FOUND', 'No such trip');
  }
  const keyId = credential.payload.keyId;
  const keyRow = typeof keyId === 'string' ? await findSigningKey(db, keyId) : undefined;
  const signatureValid = keyRow
    ? verifyCredential(credential.payload, credential.signature, publicKeyFromPem(keyRow.public_key))
    : false;
  const ticket = await ticketOf(db, credential, signatureValid);
  const reason = credentialRefusal({
    keyKnown: keyRow !== undefined,
    signatureValid,
    payloadTripId: credential.payload.tripId,
    boardingTripId: credential.tripId,
    ticket: ticket && {
      status: ticket.status,
      boardingAuthorized: ticket.boarding_authorized,
      revoked: ticket.revoked,
      signature: ticket.signature,
    },
    presentedSignature: credential.signature,
  });
  return {
    valid: reason === null,
    ...(reason ? { reason } : {}),
    ...(ticket
      ? {
          ticket: {
            ticketId: ticket.id,
            tripId: ticket.trip_id,
            legSequence: ticket.leg_sequence,
            travellerName: ticket.traveller_name,
            seatNumber: ticket.seat_number,
            status: ticket.status,
          },
        }
      : {}),
  };
}
