import { authorizesBoarding, type BoardingCredentialPayload } from '../../domain/boarding-credential.js';
import { legOverSql } from './leg-boarding.js';

/**
 * What a traveller's reads show of a ticket's boarding credential: GET /tickets, GET /bookings,
 * GET /bookings/{id} and the journey and order confirmation projection (SPEC: every channel uses the
 * same projection; a client shows a QR code by boarding_authorized alone). The flag is true, and the
 * signed payload, signature and key shown, only while the ticket authorizes boarding
 * (authorizesBoarding: VALID, authorised, signed, not revoked) and its leg still boards by the rule
 * the ticket documents, re-issue and the driver app's verify follow (legOverSql: the bus has not
 * left the boarding stop, the trip is not over). Otherwise the flag is false and the rest null.
 * What the database stores (journey_tickets.boarding_authorized) is the dashboard's, untouched.
 */

/**
 * The joins a read adds over its ticket `t` for credentialStateSql: the revocation list entry and,
 * only for a ticket that is VALID, authorised and signed (for any other the lateral is gated off, no
 * lookups), whether the leg its credential was signed for (the payload's stop calls, on its own
 * trip) still boards. What that adds per such ticket: primary-key lookups of the trip and two stop
 * calls, and legOverSql's first-call lookup (the trip_stop_calls (trip_id, sequence) index).
 */
export const credentialStateJoins = (t: string) => `
  left join credential_revocations crv on crv.ticket_id = ${t}.id
  left join lateral (
    select not ${legOverSql({ trip: 'ctr', board: 'cbc', alight: 'cac' })} as boards
    from trips ctr
    join trip_stop_calls cbc on cbc.id = (${t}.payload->>'boardStopCallId')::uuid
    join trip_stop_calls cac on cac.id = (${t}.payload->>'alightStopCallId')::uuid
    where ctr.id = ${t}.trip_id and ${t}.status = 'VALID' and ${t}.boarding_authorized and ${t}.signature is not null
  ) cleg on true`;

/** SQL expressions over credentialStateJoins: the CredentialState columns beyond the ticket's own. */
export const credentialStateSql = {
  revoked: 'crv.ticket_id is not null',
  /** False also for a ticket the lateral did not look at (it authorizes nothing anyway). */
  legBoards: 'coalesce(cleg.boards, false)',
};

/** A ticket's stored credential and boarding state, with credentialStateSql's columns. */
export interface CredentialState {
  status: string;
  payload: BoardingCredentialPayload | null;
  signature: string | null;
  key_id: string | null;
  boarding_authorized: boolean;
  revoked: boolean;
  leg_boards: boolean;
}

/** The credential a ticket shows: all of it while it authorizes boarding, nothing otherwise. */
export type ShownCredential =
  | { boarding_authorized: false; payload: null; signature: null; key_id: null }
  | {
      boarding_authorized: true;
      payload: BoardingCredentialPayload;
      signature: string;
      key_id: string | null;
    };

export function shownCredential(row: CredentialState): ShownCredential {
  const state = {
    status: row.status,
    boardingAuthorized: row.boarding_authorized,
    revoked: row.revoked,
    signature: row.signature,
  };
  if (!authorizesBoarding(state) || !row.leg_boards || row.payload === null) {
    return { boarding_authorized: false, payload: null, signature: null, key_id: null };
  }
  return { boarding_authorized: true, payload: row.payload, signature: state.signature, key_id: row.key_id };
}
