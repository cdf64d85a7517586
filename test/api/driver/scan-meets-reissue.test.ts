import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { holdLock, waitersOf } from '../../drills/support/blocking.js';
import { useTestApp } from '../../support/harness.js';
import { bookSeats, dispatch, operationsSnapshot, operationsWorld, scan } from '../../support/operations.js';

/**
 * A scan reads the ticket, then waits for its booking row; a re-issue that commits meanwhile (it holds
 * the journey and the ticket, not the booking) leaves the scanned credential worthless. The scan
 * answers the verdict a scan of that credential gets after the re-issue (200, REFUSED
 * TICKET_REISSUED), stored under its client scan id like any verdict, not 404 MANIFEST_ITEM_NOT_FOUND.
 */
describe('a driver scan that meets a re-issue', () => {
  const app = useTestApp();

  it('is REFUSED TICKET_REISSUED, checks nobody in, and a replay answers the same verdict', async () => {
    const w = await operationsWorld(app, { seats: 4 });
    expect((await dispatch(app, w.dispatcher, w.trip.tripId, { action: 'START_BOARDING' })).status).toBe(200);
    const traveller = await bookSeats(app, w.trip, [w.trip.seatNumbers[0]!]);
    const credential = traveller.credentials[0]!;
    const clientScanId = randomUUID();

    // Another write holds the booking: the scan reads the ticket (VALID, this signature), then waits.
    const held = await holdLock(
      app.db,
      `select 1 from bookings where id = '${traveller.bookingId}' for update`,
    );
    const scanning = scan(app, w.driver.token, w.trip.tripId, credential, { clientScanId });
    await waitersOf(app.db, held.pid);
    const reissued = await app.request('/api/tickets', {
      method: 'POST',
      headers: traveller.caller.headers,
      json: { ticket_id: credential.ticketId, reason: 'LOST_DEVICE' },
    });
    expect(reissued.status, reissued.text).toBe(201);
    const afterReissue = await operationsSnapshot(app.db, w.trip.tripId);
    await held.release();
    const answer = await scanning;

    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).toMatchObject({
      clientScanId,
      outcome: 'REFUSED',
      reason: 'TICKET_REISSUED',
      replayed: false,
      ticket: { ticketId: credential.ticketId, status: 'REISSUED' },
    });
    // Nobody checked in, no operation logged: the trip is as the re-issue left it.
    expect(await operationsSnapshot(app.db, w.trip.tripId)).toEqual(afterReissue);
    const stored = await app.db.query(
      'select outcome, reason, ticket_id from boarding_scans where client_scan_id = $1',
      [clientScanId],
    );
    expect(stored).toEqual([
      { outcome: 'REFUSED', reason: 'TICKET_REISSUED', ticket_id: credential.ticketId },
    ]);

    // The app sends the scan again (its answer lost): the stored verdict, replayed.
    const replay = await scan(app, w.driver.token, w.trip.tripId, credential, { clientScanId });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body.data).toEqual({ ...answer.body.data, replayed: true });
  });
});
