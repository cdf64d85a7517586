import { describe, expect, it } from 'vitest';
import {
  cancellationDecision,
  departsMoreThan,
  modificationAlreadyMade,
  modificationRefusal,
  repeatOfMadeModification,
  repricedAmounts,
  settledByTravel,
  targetRefusal,
  type BookingFacts,
} from './booking-rules.js';

const now = new Date('2026-12-01T08:00:00Z');
const minutesFromNow = (minutes: number) => new Date(now.getTime() + minutes * 60_000);

const booking = (overrides: Partial<BookingFacts> = {}): BookingFacts => ({
  status: 'CONFIRMED',
  paymentStatus: 'UNPAID',
  departureAt: minutesFromNow(24 * 60),
  tripStatus: 'SCHEDULED',
  checkedIn: false,
  partOfAggregate: false,
  imported: false,
  ...overrides,
});

const route = { companyId: 'c1', originCityId: 'damascus', destinationCityId: 'aleppo', seatCount: 2 };
const target = (overrides: Partial<Parameters<typeof targetRefusal>[1]> = {}) => ({
  ...route,
  departureAt: minutesFromNow(48 * 60),
  plannedDepartureAt: minutesFromNow(48 * 60),
  bookable: true,
  ...overrides,
});

describe('departsMoreThan', () => {
  it('needs strictly more than the given minutes', () => {
    expect(departsMoreThan(minutesFromNow(361), now, 360)).toBe(true);
    expect(departsMoreThan(minutesFromNow(360), now, 360)).toBe(false);
    expect(departsMoreThan(minutesFromNow(359), now, 360)).toBe(false);
  });
});

describe('modificationRefusal', () => {
  it('allows an unpaid confirmed booking departing more than 6 hours from now', () => {
    expect(modificationRefusal(booking({ departureAt: minutesFromNow(361) }), now)).toBeNull();
  });

  it('refuses 5h59m before departure with DEPARTURE_TOO_CLOSE', () => {
    expect(modificationRefusal(booking({ departureAt: minutesFromNow(359) }), now)?.code).toBe(
      'DEPARTURE_TOO_CLOSE',
    );
  });

  it('refuses with DEPARTURE_TOO_CLOSE once the trip has departed, whatever its timetable says', () => {
    for (const tripStatus of ['DEPARTED', 'ARRIVED', 'COMPLETED'] as const) {
      expect(modificationRefusal(booking({ tripStatus }), now)).toMatchObject({
        status: 409,
        code: 'DEPARTURE_TOO_CLOSE',
        details: { trip: 'CURRENT' },
      });
    }
    expect(modificationRefusal(booking({ tripStatus: 'BOARDING' }), now)).toBeNull();
    expect(modificationRefusal(booking({ tripStatus: 'DELAYED' }), now)).toBeNull();
  });

  it('refuses a paid, checked-in, awaiting, cancelled, shared or imported booking', () => {
    const codeOf = (facts: Partial<BookingFacts>) => modificationRefusal(booking(facts), now)?.code;
    expect(codeOf({ paymentStatus: 'PAID' })).toBe('BOOKING_ALREADY_PAID');
    expect(codeOf({ checkedIn: true })).toBe('BOOKING_NOT_MODIFIABLE');
    expect(codeOf({ status: 'CHECKED_IN' })).toBe('BOOKING_NOT_MODIFIABLE');
    expect(codeOf({ status: 'CANCELLED' })).toBe('BOOKING_NOT_MODIFIABLE');
    expect(codeOf({ status: 'PENDING_CONFIRMATION' })).toBe('BOOKING_AWAITING_COMPANY');
    expect(codeOf({ partOfAggregate: true })).toBe('JOURNEY_AGGREGATE_OPERATION_REQUIRED');
    expect(codeOf({ imported: true })).toBe('BOOKING_NOT_MODIFIABLE');
  });
});

describe('targetRefusal', () => {
  it('accepts a trip of the same company between the same cities with as many seats', () => {
    expect(targetRefusal(route, target(), now)).toBeNull();
  });

  it('names the rule a new trip breaks', () => {
    const codeOf = (overrides: Parameters<typeof target>[0]) => targetRefusal(route, target(overrides), now);
    expect(codeOf({ seatCount: 3 })).toMatchObject({ status: 422, code: 'MODIFICATION_CHANGES_SEAT_COUNT' });
    expect(codeOf({ companyId: 'c2' })).toMatchObject({ status: 422, code: 'MODIFICATION_CHANGES_COMPANY' });
    expect(codeOf({ destinationCityId: 'homs' })).toMatchObject({
      status: 422,
      code: 'MODIFICATION_CHANGES_ROUTE',
    });
    expect(codeOf({ bookable: false })).toMatchObject({ status: 409, code: 'TRIP_NOT_BOOKABLE' });
    // Delayed 10 hours, planned a minute ago: it sells no more, whatever the announced departure.
    const delayedPastPlan = { plannedDepartureAt: minutesFromNow(-1), departureAt: minutesFromNow(599) };
    expect(codeOf(delayedPastPlan)).toMatchObject({ status: 409, code: 'TRIP_NOT_BOOKABLE' });
    expect(codeOf({ plannedDepartureAt: now })?.code).toBe('TRIP_NOT_BOOKABLE');
    // On time and already gone: the 6-hour rule's answer, as before the planned departure was read.
    const goneOnTime = { plannedDepartureAt: minutesFromNow(-1), departureAt: minutesFromNow(-1) };
    expect(codeOf(goneOnTime)).toMatchObject({ code: 'DEPARTURE_TOO_CLOSE', details: { trip: 'NEW' } });
    expect(codeOf({ plannedDepartureAt: minutesFromNow(1), departureAt: minutesFromNow(601) })).toBeNull();
    expect(codeOf({ departureAt: minutesFromNow(359) })).toMatchObject({
      status: 409,
      code: 'DEPARTURE_TOO_CLOSE',
      details: { trip: 'NEW' },
    });
  });
});

describe('cancellationDecision', () => {
  it('allows an unpaid confirmed booking before the cut-off', () => {
    expect(cancellationDecision(booking({ departureAt: minutesFromNow(121) }), now, 120)).toBeNull();
  });

  it('answers ALREADY_CANCELLED for a cancelled booking, so a repeat is harmless', () => {
    expect(cancellationDecision(booking({ status: 'CANCELLED', paymentStatus: 'PAID' }), now, 120)).toBe(
      'ALREADY_CANCELLED',
    );
  });

  it('refuses at the cut-off and after it', () => {
    const decision = cancellationDecision(booking({ departureAt: minutesFromNow(120) }), now, 120);
    expect(decision).toMatchObject({ code: 'CANCELLATION_TOO_LATE', details: { cutoff_minutes: 120 } });
  });

  it('refuses with CANCELLATION_TOO_LATE once the trip has departed, even with a cut-off of 0', () => {
    const decision = cancellationDecision(booking({ tripStatus: 'DEPARTED' }), now, 0);
    expect(decision).toMatchObject({
      status: 409,
      code: 'CANCELLATION_TOO_LATE',
      details: { cutoff_minutes: 0 },
    });
    expect(cancellationDecision(booking({ tripStatus: 'BOARDING' }), now, 0)).toBeNull();
  });

  it('refuses paid, checked-in, completed and awaiting bookings, not shared ones', () => {
    const codeOf = (facts: Partial<BookingFacts>) => {
      const decision = cancellationDecision(booking(facts), now, 120);
      return typeof decision === 'object' ? decision?.code : decision;
    };
    expect(codeOf({ paymentStatus: 'PAID' })).toBe('BOOKING_ALREADY_PAID');
    expect(codeOf({ status: 'CHECKED_IN' })).toBe('BOOKING_NOT_CANCELLABLE');
    expect(codeOf({ status: 'COMPLETED' })).toBe('BOOKING_NOT_CANCELLABLE');
    expect(codeOf({ checkedIn: true })).toBe('BOOKING_NOT_CANCELLABLE');
    expect(codeOf({ status: 'PENDING_CONFIRMATION' })).toBe('BOOKING_AWAITING_COMPANY');
    // The text and the details name the same status (a completed booking's ticket was used too).
    for (const [facts, status] of [
      [{ status: 'COMPLETED', checkedIn: true }, 'COMPLETED'],
      [{ checkedIn: true }, 'CHECKED_IN'],
    ] as const) {
      expect(cancellationDecision(booking(facts), now, 120)).toMatchObject({
        message: `A ${status} booking cannot be cancelled`,
        details: { status },
      });
    }
    // A booking of a round trip or a connection is judged on its own facts (its aggregate ends with it).
    expect(codeOf({ partOfAggregate: true })).toBeUndefined();
  });
});

describe('settledByTravel', () => {
  it('settles a travelled booking or one whose bus has left, not one still ahead', () => {
    for (const status of ['CHECKED_IN', 'NO_SHOW', 'COMPLETED'] as const) {
      expect(settledByTravel(booking({ status }), now)).toBe(true);
    }
    for (const tripStatus of ['DEPARTED', 'ARRIVED', 'COMPLETED'] as const) {
      expect(settledByTravel(booking({ tripStatus }), now)).toBe(true);
    }
    // The announced departure passed without a DEPART, as the unpaid-bookings cap reads it.
    expect(settledByTravel(booking({ departureAt: now }), now)).toBe(true);
    // Past its cut-off but not gone: all or nothing still holds for it.
    expect(settledByTravel(booking({ departureAt: minutesFromNow(1), tripStatus: 'BOARDING' }), now)).toBe(
      false,
    );
    // A ticket of its journey used on another leg of a connection: this leg has not travelled.
    expect(settledByTravel(booking({ checkedIn: true }), now)).toBe(false);
    expect(settledByTravel(booking({ paymentStatus: 'PAID' }), now)).toBe(false);
  });
});

describe('repricedAmounts', () => {
  it('keeps the granted discount', () => {
    expect(repricedAmounts(30_000, 5_000)).toEqual({ subtotal: 30_000, discount: 5_000, total: 25_000 });
  });

  it('caps the discount at the new subtotal, never below zero to pay', () => {
    expect(repricedAmounts(4_000, 5_000)).toEqual({ subtotal: 4_000, discount: 4_000, total: 0 });
  });
});

describe('a modification already made', () => {
  it('is the same trip with the same seats in the same order', () => {
    const current = { tripId: 't1', seatNumbers: ['1', '2'] };
    expect(modificationAlreadyMade(current, { tripId: 't1', seatNumbers: ['1', '2'] })).toBe(true);
    expect(modificationAlreadyMade(current, { tripId: 't1', seatNumbers: ['2', '1'] })).toBe(false);
    expect(modificationAlreadyMade(current, { tripId: 't2', seatNumbers: ['1', '2'] })).toBe(false);
    expect(modificationAlreadyMade(current, { tripId: 't1', seatNumbers: ['1'] })).toBe(false);
  });

  it('is repeated, whatever the booking’s state now, only for a booking moved there whose move still stands', () => {
    const moved = { tripId: 't1', seatNumbers: ['1', '2'], status: 'CONFIRMED' as const, moved: true };
    const asked = { tripId: 't1', seatNumbers: ['1', '2'] };
    expect(repeatOfMadeModification(moved, asked)).toBe(true);
    for (const status of ['CHECKED_IN', 'NO_SHOW', 'COMPLETED'] as const)
      expect(repeatOfMadeModification({ ...moved, status }, asked)).toBe(true);
    for (const status of ['CANCELLED', 'EXPIRED', 'HELD', 'PENDING_CONFIRMATION'] as const)
      expect(repeatOfMadeModification({ ...moved, status }, asked)).toBe(false);
    expect(repeatOfMadeModification({ ...moved, moved: false }, asked)).toBe(false);
    expect(repeatOfMadeModification(moved, { tripId: 't1', seatNumbers: ['2', '1'] })).toBe(false);
    expect(repeatOfMadeModification(moved, { tripId: 't2', seatNumbers: ['1', '2'] })).toBe(false);
  });
});

describe('a new trip that does not call at the booking’s cities', () => {
  it('is refused with MODIFICATION_CHANGES_ROUTE after the other target rules', () => {
    expect(targetRefusal(route, target({ callsAtBookingCities: false }), now)).toMatchObject({
      status: 422,
      code: 'MODIFICATION_CHANGES_ROUTE',
    });
    expect(targetRefusal(route, target({ callsAtBookingCities: false, bookable: false }), now)?.code).toBe(
      'TRIP_NOT_BOOKABLE',
    );
    expect(targetRefusal(route, target({ callsAtBookingCities: true }), now)).toBeNull();
  });
});
