import { describe, expect, it } from 'vitest';
import { scanRefusal, type ScanFacts } from './boarding-scan.js';
import {
  allowedActions,
  attendanceCounters,
  attendanceStep,
  compareManifestPlaces,
  dispatchTableMarkdown,
  readinessBlockers,
  refuseUnready,
  tripStep,
  TRIP_ACTIONS,
  TRIP_STATUSES,
  type ReadinessFacts,
  type TravellerState,
  type TripAction,
  type TripStatus,
} from './trip-dispatch.js';
import { plausibleClientInstant, reportAgeSeconds, trackingState } from './trip-tracking.js';

const codeOf = (work: () => unknown): string | null => {
  try {
    work();
    return null;
  } catch (error) {
    return (error as { code: string }).code;
  }
};

/** The whole table as the operations room must answer it: the next status, a replay, or refused. */
const EXPECTED: Record<TripStatus, Partial<Record<TripAction, TripStatus | 'REPLAY'>>> = {
  SCHEDULED: { START_BOARDING: 'BOARDING', MARK_DELAYED: 'DELAYED', CANCEL: 'CANCELLED' },
  BOARDING: { MARK_DELAYED: 'DELAYED', DEPART: 'DEPARTED', CANCEL: 'CANCELLED' },
  DELAYED: { START_BOARDING: 'BOARDING', MARK_DELAYED: 'DELAYED', CANCEL: 'CANCELLED' },
  DEPARTED: { ARRIVE: 'ARRIVED' },
  ARRIVED: { COMPLETE: 'COMPLETED' },
  COMPLETED: { COMPLETE: 'REPLAY' },
  CANCELLED: {},
};

describe('the trip state machine', () => {
  for (const status of TRIP_STATUSES) {
    for (const action of TRIP_ACTIONS) {
      const expected = EXPECTED[status][action];
      it(`${action} from ${status}: ${expected ?? 'refused'}`, () => {
        if (!expected) {
          expect(codeOf(() => tripStep(status, action))).toBe('TRIP_ACTION_NOT_ALLOWED');
          return;
        }
        expect(tripStep(status, action)).toEqual(
          expected === 'REPLAY' ? { kind: 'REPLAY' } : { kind: 'TRANSITION', to: expected },
        );
      });
    }
  }

  it('names the current status and the allowed actions when it refuses', () => {
    try {
      tripStep('DEPARTED', 'CANCEL');
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({
        status: 409,
        details: {
          status: 'DEPARTED',
          action: 'CANCEL',
          allowedActions: ['ARRIVE', 'CHECK_IN', 'MARK_NO_SHOW', 'RESTORE'],
        },
      });
    }
  });

  it('allows traveller actions only while the trip boards or runs', () => {
    expect(allowedActions('SCHEDULED')).toEqual(['START_BOARDING', 'MARK_DELAYED', 'CANCEL']);
    expect(allowedActions('BOARDING')).toContain('CHECK_IN');
    expect(allowedActions('ARRIVED')).toEqual(['COMPLETE', 'CHECK_IN', 'MARK_NO_SHOW', 'RESTORE']);
    expect(allowedActions('COMPLETED')).toEqual([]);
    expect(allowedActions('CANCELLED')).toEqual([]);
  });

  it('writes the table for the API reference', () => {
    const table = dispatchTableMarkdown();
    expect(table).toContain('| SCHEDULED | → BOARDING | → DELAYED | — | — | — | → CANCELLED | — |');
    expect(table).toContain('| COMPLETED | — | — | — | — | replay | — | — |');
  });
});

describe('traveller attendance', () => {
  const traveller = (state: Partial<TravellerState> = {}): TravellerState => ({
    attendance: 'PENDING',
    boardable: true,
    status: 'VALID',
    refunded: false,
    ...state,
  });

  it('checks in, marks a no-show and restores the same traveller', () => {
    expect(attendanceStep('BOARDING', 'CHECK_IN', traveller())).toBe('CHECKED_IN');
    expect(attendanceStep('DEPARTED', 'MARK_NO_SHOW', traveller())).toBe('NO_SHOW');
    expect(attendanceStep('BOARDING', 'RESTORE', traveller({ attendance: 'NO_SHOW' }))).toBe('PENDING');
    expect(
      attendanceStep('ARRIVED', 'RESTORE', traveller({ attendance: 'CHECKED_IN', status: 'USED' })),
    ).toBe('PENDING');
  });

  it('answers a second check-in with who and when', () => {
    const checkedIn = {
      at: '2026-11-24T06:00:00.000Z',
      byStaffUserId: 'u',
      byName: 'Driver',
      source: 'DRIVER_APP',
    };
    try {
      attendanceStep('BOARDING', 'CHECK_IN', traveller({ attendance: 'CHECKED_IN', checkedIn }));
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ status: 409, code: 'ALREADY_CHECKED_IN', details: { checkedIn } });
    }
  });

  it('refuses what the table does not allow', () => {
    expect(codeOf(() => attendanceStep('SCHEDULED', 'CHECK_IN', traveller()))).toBe(
      'TRIP_ACTION_NOT_ALLOWED',
    );
    expect(codeOf(() => attendanceStep('COMPLETED', 'RESTORE', traveller()))).toBe('TRIP_ACTION_NOT_ALLOWED');
    expect(codeOf(() => attendanceStep('BOARDING', 'CHECK_IN', traveller({ attendance: 'NO_SHOW' })))).toBe(
      'TRAVELLER_MARKED_NO_SHOW',
    );
    expect(codeOf(() => attendanceStep('BOARDING', 'RESTORE', traveller()))).toBe('ATTENDANCE_CONFLICT');
    expect(
      codeOf(() => attendanceStep('BOARDING', 'MARK_NO_SHOW', traveller({ attendance: 'CHECKED_IN' }))),
    ).toBe('ATTENDANCE_CONFLICT');
    expect(
      codeOf(() =>
        attendanceStep(
          'BOARDING',
          'CHECK_IN',
          traveller({ boardable: false, status: 'PENDING_CONFIRMATION' }),
        ),
      ),
    ).toBe('TICKET_NOT_BOARDABLE');
  });

  it('readmits no refunded traveller: CHECK_IN and RESTORE are 409 TRAVELLER_REFUNDED, MARK_NO_SHOW is taken', () => {
    const refunded = (state: Partial<TravellerState> = {}) => traveller({ refunded: true, ...state });
    for (const attendance of ['NO_SHOW', 'CHECKED_IN'] as const) {
      expect(codeOf(() => attendanceStep('BOARDING', 'RESTORE', refunded({ attendance })))).toBe(
        'TRAVELLER_REFUNDED',
      );
    }
    expect(codeOf(() => attendanceStep('BOARDING', 'CHECK_IN', refunded({ attendance: 'NO_SHOW' })))).toBe(
      'TRAVELLER_REFUNDED',
    );
    expect(codeOf(() => attendanceStep('DEPARTED', 'CHECK_IN', refunded()))).toBe('TRAVELLER_REFUNDED');
    expect(attendanceStep('DEPARTED', 'MARK_NO_SHOW', refunded())).toBe('NO_SHOW');
  });

  it('counts the manifest', () => {
    expect(
      attendanceCounters([
        { attendance: 'CHECKED_IN', awaitingConfirmation: false },
        { attendance: 'NO_SHOW', awaitingConfirmation: false },
        { attendance: 'PENDING', awaitingConfirmation: true },
        { attendance: 'PENDING', awaitingConfirmation: false },
      ]),
    ).toEqual({ total: 4, checkedIn: 1, noShow: 1, pending: 2, awaitingConfirmation: 1 });
  });
});

describe('readiness', () => {
  const ready: ReadinessFacts = {
    driverAssigned: true,
    driverActive: true,
    layoutActive: true,
    busInService: true,
    cashToCollect: 0,
    requestsPending: 0,
    busOnAnotherTrip: false,
    driverOnAnotherTrip: false,
  };

  it('has no blocker for a trip with a driver, a layout, a bus in service and nothing owed', () => {
    expect(readinessBlockers(ready)).toEqual([]);
  });

  it('stops boarding and departure without a driver or a layout, and departure with cash to collect', () => {
    const blockers = readinessBlockers({
      ...ready,
      driverAssigned: false,
      layoutActive: false,
      cashToCollect: 2,
    });
    expect(blockers.map((blocker) => blocker.code)).toEqual([
      'DRIVER_NOT_ASSIGNED',
      'LAYOUT_NOT_ACTIVE',
      'CASH_TO_COLLECT',
    ]);
    expect(codeOf(() => refuseUnready('SCHEDULED', 'START_BOARDING', blockers))).toBe('TRIP_NOT_READY');
    expect(codeOf(() => refuseUnready('SCHEDULED', 'CANCEL', blockers))).toBeNull();
    expect(allowedActions('BOARDING', blockers)).not.toContain('DEPART');
  });

  it('tells an assigned but inactive driver apart, and pending requests', () => {
    const blockers = readinessBlockers({
      ...ready,
      driverActive: false,
      requestsPending: 1,
      busInService: false,
    });
    expect(blockers.map((blocker) => [blocker.code, blocker.blocks])).toEqual([
      ['DRIVER_INACTIVE', ['START_BOARDING', 'DEPART']],
      ['BUS_OUT_OF_SERVICE', ['START_BOARDING', 'DEPART']],
      ['REQUESTS_PENDING', ['DEPART']],
    ]);
  });
});

describe('tracking and client clocks', () => {
  const now = new Date('2026-11-24T10:00:00Z');
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);

  it('classes the last report live, delayed or unavailable', () => {
    expect(trackingState(ago(30), now)).toBe('LIVE');
    expect(trackingState(ago(119), now)).toBe('LIVE');
    expect(trackingState(ago(120), now)).toBe('DELAYED');
    expect(trackingState(ago(1800), now)).toBe('DELAYED');
    expect(trackingState(ago(1801), now)).toBe('UNAVAILABLE');
    expect(trackingState(null, now)).toBe('UNAVAILABLE');
  });

  it('judges the state on the whole seconds the answer shows as age_seconds', () => {
    for (const seconds of [119.6, 120.4, 1800.4, 1800.9, 1801.2]) {
      const age = reportAgeSeconds(ago(seconds), now);
      const state = trackingState(ago(seconds), now);
      expect([seconds, age, state]).toEqual([seconds, age, trackingState(ago(age), now)]);
    }
    expect([reportAgeSeconds(ago(119.6), now), trackingState(ago(119.6), now)]).toEqual([119, 'LIVE']);
    expect([reportAgeSeconds(ago(1800.4), now), trackingState(ago(1800.4), now)]).toEqual([1800, 'DELAYED']);
  });

  it('believes a client instant a little ahead or up to two days behind', () => {
    expect(plausibleClientInstant(ago(-240), now)).toBe(true);
    expect(plausibleClientInstant(ago(-600), now)).toBe(false);
    expect(plausibleClientInstant(ago(47 * 3600), now)).toBe(true);
    expect(plausibleClientInstant(ago(49 * 3600), now)).toBe(false);
  });
});

describe('a scan at the door', () => {
  const facts = (
    ticket: Partial<NonNullable<ScanFacts['ticket']>> = {},
    more: Partial<ScanFacts> = {},
  ): ScanFacts => ({
    keyKnown: true,
    signatureValid: true,
    payloadTripId: 'trip',
    scanningTripId: 'trip',
    presentedSignature: 'sig',
    ticket: {
      status: 'VALID',
      boardingAuthorized: true,
      revoked: false,
      signature: 'sig',
      expired: false,
      ...ticket,
    },
    ...more,
  });

  it('lets a valid or used ticket through to the check-in, which tells them apart', () => {
    expect(scanRefusal(facts())).toBeNull();
    expect(scanRefusal(facts({ status: 'USED' }))).toBeNull();
  });

  it('refuses with the reason, in order', () => {
    expect(scanRefusal(facts({}, { keyKnown: false, signatureValid: false }))).toBe('UNKNOWN_KEY');
    expect(scanRefusal(facts({}, { signatureValid: false }))).toBe('SIGNATURE_INVALID');
    expect(scanRefusal(facts({}, { payloadTripId: 'other' }))).toBe('WRONG_TRIP');
    expect(scanRefusal(facts({}, { ticket: undefined }))).toBe('TICKET_NOT_FOUND');
    expect(scanRefusal(facts({ status: 'REISSUED', revoked: true }))).toBe('TICKET_REISSUED');
    expect(scanRefusal(facts({ signature: 'newer' }))).toBe('TICKET_REISSUED');
    expect(scanRefusal(facts({ status: 'CANCELLED', revoked: true }))).toBe('TICKET_CANCELLED');
    expect(scanRefusal(facts({ revoked: true }))).toBe('REVOKED');
    expect(scanRefusal(facts({ status: 'PENDING_CONFIRMATION', boardingAuthorized: false }))).toBe(
      'TICKET_NOT_CONFIRMED',
    );
    expect(scanRefusal(facts({ expired: true }))).toBe('EXPIRED');
    expect(scanRefusal(facts({ expired: true, revoked: true }))).toBe('REVOKED');
  });

  it('lets a used ticket of a leg that is over through, to be answered ALREADY_CHECKED_IN', () => {
    expect(scanRefusal(facts({ status: 'USED', expired: true }))).toBeNull();
  });
});

describe('the manifest order', () => {
  const place = (
    seatNumber: string,
    more: { deck?: number; boardingSequence?: number; itemId?: string } = {},
  ) => ({
    boardingSequence: more.boardingSequence ?? 0,
    deck: more.deck ?? 1,
    seatNumber,
    itemId: more.itemId ?? seatNumber,
  });
  const order = (places: ReturnType<typeof place>[]) =>
    [...places]
      .sort(compareManifestPlaces)
      .map((p) => `${p.boardingSequence}/${p.deck}/${p.seatNumber}/${p.itemId}`);

  it("lists seats by the label's number, not as text: 1, 1A, 2, 10, 12B, then lettered labels", () => {
    expect(
      order(['10', 'VIP1', '2', 'A10', '12B', '1A', 'A2', '1', 'VIP10', 'VIP2'].map((s) => place(s))),
    ).toEqual(
      ['1', '1A', '2', '10', '12B', 'A2', 'A10', 'VIP1', 'VIP2', 'VIP10'].map((s) => `0/1/${s}/${s}`),
    );
  });

  it('keeps boarding stops first, then the lower deck, then the ticket id for equal labels', () => {
    expect(
      order([
        place('3', { boardingSequence: 1 }),
        place('1', { deck: 2 }),
        place('7', { itemId: 'b' }),
        place('7', { itemId: 'a' }),
        place('2'),
      ]),
    ).toEqual(['0/1/2/2', '0/1/7/a', '0/1/7/b', '0/2/1/1', '1/1/3/3']);
  });
});
