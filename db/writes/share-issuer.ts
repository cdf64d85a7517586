import type { PoolClient } from 'pg';
import type { ShareGrantInput } from '../../domain/document-sharing.js';
import { Refusal } from '../../domain/refusal.js';
import { lockActingMember } from './acting-member.js';
import { lockActiveCompany } from './active-company.js';

/**
 * A staff or driver issuer as the grant's write reads them again (openGrant): the booking, the
 * company, the issuer's session and membership, and a driver's assignment to the booking's trip.
 */

/**
 * The issuer's company, ACTIVE (lockActiveCompany), their session and membership (lockActingMember;
 * absent in the inputs of grants opened before it was carried), and a driver's trip (lockDriversTrip),
 * held FOR SHARE until the grant is written, so a suspension, a deactivation or a re-plan either
 * committed before and is seen, or waits for the grant. The booking row is taken first, as the
 * grant's insert would take it (key share): a write of the booking in flight is waited for before
 * the company row is held, so a suspension never waits behind it. No deadlock with that order: a
 * suspension locks no booking after the company row, and the writes that lock a booking after it
 * hold the company FOR SHARE too, which this does not wait for. The trip comes after the company, as
 * a trip action takes it; a CANCEL of the trip that then waits for this booking is a deadlock whose
 * victim runs again (openGrant's and the dispatch's withDeadlockRetry).
 */
export async function lockIssuer(client: PoolClient, input: ShareGrantInput): Promise<void> {
  await client.query(`select 1 from bookings where id = $1 for key share`, [input.bookingId]);
  await lockActiveCompany(client, input.companyId, 'share');
  if (input.member) await lockActingMember(client, input.companyId, input.member);
  if (input.issuer.kind === 'DRIVER') await lockDriversTrip(client, input);
}

/**
 * A driver reaches a booking only while they drive its trip (domain/document-sharing.ts reaches):
 * the booking's trip is read FOR SHARE, and one re-planned with another driver or none, or a booking
 * moved to another trip, while the share was made is the 404 BOOKING_NOT_FOUND a new share gets.
 */
async function lockDriversTrip(client: PoolClient, input: ShareGrantInput): Promise<void> {
  const { rows } = await client.query<{ driver_id: string | null }>(
    `select t.driver_id from bookings b join trips t on t.id = b.trip_id where b.id = $1 for share of t`,
    [input.bookingId],
  );
  if (rows[0]?.driver_id !== input.issuer.id) throw new Refusal(404, 'BOOKING_NOT_FOUND', 'No such booking');
}
