import { describe, expect, it } from 'vitest';
import { bookableTrip, createBooking } from '../../support/bookings.js';
import { openShift, payAtOffice, shiftCommand } from '../../support/finance.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import { webTraveller } from '../../support/journeys.js';

/**
 * README "Cash shifts": "Expected = opening balance + linked collections + IN − OUT; CLOSE stores
 * declared, expected and difference (declared − expected)." The opening balance is at most 10^12 SYP,
 * but collections add to it: a till holding more is counted as it is.
 */
describe('closing a shift whose till holds more than an opening balance may', () => {
  const app = useTestApp();

  it('a CLOSE declaring exactly the expected amount is accepted with difference 0', async () => {
    const trip = await bookableTrip(app.db, { price: 100_000_000, priceVip: null, seats: 12 });
    const traveller = await webTraveller(app);
    const booking = await createBooking(app, traveller, {
      tripId: trip.tripId,
      seatNumbers: trip.seatNumbers.slice(0, 10),
    });
    expect(booking.total_price).toBe(1_000_000_000);
    const owner = await staffSession(app.db, app.config, trip.companyId, 'OWNER');
    const shift = await openShift(app, owner, 1_000_000_000_000);
    await payAtOffice(app, owner, booking.id);

    const current = await app.request('/dashboard/api/payments/cash-shifts', {
      headers: { Cookie: owner.cookie },
    });
    expect(current.status, current.text).toBe(200);
    const expected = current.body.data.current.expected_amount as number;
    expect(expected).toBe(1_001_000_000_000);

    // Past what a JSON number holds exactly: refused, and the shift stays open.
    const unreadable = await shiftCommand(app, owner, {
      action: 'CLOSE',
      shift_id: shift.id,
      declared_amount: Number.MAX_SAFE_INTEGER + 1,
    });
    expect([unreadable.status, unreadable.body.errorCode]).toEqual([400, 'VALIDATION_FAILED']);
    const [open] = await app.db.query<{ status: string }>(`select status from cash_shifts where id = $1`, [
      shift.id,
    ]);
    expect(open!.status).toBe('OPEN');

    const close = await shiftCommand(app, owner, {
      action: 'CLOSE',
      shift_id: shift.id,
      declared_amount: expected,
    });
    expect(close.status, close.text).toBe(200);
    expect(close.body.data.difference).toBe(0);
  }, 60_000);
});
