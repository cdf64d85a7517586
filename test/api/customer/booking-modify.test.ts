import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { appContext } from '../../../api/app.js';
import { shareGrantClient } from '../../../api/temporal/share-grant-client.js';
import { modifyOwnBooking } from '../../../api/use-cases/booking-changes.js';
import { documentSharing } from '../../../api/use-cases/document-sharing.js';
import { createLogger } from '../../../config/logger.js';
import { announceCashPayment, collectCash } from '../../support/payments.js';
import {
  booked,
  bookingState,
  cancelBooking,
  liveSeatLabels,
  minutesFromNow,
  modifyBooking,
  moveTo,
  sameRouteTrip,
} from '../../support/booking-changes.js';
import { BOOKING_SEAT_ORDER } from '../../../db/migrations/Migration20261208020000_booking_seat_order.js';
import { addDays } from '../../../domain/analytics.js';
import { damascusIsoWeekday } from '../../../domain/loyalty.js';
import { bookableTrip, createBooking } from '../../support/bookings.js';
import { atDamascus, createCity, createStop, futureDay } from '../../support/factories.js';
import { useTestApp } from '../../support/harness.js';
import { staffSession } from '../../support/journey-rows.js';
import {
  bookingOfCompany,
  confirmJourney,
  holdJourney,
  mobileTraveller,
  quote,
  tripOf,
  webTraveller,
  type Caller,
} from '../../support/journeys.js';
import {
  creditPoints,
  giveReward,
  loyaltyProgram,
  redeemVoucher,
  type RewardOptions,
} from '../../support/loyalty.js';
import { advance, assignDriver, dispatch, operationsWorld } from '../../support/operations.js';
import {
  acceptShare,
  createShare,
  grantRow,
  NO_SHARE_IP_LIMIT,
  recipientSession,
  sharedDocument,
} from '../../support/document-shares.js';
import { fetchDocument } from '../../support/documents.js';
import { decodeQrCodes } from '../../support/pdf.js';

describe('PATCH /bookings/{id} (modify)', () => {
  const app = useTestApp(NO_SHARE_IP_LIMIT);

  async function expectRefused(
    caller: Caller,
    bookingId: string,
    body: Record<string, unknown>,
    status: number,
    errorCode: string,
  ) {
    const before = await bookingState(app.db, bookingId);
    const response = await modifyBooking(app, caller, bookingId, body);
    expect(response.status, response.text).toBe(status);
    expect(response.body.errorCode).toBe(errorCode);
    expect(await bookingState(app.db, bookingId)).toEqual(before);
    return response;
  }

  /** A voucher of the company with these terms, bought with points by the caller (POST /loyalty/redeem). */
  async function voucherFor(caller: Caller, companyId: string, terms: RewardOptions): Promise<string> {
    await loyaltyProgram(app.db, companyId);
    const reward = await giveReward(app.db, companyId, terms);
    await creditPoints(app.db, { companyId, userId: caller.userId, points: 100 });
    return redeemVoucher(app, caller, companyId, reward.code);
  }

  it('moves the booking to a trip of the same company and cities, repriced, with new seats and new QR codes', async () => {
    const caller = await webTraveller(app);
    const { trip, booking } = await booked(app, caller);
    const later = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60), { price: 12_000 });
    const before = await bookingState(app.db, booking.id);

    const response = await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7', '8']));

    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const data = response.body.data;
    expect(data).toMatchObject({
      id: booking.id,
      status: 'CONFIRMED',
      payment_status: 'UNPAID',
      seat_numbers: ['7', '8'],
      subtotal: 24_000,
      discount: 0,
      total_price: 24_000,
      boarding_authorized: true,
      trip: { id: later.tripId, company: { id: trip.companyId } },
    });
    expect(data.tickets.map((ticket: any) => [ticket.seat_number, ticket.status])).toEqual([
      ['7', 'VALID'],
      ['8', 'VALID'],
    ]);

    // Old seats free on the old trip, new ones confirmed on the new trip.
    expect(await liveSeatLabels(app.db, booking.id, trip.tripId)).toEqual([]);
    expect(await liveSeatLabels(app.db, booking.id, later.tripId)).toEqual(['7', '8']);
    const after = await bookingState(app.db, booking.id);
    expect(after.legs).toEqual([
      expect.objectContaining({ trip_id: later.tripId, unit_price: 12_000, quantity: 2, subtotal: 24_000 }),
    ]);
    expect(after.journey.total_price).toBe(24_000);

    // QR codes rotated: old tickets REISSUED and revoked, new tickets with new ids signed for the new trip.
    const oldIds = before.tickets.map((ticket) => ticket.id);
    expect(
      after.tickets.filter((ticket) => oldIds.includes(ticket.id)).map((ticket) => ticket.status),
    ).toEqual(['REISSUED', 'REISSUED']);
    expect(after.revoked).toEqual(
      oldIds
        .map((id) => ({ ticket_id: id, reason: 'REISSUED' }))
        .sort((a, b) => a.ticket_id.localeCompare(b.ticket_id)),
    );
    const fresh = data.tickets as { id: string; payload: any; signature: string }[];
    expect(
      fresh.every((ticket) => !oldIds.includes(ticket.id) && ticket.payload.tripId === later.tripId),
    ).toBe(true);

    // The driver of both trips: their company's revocation list names the old tickets.
    const driver = await staffSession(app.db, app.config, trip.companyId, 'DRIVER');
    const revocations = await app.request('/driver/api/revocations', { token: driver.token });
    const revokedIds = revocations.body.data.revocations.map((entry: any) => entry.ticketId);
    expect(revokedIds).toEqual(expect.arrayContaining(oldIds));

    // At either door.
    for (const tripId of [trip.tripId, later.tripId]) await assignDriver(app.db, tripId, driver.staffUserId);
    const verify = (credential: { payload: unknown; signature: string | null }, tripId: string) =>
      app.request('/driver/api/verify', {
        method: 'POST',
        token: driver.token,
        json: { payload: credential.payload, signature: credential.signature, tripId },
      });
    const newVerdict = await verify(fresh[0]!, later.tripId);
    expect(newVerdict.body.data).toMatchObject({ valid: true, ticket: { seatNumber: '7' } });
    const oldVerdict = await verify(before.tickets[0]!, trip.tripId);
    expect(oldVerdict.body.data.valid).toBe(false);
  });

  it('keeps a discount no voucher stands behind (set by hand), capped at the new subtotal', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    // 8 000 off a 10 000 seat with no voucher recorded; the new trip costs 5 000 a seat.
    await app.db.query(`update bookings set discount = 8000, total_price = 2000 where id = $1`, [booking.id]);
    const cheaper = await sameRouteTrip(app.db, trip, minutesFromNow(60 * 60), { price: 5_000 });

    const response = await modifyBooking(app, caller, booking.id, moveTo(cheaper.tripId, ['3']));

    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ subtotal: 5_000, discount: 5_000, total_price: 0 });
  });

  it('moves an announced cash payment to the new total, and cancels it when the move makes the booking free', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    await app.db.query(`update bookings set discount = 8000, total_price = 2000 where id = $1`, [booking.id]);
    const { paymentId } = await announceCashPayment(app.db, booking.id, caller.userId);
    const line = async () =>
      (
        await app.db.query<{ status: string; amount: number }>(
          `select status, amount::int from payment_operations where booking_id = $1`,
          [booking.id],
        )
      )[0];
    expect(await line()).toEqual({ status: 'PENDING', amount: 2_000 });
    const dearer = await sameRouteTrip(app.db, trip, minutesFromNow(60 * 60), { price: 12_000 });
    const moved = await modifyBooking(app, caller, booking.id, moveTo(dearer.tripId, ['3']));
    expect(moved.body.data, moved.text).toMatchObject({ total_price: 4_000 });
    expect(await line()).toEqual({ status: 'PENDING', amount: 4_000 });

    // 8 000 off a 5 000 seat: the booking costs nothing, and 0 SYP is nobody's cash to collect.
    const cheaper = await sameRouteTrip(app.db, trip, minutesFromNow(61 * 60), { price: 5_000 });
    const free = await modifyBooking(app, caller, booking.id, moveTo(cheaper.tripId, ['3']));
    expect(free.body.data, free.text).toMatchObject({ total_price: 0, payment_status: 'UNPAID' });
    expect(await line()).toEqual({ status: 'CANCELLED', amount: 4_000 });
    const again = await app.request('/api/payments/create', {
      method: 'POST',
      headers: caller.headers,
      json: { booking_id: booking.id, method: 'CASH' },
    });
    expect([again.status, again.body.errorCode]).toEqual([409, 'NOTHING_TO_COLLECT']);
    expect(
      await app.db.query(`select id from payment_operations where booking_id = $1`, [booking.id]),
    ).toEqual([{ id: paymentId }]);
  });

  it("recomputes a voucher's discount on the new subtotal by its terms, and refuses a subtotal below its minimum with 409 LOYALTY_MINIMUM_NOT_MET", async () => {
    const caller = await mobileTraveller(app);
    const trip = await bookableTrip(app.db, { departAt: minutesFromNow(48 * 60) });
    const code = await voucherFor(caller, trip.companyId, {
      discountPercent: 50,
      maxDiscount: 4_000,
      minSubtotal: 6_000,
    });
    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: ['1'],
      rewardCode: code,
    });
    // 50% of 10 000, capped at 4 000.
    expect(booking.discount).toBe(4_000);
    const spent = async () =>
      (
        await app.db.query<{ discount: number; status: string }>(
          `select discount::int, status from loyalty_redemptions where code = $1`,
          [code],
        )
      )[0];

    const cheaper = await sameRouteTrip(app.db, trip, minutesFromNow(60 * 60), { price: 7_000 });
    const toCheaper = await modifyBooking(app, caller, booking.id, moveTo(cheaper.tripId, ['3']));
    expect(toCheaper.status, toCheaper.text).toBe(200);
    expect(toCheaper.body.data).toMatchObject({ subtotal: 7_000, discount: 3_500, total_price: 3_500 });
    expect(await spent()).toEqual({ discount: 3_500, status: 'USED' });

    const dearer = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60), { price: 12_000 });
    const toDearer = await modifyBooking(app, caller, booking.id, moveTo(dearer.tripId, ['4']));
    expect(toDearer.status, toDearer.text).toBe(200);
    expect(toDearer.body.data).toMatchObject({ subtotal: 12_000, discount: 4_000, total_price: 8_000 });
    expect((await bookingState(app.db, booking.id)).journey.total_price).toBe(8_000);

    const tooCheap = await sameRouteTrip(app.db, trip, minutesFromNow(80 * 60), { price: 5_000 });
    const refused = await expectRefused(
      caller,
      booking.id,
      moveTo(tooCheap.tripId, ['5']),
      409,
      'LOYALTY_MINIMUM_NOT_MET',
    );
    expect(refused.body.details).toEqual({ minSubtotal: 6_000 });
    expect(await spent()).toEqual({ discount: 4_000, status: 'USED' });
  });

  it("refuses a move onto a day the booking's voucher excludes with 409 LOYALTY_DAY_NOT_ELIGIBLE and changes nothing", async () => {
    const caller = await webTraveller(app);
    // One day read once: a second read after midnight would make "the same day" the next one.
    const day = futureDay(3);
    const departAt = atDamascus(day, '08:00');
    const trip = await bookableTrip(app.db, { departAt });
    const code = await voucherFor(caller, trip.companyId, {
      discountPercent: 50,
      allowedDays: [damascusIsoWeekday(departAt)],
    });
    const booking = await createBooking(app, caller, {
      tripId: trip.tripId,
      seatNumbers: ['1'],
      rewardCode: code,
    });
    expect(booking.discount).toBe(5_000);
    const nextDay = await sameRouteTrip(app.db, trip, atDamascus(addDays(day, 1), '08:00'));
    const sameDay = await sameRouteTrip(app.db, trip, atDamascus(day, '18:00'));

    await expectRefused(caller, booking.id, moveTo(nextDay.tripId, ['1']), 409, 'LOYALTY_DAY_NOT_ELIGIBLE');

    const moved = await modifyBooking(app, caller, booking.id, moveTo(sameDay.tripId, ['2']));
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ subtotal: 10_000, discount: 5_000, total_price: 5_000 });
  });

  it("refuses with 409 JOURNEY_FLOW_REQUIRED when the company now confirms the caller's channel itself, and changes nothing", async () => {
    const mobile = await mobileTraveller(app);
    const web = await webTraveller(app);
    const { trip, booking } = await booked(app, mobile, { seats: ['1'] });
    const other = await booked(app, web, { seats: ['2'], trip });
    const later = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    // The company now decides every mobile booking itself (PUT /settings/booking-confirmation).
    await app.db.query(
      `update company_booking_settings set mode = 'MANUAL_CONFIRM', channels = '{CUSTOMER_MOBILE}'
       where company_id = $1`,
      [trip.companyId],
    );

    const refused = await expectRefused(
      mobile,
      booking.id,
      moveTo(later.tripId, ['3']),
      409,
      'JOURNEY_FLOW_REQUIRED',
    );
    expect(refused.body.details).toEqual({ companyId: trip.companyId });
    // Other seats of the same trip would be confirmed without the decision too.
    await expectRefused(mobile, booking.id, moveTo(trip.tripId, ['5']), 409, 'JOURNEY_FLOW_REQUIRED');
    expect(await liveSeatLabels(app.db, booking.id, later.tripId)).toEqual([]);

    // The web channel still confirms automatically.
    const moved = await modifyBooking(app, web, other.booking.id, moveTo(later.tripId, ['4']));
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ status: 'CONFIRMED', boarding_authorized: true });
  });

  it('may change only the seats on the same trip, and a repeat of the same change changes nothing', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1', '2'] });

    const moved = await modifyBooking(app, caller, booking.id, moveTo(trip.tripId, ['2', '3']));
    expect(moved.status, moved.text).toBe(200);
    expect(await liveSeatLabels(app.db, booking.id, trip.tripId)).toEqual(['2', '3']);

    const before = await bookingState(app.db, booking.id);
    const repeated = await modifyBooking(app, caller, booking.id, moveTo(trip.tripId, ['2', '3']));
    expect(repeated.status, repeated.text).toBe(200);
    expect(await bookingState(app.db, booking.id)).toEqual(before);
  });

  const FAMILY = ['Mona', 'Rami', 'Lina'];

  /** What seatsShown reads of the family seated traveller i in `seats[i]`. */
  const familyIn = (seats: string[]) => ({
    seatNumbers: seats,
    travellers: FAMILY.map((name, index) => [name, seats[index]]),
  });

  /** A family of three booked through journeys, who chose seats 3, 2 and 1 in the quote: seated in seat order. */
  async function journeyFamily(caller: Caller) {
    const trip = await tripOf(app.db);
    const quoted = await quote(app, caller, [{ trip, assignments: ['3', '2', '1'] }], 3);
    const held = await holdJourney(app, caller, quoted.journey_id, { quote_id: quoted.quote_id });
    expect(held.status, held.text).toBe(200);
    const confirmed = await confirmJourney(app, caller, quoted.journey_id, {
      quote_id: quoted.quote_id,
      hold_batch_id: held.body.data.holdBatchId,
      travellers: FAMILY.map((name) => ({ name })),
      idempotency_key: `confirm-${randomUUID()}`,
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const bookingId = await bookingOfCompany(app.db, quoted.journey_id, trip.companyId);
    return { trip, bookingId };
  }

  /** The booking's seat labels and each traveller's seat, as GET /bookings/{id} shows them. */
  async function seatsShown(caller: Caller, bookingId: string) {
    const response = await app.request(`/api/bookings/${bookingId}`, { headers: caller.headers });
    expect(response.status, response.text).toBe(200);
    const tickets = response.body.data.tickets as { traveller_name: string; seat_number: string }[];
    return {
      seatNumbers: response.body.data.seat_numbers as string[],
      travellers: tickets.map((ticket) => [ticket.traveller_name, ticket.seat_number]),
    };
  }

  it("lists a journey family's seats in traveller order, as its tickets seat them (traveller i in seat i)", async () => {
    const caller = await mobileTraveller(app);
    const { bookingId } = await journeyFamily(caller);
    expect(await seatsShown(caller, bookingId)).toEqual(familyIn(['1', '2', '3']));
  });

  /**
   * Naming the seats each traveller already has (1, 2, 3) changes nothing: no QR code rotated, no
   * seat moved. Then Mona takes Lina's seat and Lina Mona's (3, 2, 1). What GET /bookings/{id} shows.
   */
  async function keepThenSwap(caller: Caller, tripId: string, bookingId: string) {
    const unchanged = await bookingState(app.db, bookingId);
    const same = await modifyBooking(app, caller, bookingId, moveTo(tripId, ['1', '2', '3']));
    expect(same.status, same.text).toBe(200);
    expect(await bookingState(app.db, bookingId)).toEqual(unchanged);

    const swapped = await modifyBooking(app, caller, bookingId, moveTo(tripId, ['3', '2', '1']));
    expect(swapped.status, swapped.text).toBe(200);
    return seatsShown(caller, bookingId);
  }

  it('swaps the seats of a journey family on the same trip: the i-th traveller gets the i-th seat named', async () => {
    const caller = await mobileTraveller(app);
    const { trip, bookingId } = await journeyFamily(caller);
    expect(await keepThenSwap(caller, trip.tripId, bookingId)).toEqual(familyIn(['3', '2', '1']));
  });

  it('puts the seat labels of bookings stored out of traveller order in traveller order (the release migration)', async () => {
    const caller = await mobileTraveller(app);
    const { bookingId } = await journeyFamily(caller);
    await app.db.query(`update bookings set seat_numbers = '{3,2,1}' where id = $1`, [bookingId]);
    const { booking: other } = await booked(app, caller, { seats: ['2', '1'] });
    const otherBefore = await seatsShown(caller, other.id);
    const [untouched] = await app.db.query<{ updated_at: string }>(
      'select updated_at from bookings where id = $1',
      [bookingId],
    );

    await app.db.query(BOOKING_SEAT_ORDER);

    expect(await seatsShown(caller, bookingId)).toMatchObject({ seatNumbers: ['1', '2', '3'] });
    const [after] = await app.db.query<{ updated_at: string }>(
      'select updated_at from bookings where id = $1',
      [bookingId],
    );
    expect(after!.updated_at).toEqual(untouched!.updated_at);
    // A POST /bookings booking lists its seats as its tickets do already: left as it is.
    expect(await seatsShown(caller, other.id)).toEqual(otherBefore);
  });

  it('judges a booking whose seat labels were stored out of traveller order by the seats its travellers hold', async () => {
    const caller = await mobileTraveller(app);
    const { trip, bookingId } = await journeyFamily(caller);
    // As a journey confirmation stored them before seat_numbers followed the travellers.
    await app.db.query(`update bookings set seat_numbers = '{3,2,1}' where id = $1`, [bookingId]);
    expect((await keepThenSwap(caller, trip.tripId, bookingId)).travellers).toEqual(
      familyIn(['3', '2', '1']).travellers,
    );
  });

  /** Moves a trip's times `minutes` earlier, as if that much time had passed. */
  async function bringForward(tripId: string, minutes: number) {
    await app.db.query(
      `update trip_stop_calls set departure_at = departure_at - $2 * interval '1 minute',
              arrival_at = arrival_at - $2 * interval '1 minute'
       where trip_id = $1`,
      [tripId, minutes],
    );
    await app.db.query(
      `update trips set departure_at = departure_at - $2 * interval '1 minute',
              arrival_at = arrival_at - $2 * interval '1 minute'
       where id = $1`,
      [tripId, minutes],
    );
  }

  it('answers the repeat of a move already made (its answer lost) with 200 once the new trip is within 6 hours or the booking is paid, changing nothing', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller);
    const later = await sameRouteTrip(app.db, trip, minutesFromNow(6 * 60 + 20));
    const made = await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7', '8']));
    expect(made.status, made.text).toBe(200);
    // The connection comes back 30 minutes later: the new trip now leaves within 6 hours.
    await bringForward(later.tripId, 30);

    const before = await bookingState(app.db, booking.id);
    const repeated = await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7', '8']));
    expect(repeated.status, repeated.text).toBe(200);
    expect(repeated.body.data).toMatchObject({
      id: booking.id,
      trip: expect.objectContaining({ id: later.tripId }),
    });
    expect(await bookingState(app.db, booking.id)).toEqual(before);

    // Any other change of the booking is judged as always: too close now.
    const refused = await expectRefused(
      caller,
      booking.id,
      moveTo(later.tripId, ['8', '7']),
      409,
      'DEPARTURE_TOO_CLOSE',
    );
    expect(refused.body.details).toEqual({ trip: 'CURRENT' });

    // Paid since: the repeat is still the move that was made.
    await collectCash(app.db, booking.id);
    const paid = await bookingState(app.db, booking.id);
    const again = await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7', '8']));
    expect(again.status, again.text).toBe(200);
    expect(await bookingState(app.db, booking.id)).toEqual(paid);
  });

  it('judges a request naming the booking’s own trip and seats as a move already made only when one was made and still stands', async () => {
    const caller = await mobileTraveller(app);
    // Never moved, within 6 hours (a LOST_DEVICE re-issue is no move): nothing was modified, so it is refused.
    const soon = await booked(app, caller, { departAt: minutesFromNow(5 * 60), seats: ['1'] });
    await reissueForLostDevice(caller, soon.booking.id);
    await expectRefused(caller, soon.booking.id, moveTo(soon.trip.tripId, ['1']), 409, 'DEPARTURE_TOO_CLOSE');

    // Moved, then cancelled: the move no longer stands.
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const later = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    expect((await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7']))).status).toBe(200);
    const cancelled = await cancelBooking(app, caller, booking.id);
    expect(cancelled.status, cancelled.text).toBe(200);
    const refused = await expectRefused(
      caller,
      booking.id,
      moveTo(later.tripId, ['7']),
      409,
      'BOOKING_NOT_MODIFIABLE',
    );
    expect(refused.body.details).toEqual({ status: 'CANCELLED' });
  });

  it('refuses at 5h59m before the current departure and allows at 6h01m', async () => {
    const caller = await mobileTraveller(app);
    const tooClose = await booked(app, caller, { departAt: minutesFromNow(5 * 60 + 59), seats: ['1'] });
    const target = await sameRouteTrip(app.db, tooClose.trip, minutesFromNow(48 * 60));
    const refused = await expectRefused(
      caller,
      tooClose.booking.id,
      moveTo(target.tripId, ['5']),
      409,
      'DEPARTURE_TOO_CLOSE',
    );
    expect(refused.body.details).toEqual({ trip: 'CURRENT' });

    const justFarEnough = await booked(app, caller, {
      departAt: minutesFromNow(6 * 60 + 1),
      seats: ['1'],
      trip: await sameRouteTrip(app.db, tooClose.trip, minutesFromNow(6 * 60 + 1)),
    });
    const allowed = await modifyBooking(app, caller, justFarEnough.booking.id, moveTo(target.tripId, ['6']));
    expect(allowed.status, allowed.text).toBe(200);
  });

  it('measures the 6 hours from the departure the company announced (planned plus the MARK_DELAYED delay)', async () => {
    const caller = await mobileTraveller(app);
    // Planned in 5 hours and delayed by 3: the bus leaves in 8 hours, so the booking may move.
    const w = await operationsWorld(app, { seats: 12, departAt: minutesFromNow(5 * 60) });
    const { booking } = await booked(app, caller, { trip: w.trip, seats: ['1'] });
    // Planned in 4 hours and delayed by 1: it leaves in 5 hours, still too close.
    const soon = await sameRouteTrip(app.db, w.trip, minutesFromNow(4 * 60));
    const stillClose = await booked(app, caller, { trip: soon, seats: ['1'] });
    const delay = (tripId: string, minutes: number) =>
      dispatch(app, w.dispatcher, tripId, {
        action: 'MARK_DELAYED',
        reason: 'Road closed',
        delay_minutes: minutes,
      });
    expect((await delay(w.trip.tripId, 180)).status).toBe(200);
    expect((await delay(soon.tripId, 60)).status).toBe(200);
    const later = await sameRouteTrip(app.db, w.trip, minutesFromNow(72 * 60));

    const allowed = await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['3']));
    expect(allowed.status, allowed.text).toBe(200);
    expect((await bookingState(app.db, booking.id)).booking.trip_id).toBe(later.tripId);
    const refused = await expectRefused(
      caller,
      stillClose.booking.id,
      moveTo(later.tripId, ['4']),
      409,
      'DEPARTURE_TOO_CLOSE',
    );
    expect(refused.body.details).toEqual({ trip: 'CURRENT' });
  });

  it("measures the new trip's 6 hours from the departure its company announced", async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const dispatcher = await staffSession(app.db, app.config, trip.companyId, 'DISPATCHER');
    // Planned in 5 hours and delayed by 3: the new trip leaves in 8 hours.
    const delayed = await sameRouteTrip(app.db, trip, minutesFromNow(5 * 60));
    // Planned in 4 hours and delayed by 1: it leaves in 5 hours, too close.
    const soon = await sameRouteTrip(app.db, trip, minutesFromNow(4 * 60));
    const delay = (tripId: string, minutes: number) =>
      dispatch(app, dispatcher, tripId, {
        action: 'MARK_DELAYED',
        reason: 'Road closed',
        delay_minutes: minutes,
      });
    expect((await delay(delayed.tripId, 180)).status).toBe(200);
    expect((await delay(soon.tripId, 60)).status).toBe(200);

    const refused = await expectRefused(
      caller,
      booking.id,
      moveTo(soon.tripId, ['1']),
      409,
      'DEPARTURE_TOO_CLOSE',
    );
    expect(refused.body.details).toEqual({ trip: 'NEW' });
    const allowed = await modifyBooking(app, caller, booking.id, moveTo(delayed.tripId, ['1']));
    expect(allowed.status, allowed.text).toBe(200);
    expect((await bookingState(app.db, booking.id)).booking.trip_id).toBe(delayed.tripId);
  });

  it('refuses with 409 DEPARTURE_TOO_CLOSE once the company has sent DEPART, whatever the timetable says', async () => {
    const caller = await mobileTraveller(app);
    const w = await operationsWorld(app, { seats: 12 });
    const { booking } = await booked(app, caller, { trip: w.trip, seats: ['1'] });
    const other = await sameRouteTrip(app.db, w.trip, new Date(w.trip.departAt.getTime() + 86_400_000));
    // The company runs the bus: boarding, then departure (the traveller never checked in).
    await advance(app, w.dispatcher, w.trip.tripId, 'START_BOARDING', 'DEPART');

    await expectRefused(caller, booking.id, moveTo(other.tripId, ['3']), 409, 'DEPARTURE_TOO_CLOSE');
    expect((await bookingState(app.db, booking.id)).booking).toMatchObject({
      trip_id: w.trip.tripId,
      status: 'CONFIRMED',
    });
  });

  it('refuses a new trip departing within 6 hours', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const soon = await sameRouteTrip(app.db, trip, minutesFromNow(5 * 60 + 59));
    const refused = await expectRefused(
      caller,
      booking.id,
      moveTo(soon.tripId, ['1']),
      409,
      'DEPARTURE_TOO_CLOSE',
    );
    expect(refused.body.details).toEqual({ trip: 'NEW' });
  });

  it('refuses another seat count, another company and other cities with 422', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1', '2'] });
    const sameRoute = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    await expectRefused(
      caller,
      booking.id,
      moveTo(sameRoute.tripId, ['1']),
      422,
      'MODIFICATION_CHANGES_SEAT_COUNT',
    );

    const otherCompany = await bookableTrip(app.db, {
      from: trip.from,
      to: trip.to,
      departAt: minutesFromNow(72 * 60),
    });
    await expectRefused(
      caller,
      booking.id,
      moveTo(otherCompany.tripId, ['1', '2']),
      422,
      'MODIFICATION_CHANGES_COMPANY',
    );

    const elsewhere = await createStop(app.db, (await createCity(app.db)).id);
    const otherCities = await bookableTrip(app.db, {
      companyId: trip.companyId,
      from: trip.from,
      to: elsewhere,
      departAt: minutesFromNow(72 * 60),
    });
    await expectRefused(
      caller,
      booking.id,
      moveTo(otherCities.tripId, ['1', '2']),
      422,
      'MODIFICATION_CHANGES_ROUTE',
    );

    await expectRefused(caller, booking.id, moveTo(sameRoute.tripId, ['1', '99']), 422, 'SEAT_NOT_FOUND');
  });

  it("refuses a trip that sells nothing between the booking's cities (equal fare shares stored before routes refused them) with 422", async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1', '2'] });
    const unsold = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    await app.db.query(`update trip_stop_calls set fare_share_bp = 0 where trip_id = $1`, [unsold.tripId]);
    await expectRefused(
      caller,
      booking.id,
      moveTo(unsold.tripId, ['1', '2']),
      422,
      'MODIFICATION_CHANGES_ROUTE',
    );
  });

  it('refuses a seat another booking holds with 409 SEAT_OCCUPIED', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const target = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    await createBooking(app, await mobileTraveller(app), { tripId: target.tripId, seatNumbers: ['4'] });

    const refused = await expectRefused(
      caller,
      booking.id,
      moveTo(target.tripId, ['4']),
      409,
      'SEAT_OCCUPIED',
    );
    expect(refused.body.details).toEqual({ seat_numbers: ['4'] });
  });

  it('lets exactly one of two concurrent modifications onto the same seat succeed', async () => {
    const first = await mobileTraveller(app);
    const second = await webTraveller(app);
    const a = await booked(app, first, { seats: ['1'] });
    const b = await booked(app, second, {
      seats: ['1'],
      trip: await sameRouteTrip(app.db, a.trip, minutesFromNow(50 * 60)),
    });
    const target = await sameRouteTrip(app.db, a.trip, minutesFromNow(72 * 60));

    const answers = await Promise.all([
      modifyBooking(app, first, a.booking.id, moveTo(target.tripId, ['9'])),
      modifyBooking(app, second, b.booking.id, moveTo(target.tripId, ['9'])),
    ]);

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.errorCode).toBe('SEAT_OCCUPIED');
    const [taken] = await app.db.query<{ count: number }>(
      `select count(*)::int as count from seat_allocations a
       join trips t on t.id = a.trip_id join bus_layouts bl on bl.bus_id = t.bus_id and bl.status = 'active'
       join layout_seats ls on ls.layout_id = bl.id and ls.seat_id = a.seat_id
       where a.trip_id = $1 and ls.seat_number = '9' and a.status in ('HELD', 'CONFIRMED')`,
      [target.tripId],
    );
    expect(taken!.count).toBe(1);
    // The loser keeps its original seat.
    const loser = answers[0].status === 409 ? a : b;
    expect(await liveSeatLabels(app.db, loser.booking.id, loser.trip.tripId)).toEqual(['1']);
  });

  it('refuses a paid booking with 409 BOOKING_ALREADY_PAID', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    await collectCash(app.db, booking.id);
    const target = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    await expectRefused(caller, booking.id, moveTo(target.tripId, ['1']), 409, 'BOOKING_ALREADY_PAID');
  });

  it('refuses a checked-in or cancelled booking with 409 BOOKING_NOT_MODIFIABLE', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const target = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    await app.db.query(`update bookings set status = 'CHECKED_IN' where id = $1`, [booking.id]);
    await expectRefused(caller, booking.id, moveTo(target.tripId, ['1']), 409, 'BOOKING_NOT_MODIFIABLE');
    await app.db.query(`update bookings set status = 'CANCELLED' where id = $1`, [booking.id]);
    await expectRefused(caller, booking.id, moveTo(target.tripId, ['1']), 409, 'BOOKING_NOT_MODIFIABLE');
  });

  it('refuses one booking of a journey order of several with 409 JOURNEY_AGGREGATE_OPERATION_REQUIRED', async () => {
    const caller = await mobileTraveller(app);
    const a = await booked(app, caller, { seats: ['1'] });
    const b = await booked(app, caller, {
      seats: ['1'],
      trip: await sameRouteTrip(app.db, a.trip, minutesFromNow(50 * 60)),
    });
    const [order] = await app.db.query<{ id: string }>(
      `insert into journey_orders (id, owner_user_id, status) values (gen_random_uuid(), $1, 'CONFIRMED') returning id`,
      [caller.userId],
    );
    await app.db.query(`update journeys set order_id = $1 where id = any($2::uuid[])`, [
      order!.id,
      [a.booking.journey_id, b.booking.journey_id],
    ]);
    const target = await sameRouteTrip(app.db, a.trip, minutesFromNow(72 * 60));
    await expectRefused(
      caller,
      a.booking.id,
      moveTo(target.tripId, ['1']),
      409,
      'JOURNEY_AGGREGATE_OPERATION_REQUIRED',
    );
  });

  it("answers 404 BOOKING_NOT_FOUND for another traveller's booking and changes nothing", async () => {
    const owner = await mobileTraveller(app);
    const { trip, booking } = await booked(app, owner, { seats: ['1'] });
    const target = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    await expectRefused(
      await mobileTraveller(app),
      booking.id,
      moveTo(target.tripId, ['1']),
      404,
      'BOOKING_NOT_FOUND',
    );
  });

  it('refuses a cookie session without X-CSRF-Token with 403 and changes nothing', async () => {
    const caller = await webTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const target = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    const { 'X-CSRF-Token': _csrf, ...withoutCsrf } = caller.headers;
    await expectRefused(
      { ...caller, headers: withoutCsrf },
      booking.id,
      moveTo(target.tripId, ['1']),
      403,
      'CSRF_TOKEN_INVALID',
    );
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1', '2'] });
    const bad: Record<string, unknown>[] = [
      { action: 'cancel', newTripId: trip.tripId, newSeatNumbers: ['1', '2'] },
      { action: 'modify', newTripId: 'not-a-uuid', newSeatNumbers: ['1', '2'] },
      { action: 'modify', newTripId: trip.tripId, newSeatNumbers: [] },
      { action: 'modify', newTripId: trip.tripId, newSeatNumbers: ['3', '3'] },
      { action: 'modify', newTripId: trip.tripId, newSeatNumbers: ['3', '4'], extra: true },
      { action: 'modify', newTripId: trip.tripId },
    ];
    for (const body of bad) await expectRefused(caller, booking.id, body, 400, 'VALIDATION_FAILED');
  });

  /** A confirmation share of the booking the recipient accepted (and viewed), and one left unaccepted. */
  async function sharedConfirmation(caller: Caller, bookingId: string) {
    const share = () =>
      createShare(app, caller.headers, {
        bookingId,
        documentKind: 'BOOKING_CONFIRMATION',
        presentation: 'DOWNLOAD',
      });
    const created = await share();
    expect(created.response.status, created.response.text).toBe(201);
    const { cookie } = await acceptShare(app, created.grantId, created.secret);
    expect((await sharedDocument(app, created.grantId, cookie)).status).toBe(200);
    const unaccepted = await share();
    return { accepted: created.grantId, cookie, unaccepted: unaccepted.grantId };
  }

  it("ends the live shares of the confirmation it replaced: the recipient gets 410, never the new trip's seats or QR codes", async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const shares = await sharedConfirmation(caller, booking.id);
    const later = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));

    const moved = await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7']));

    expect(moved.status, moved.text).toBe(200);
    const document = await sharedDocument(app, shares.accepted, shares.cookie);
    expect([document.status, document.body?.errorCode]).toEqual([410, 'SHARE_REVOKED']);
    const session = await recipientSession(app, shares.accepted, shares.cookie);
    expect([session.status, session.body.errorCode]).toEqual([410, 'SHARE_REVOKED']);
    expect((await grantRow(app, shares.unaccepted))!.status).toBe('REVOKED');
    // The owner's own confirmation shows the new trip, seat and QR code.
    const own = await fetchDocument(
      app,
      `/api/bookings/${booking.id}/document?type=confirmation&locale=en`,
      caller.headers,
    );
    expect(own.status).toBe(200);
    const payloads = decodeQrCodes(own.bytes).map((code) => JSON.parse(code).payload);
    expect(payloads).toEqual([expect.objectContaining({ tripId: later.tripId, seatNumber: '7' })]);

    // A share made after the move is the new confirmation's: a repeat of the move leaves it.
    const fresh = await createShare(app, caller.headers, {
      bookingId: booking.id,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });
    expect(fresh.response.status).toBe(201);
    expect((await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7']))).status).toBe(200);
    expect((await grantRow(app, fresh.grantId))!.status).toBe('CREATED');
  });

  it("a credential reported leaked from a ticket the move replaced still ends the moved booking's shares", async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const later = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    const [old] = (await bookingState(app.db, booking.id)).tickets;
    expect((await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7']))).status).toBe(200);
    const shares = await sharedConfirmation(caller, booking.id);

    const leaked = await app.request('/api/tickets', {
      method: 'POST',
      headers: caller.headers,
      json: { ticket_id: old!.id, reason: 'CREDENTIAL_LEAKED' },
    });

    // The old ticket cannot be re-issued again, but the shares end even so (as for any leak).
    expect([leaked.status, leaked.body.errorCode]).toEqual([409, 'TICKET_NOT_VALID']);
    const document = await sharedDocument(app, shares.accepted, shares.cookie);
    expect([document.status, document.body?.errorCode]).toEqual([410, 'SHARE_REVOKED']);
    expect((await grantRow(app, shares.unaccepted))!.status).toBe('REVOKED');
  });

  it('keeps the shares when the move is refused', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const shares = await sharedConfirmation(caller, booking.id);
    const soon = await sameRouteTrip(app.db, trip, minutesFromNow(5 * 60));

    await expectRefused(caller, booking.id, moveTo(soon.tripId, ['7']), 409, 'DEPARTURE_TOO_CLOSE');

    expect((await sharedDocument(app, shares.accepted, shares.cookie)).status).toBe(200);
    expect((await grantRow(app, shares.unaccepted))!.status).toBe('CREATED');
  });

  /** A share of the booking's confirmation, and the traveller's re-issue of its current ticket for a lost device. */
  const shareConfirmation = async (caller: Caller, bookingId: string) => {
    const share = await createShare(app, caller.headers, {
      bookingId,
      documentKind: 'BOOKING_CONFIRMATION',
      presentation: 'VIEW',
    });
    expect(share.response.status, share.response.text).toBe(201);
    return share.grantId;
  };
  const reissueForLostDevice = async (caller: Caller, bookingId: string) => {
    const [current] = (await bookingState(app.db, bookingId)).tickets.filter((t) => t.status !== 'REISSUED');
    const reissued = await app.request('/api/tickets', {
      method: 'POST',
      headers: caller.headers,
      json: { ticket_id: current!.id, reason: 'LOST_DEVICE' },
    });
    expect(reissued.status, reissued.text).toBeLessThan(300);
  };

  it('keeps a share made after the move when the move is repeated after a LOST_DEVICE re-issue', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const later = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    expect((await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7']))).status).toBe(200);
    const fresh = await shareConfirmation(caller, booking.id);
    await reissueForLostDevice(caller, booking.id);

    const repeated = await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7']));

    expect(repeated.status, repeated.text).toBe(200);
    expect((await grantRow(app, fresh))!.status).toBe('CREATED');
  });

  it('ends no share of a booking never moved: a PATCH naming its own trip and seats after a LOST_DEVICE re-issue', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const share = await shareConfirmation(caller, booking.id);
    await reissueForLostDevice(caller, booking.id);

    const same = await modifyBooking(app, caller, booking.id, moveTo(trip.tripId, ['1']));

    expect(same.status, same.text).toBe(200);
    expect((await grantRow(app, share))!.status).toBe('CREATED');
  });

  it('answers 503 SHARE_UNAVAILABLE, the move made, when sharing cannot end the shares; a repeat ends them', async () => {
    const caller = await mobileTraveller(app);
    const { trip, booking } = await booked(app, caller, { seats: ['1'] });
    const shares = await sharedConfirmation(caller, booking.id);
    const later = await sameRouteTrip(app.db, trip, minutesFromNow(72 * 60));
    // A real Temporal client whose server is gone (nothing listens on that port).
    const unreachable = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
    const context = appContext({
      config: app.config,
      db: app.db,
      temporal: app.temporal,
      logger: createLogger(app.config, 'test'),
    });
    const sharing = { ...documentSharing(context), workflow: shareGrantClient(unreachable, app.config) };

    const failed = await modifyOwnBooking(
      sharing,
      { userId: caller.userId, scope: { kind: 'PRODUCTION' }, channel: caller.channel },
      { bookingId: booking.id, newTripId: later.tripId, newSeatNumbers: ['7'] },
      { signing: { privateKeyPem: app.config.SIGNING_PRIVATE_KEY_PEM } },
    ).catch((error: unknown) => error);

    expect(failed).toMatchObject({ status: 503, code: 'SHARE_UNAVAILABLE' });
    expect((await bookingState(app.db, booking.id)).legs).toEqual([
      expect.objectContaining({ trip_id: later.tripId }),
    ]);
    expect((await grantRow(app, shares.accepted))!.status).toBe('ACCEPTED');
    const repeated = await modifyBooking(app, caller, booking.id, moveTo(later.tripId, ['7']));
    expect(repeated.status, repeated.text).toBe(200);
    const document = await sharedDocument(app, shares.accepted, shares.cookie);
    expect([document.status, document.body?.errorCode]).toEqual([410, 'SHARE_REVOKED']);
    expect((await grantRow(app, shares.unaccepted))!.status).toBe('REVOKED');
  }, 60_000);
});
