import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { bookSeats, dispatch, operationsSnapshot, operationsWorld } from '../../support/operations.js';

/**
 * A ticket its traveller cancelled is no traveller of the trip: no traveller action brings it back.
 * RESTORE is refused as CHECK_IN and MARK_NO_SHOW are (409 TICKET_NOT_BOARDABLE), writing nothing: it
 * gave the cancelled traveller's attendance back and logged a RESTORE for someone no longer on the trip.
 */
describe('a traveller action on a cancelled ticket', () => {
  const app = useTestApp();

  it('RESTORE of a no-show whose booking was then cancelled is 409 TICKET_NOT_BOARDABLE, and nothing changes', async () => {
    const w = await operationsWorld(app, { seats: 8 });
    const party = await bookSeats(app, w.trip, [w.trip.seatNumbers[0]!, w.trip.seatNumbers[1]!]);
    const item = { manifest_item_id: party.ticketIds[0], manifest_item_type: 'JOURNEY_TICKET' };
    expect((await dispatch(app, w.dispatcher, w.trip.tripId, { action: 'START_BOARDING' })).status).toBe(200);
    const noShow = await dispatch(app, w.dispatcher, w.trip.tripId, { action: 'MARK_NO_SHOW', ...item });
    expect(noShow.status, noShow.text).toBe(200);
    // One of the two a no-show: the booking is still CONFIRMED, and its traveller cancels it.
    const cancelled = await app.request(`/api/bookings/${party.bookingId}/cancel`, {
      method: 'POST',
      headers: party.caller.headers,
      json: {},
    });
    expect(cancelled.status, cancelled.text).toBe(200);

    const before = await operationsSnapshot(app.db, w.trip.tripId);
    for (const action of ['RESTORE', 'CHECK_IN', 'MARK_NO_SHOW']) {
      const refused = await dispatch(app, w.dispatcher, w.trip.tripId, { action, ...item });
      expect(
        [refused.status, refused.body.errorCode, refused.body.details],
        `${action}: ${refused.text}`,
      ).toEqual([409, 'TICKET_NOT_BOARDABLE', { ticketStatus: 'CANCELLED' }]);
    }
    expect(await operationsSnapshot(app.db, w.trip.tripId)).toEqual(before);
    const [ticket] = await app.db.query('select status, attendance from journey_tickets where id = $1', [
      party.ticketIds[0],
    ]);
    expect(ticket).toEqual({ status: 'CANCELLED', attendance: 'NO_SHOW' });
  });
});
