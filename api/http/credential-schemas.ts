import { z } from 'zod';

/**
 * Schema pieces of the signed boarding credential (domain/boarding-credential.ts): a journey
 * ticket's status, the credential payload and its Ed25519 signature. The traveller's ticket answers
 * (tickets, journey holds, booking reads) and the driver app's verify and scan bodies state them
 * from here; each use adds its own description.
 */

/** journey_tickets.status. */
export const JourneyTicketStatus = z.enum(['PENDING_CONFIRMATION', 'VALID', 'CANCELLED', 'USED', 'REISSUED']);

/** The credential payload: a JSON object; the canonical JSON of it is what was signed. */
export const CredentialPayload = z.record(z.string(), z.unknown());

/** The signature a driver app sends back as the QR code carried it: base64url text, 1 to 200 characters. */
export const ScannedSignature = z.string().min(1).max(200);

/** The credential's Ed25519 signature as a ticket answer shows it: base64url text; null while the ticket has none. */
export const CredentialSignatureText = z.string().nullable();

/**
 * When a ticket answer shows boarding_authorized true and its credential (db/queries/shown-credential.ts):
 * one rule for GET /tickets, the booking reads and the journey and order projection.
 */
export const SHOWN_CREDENTIAL_RULE =
  'true only while the ticket is VALID, authorised to board, signed and not revoked, and its leg still boards: ' +
  "the bus has not left the traveller's boarding stop (at DEPART for the trip's first stop; a later stop until its " +
  "planned departure plus the trip's lateness) and the trip has not arrived, completed or been cancelled, the rule " +
  "of the ticket documents, re-issue and the driver app's verify. Every traveller read (GET /tickets, " +
  'GET /bookings, GET /journeys, GET /journey-orders) answers it the same; false after check-in (USED), cancel or ' +
  're-issue. When false, payload, signature and key_id are null. The only flag a client may show a QR code or ' +
  'request a ticket document by';
