import type { Database } from '../../db/orm.js';
import {
  boardingStateOf,
  findSigningKey,
  findTicketAtBoarding,
  tripCrew,
  type TicketAtBoarding,
} from '../../db/queries/boarding-credentials.js';
import {
  credentialRefusal,
  publicKeyFromPem,
  verifyCredential,
  type CredentialRefusal,
} from '../../domain/boarding-credential.js';
import { refuseUnassigned, tripNotFound } from '../../domain/trip-dispatch.js';

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
  companyId: string,
  credential: PresentedCredential,
  signatureValid: boolean,
): Promise<TicketAtBoarding | undefined> {
  const ticketId = credential.payload.ticketId;
  return signatureValid && typeof ticketId === 'string'
    ? findTicketAtBoarding(db, ticketId, companyId)
    : undefined;
}

/**
 * POST /driver/api/verify: the driver of the trip, or a manager of its company, checks a scanned
 * credential (a trip of another company is 404 TRIP_NOT_FOUND, another driver's trip 403
 * TRIP_NOT_ASSIGNED, as for the manifest and the scan). Reads only: nothing is marked as used.
 */
export async function verifyAtBoarding(
  db: Database,
  driver: { companyId: string; role: string; staffUserId: string },
  credential: PresentedCredential,
): Promise<BoardingVerdict> {
  const crew = await tripCrew(db, credential.tripId);
  if (crew?.companyId !== driver.companyId) throw tripNotFound();
  refuseUnassigned(driver, crew.driverId);
  const keyId = credential.payload.keyId;
  const keyRow = typeof keyId === 'string' ? await findSigningKey(db, keyId) : undefined;
  const signatureValid = keyRow
    ? verifyCredential(credential.payload, credential.signature, publicKeyFromPem(keyRow.public_key))
    : false;
  const ticket = await ticketOf(db, driver.companyId, credential, signatureValid);
  const reason = credentialRefusal({
    keyKnown: keyRow !== undefined,
    signatureValid,
    payloadTripId: credential.payload.tripId,
    boardingTripId: credential.tripId,
    ticket: ticket && boardingStateOf(ticket),
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
