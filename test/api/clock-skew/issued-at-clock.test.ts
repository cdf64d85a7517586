import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bookableTrip, createBooking } from '../../support/bookings.js';
import { fetchDocument } from '../../support/documents.js';
import { useTestApp } from '../../support/harness.js';
import { bookJourney, mobileTraveller, tripOf } from '../../support/journeys.js';
import { collectCash } from '../../support/payments.js';
import {
  bookSeats,
  dispatch,
  operationsWorld,
  scan,
  type OperationsWorld,
} from '../../support/operations.js';
import { realNow, skewClock } from '../../support/clock-skew.js';

const FIVE_MINUTES = 5 * 60_000;
const ms = (value: Date | string) => new Date(value).getTime();

/**
 * A ticket's issued_at (signed into its QR, printed "Issued on") and a receipt's issued_at are the
 * database instant of the write, not the API host's clock: README (driver scan) "a time ahead of the
 * server is recorded as the server's now, never in the future", and a check-in is never dated before
 * its ticket was issued. The API runs in this process; its clock is skewed, PostgreSQL's is not.
 */
describe('issued_at of tickets and receipts: the database instant, whatever the API host clock', () => {
  const app = useTestApp();
  let world: OperationsWorld;
  afterEach(() => skewClock(0));

  beforeAll(async () => {
    world = await operationsWorld(app, { seats: 4 });
  });

  it('a live scan of a ticket sold by an API host 5 min fast is checked in at the server now, not in the future', async () => {
    skewClock(FIVE_MINUTES);
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[0]!]);
    skewClock(0);
    const started = await dispatch(app, world.dispatcher, world.trip.tripId, { action: 'START_BOARDING' });
    expect(started.status, started.text).toBe(200);

    const sent = realNow();
    const response = await scan(app, world.driver.token, world.trip.tripId, traveller.credentials[0]!);
    const answered = realNow();
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.outcome, response.text).toBe('CHECKED_IN');
    const [row] = await app.db.query<{ at: Date }>(
      'select attendance_at as at from journey_tickets where id = $1',
      [traveller.ticketIds[0]],
    );
    const at = Date.parse(response.body.data.checkedIn.at);
    expect(at).toBe(ms(row!.at));
    expect(at).toBeGreaterThanOrEqual(sent - 1_000);
    expect(at - answered, 'check-in dated this many ms after the answer').toBeLessThanOrEqual(0);
  }, 60_000);

  it('a ticket sold by an API host 5 min slow is issued when its booking is made, as its QR says', async () => {
    skewClock(-FIVE_MINUTES);
    const traveller = await bookSeats(app, world.trip, [world.trip.seatNumbers[1]!]);
    skewClock(0);
    const [row] = await app.db.query<{ issued_at: Date; created_at: Date }>(
      `select t.issued_at, b.created_at from journey_tickets t join bookings b on b.id = $2 where t.id = $1`,
      [traveller.ticketIds[0], traveller.bookingId],
    );
    const issued = ms(row!.issued_at);
    const created = ms(row!.created_at);
    expect(issued - created, 'ticket issued this many ms after its booking').toBeGreaterThanOrEqual(0);
    expect(issued - created).toBeLessThan(1_000);
    expect(ms(String(traveller.credentials[0]!.payload.issuedAt)), 'issuedAt signed into the QR').toBe(
      issued,
    );
  }, 60_000);

  it('a journey confirmed on an API host 5 min slow signs its tickets no earlier than the confirm', async () => {
    const trip = await tripOf(app.db);
    const caller = await mobileTraveller(app);
    skewClock(-FIVE_MINUTES);
    const { journeyId } = await bookJourney(app, caller, [{ trip }]);
    skewClock(0);
    const rows = await app.db.query<{ issued_at: Date | null; confirmed_at: Date }>(
      `select t.issued_at, j.confirmed_at from journey_tickets t join journeys j on j.id = t.journey_id
        where j.id = $1`,
      [journeyId],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.issued_at, 'ticket signed').not.toBeNull();
      expect(
        ms(row.issued_at!) - ms(row.confirmed_at),
        'ticket issued this many ms after the confirm',
      ).toBeGreaterThanOrEqual(0);
    }
  }, 60_000);

  it('a receipt first asked of an API host 5 min slow is not dated before the cash it acknowledges', async () => {
    const caller = await mobileTraveller(app);
    const bookable = await bookableTrip(app.db);
    const booking = await createBooking(app, caller, {
      tripId: bookable.tripId,
      seatNumbers: bookable.seatNumbers.slice(0, 1),
    });
    const collection = await collectCash(app.db, booking.id, { source: 'office' });

    skewClock(-FIVE_MINUTES);
    const receipt = await fetchDocument(app, `/api/bookings/${booking.id}/receipt?locale=en`, caller.headers);
    skewClock(0);
    expect(receipt.status, JSON.stringify(receipt.body)).toBe(200);
    const [row] = await app.db.query<{ issued_at: Date; number: string }>(
      `select issued_at, number from receipts where booking_id = $1 and kind = 'PAYMENT_RECEIPT'`,
      [booking.id],
    );
    const issued = ms(row!.issued_at);
    expect(
      issued - ms(collection.collectedAt),
      'receipt dated this many ms after the collection',
    ).toBeGreaterThanOrEqual(0);
    expect(issued).toBeLessThanOrEqual(realNow());
  }, 90_000);
});
