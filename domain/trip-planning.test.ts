import { describe, expect, it } from 'vitest';
import { LEGACY_LAYOUT_MAX_SEATS } from './layout-templates.js';
import {
  lastDateRefusal,
  LATEST_TRIP_ARRIVAL,
  legacyLayoutDue,
  nameHasLetter,
  nameKey,
  pickupStopRefusal,
  replanRefusal,
  tripSeats,
  type TripPlanFields,
} from './trip-planning.js';

describe('nameKey', () => {
  it('matches names ignoring case, Latin accents, Arabic vowel marks, hamza seats and tatweel', () => {
    expect(nameKey('  Ḥomṣ ')).toBe(nameKey('homs'));
    expect(nameKey('Deir ez-Zôr')).toBe(nameKey('DEIR EZ-ZOR'));
    expect(nameKey('حِمْص')).toBe(nameKey('حمص'));
    expect(nameKey('إدلب')).toBe(nameKey('ادلب'));
    expect(nameKey('دمـــشق')).toBe(nameKey('دمشق'));
    expect(nameKey('Hama')).not.toBe(nameKey('Homs'));
  });
});

describe('nameHasLetter', () => {
  it('wants a letter that matching keeps: tatweel, diacritics and letters made of them alone are no name', () => {
    for (const name of ['دمشق', 'دمـــشق', 'حِمْص', 'Ḥomṣ', 'Hama 2'])
      expect(nameHasLetter(name), name).toBe(true);
    for (const name of ['\u0640\u0640', '\u0301\u0301', '\u0640\u064e\u0640', '\ufe70\ufe72', '12', '- -']) {
      expect(nameHasLetter(name), name).toBe(false);
    }
  });
});

describe('lastDateRefusal', () => {
  it('accepts trips arriving by the end of 9999-12-31 in Damascus and refuses a later one', () => {
    expect(new Date(LATEST_TRIP_ARRIVAL).toISOString()).toBe('9999-12-31T21:00:00.000Z');
    expect(lastDateRefusal([{ arrivalAt: LATEST_TRIP_ARRIVAL }])).toBeNull();
    expect(lastDateRefusal([])).toBeNull();
    const refused = lastDateRefusal([{ arrivalAt: 0 }, { arrivalAt: LATEST_TRIP_ARRIVAL + 60_000 }]);
    expect([refused?.status, refused?.code]).toEqual([400, 'TRIP_AFTER_LAST_DATE']);
  });
});

describe('pickupStopRefusal', () => {
  const stop = { id: 's', city_id: 'origin', company_id: null, kind: 'BUS_STATION', enabled: true };
  const rule = { companyId: 'mine', originCityId: 'origin' };

  it("accepts a public stop or the company's own in the origin city", () => {
    expect(pickupStopRefusal(stop, rule)).toBeNull();
    expect(pickupStopRefusal({ ...stop, company_id: 'mine' }, rule)).toBeNull();
  });

  it("refuses another company's stop, a depot, a disabled stop, none, and a stop in another city", () => {
    for (const refused of [{ company_id: 'other' }, { kind: 'DEPOT' }, { enabled: false }]) {
      expect(pickupStopRefusal({ ...stop, ...refused }, rule)?.code).toBe('PICKUP_STOP_NOT_ALLOWED');
    }
    expect(pickupStopRefusal(undefined, rule)?.code).toBe('PICKUP_STOP_NOT_ALLOWED');
    expect(pickupStopRefusal({ ...stop, city_id: 'elsewhere' }, rule)?.code).toBe('PICKUP_STOP_WRONG_CITY');
  });
});

describe('tripSeats', () => {
  const bus = { status: 'ACTIVE', legacy_seat_map: false, capacity: 0, active_seat_count: 48 };

  it('sells the seats of the active layout, or a legacy bus its capacity while it has no layout', () => {
    expect(tripSeats(bus)).toBe(48);
    expect(tripSeats({ ...bus, legacy_seat_map: true, capacity: 40, active_seat_count: null })).toBe(40);
    expect(tripSeats({ ...bus, legacy_seat_map: true, capacity: 40 })).toBe(48);
  });

  it('refuses a bus without an active layout that is not legacy, and a bus out of service', () => {
    expect(() => tripSeats({ ...bus, active_seat_count: null, capacity: 40 })).toThrow(
      expect.objectContaining({ code: 'BUS_LAYOUT_REQUIRED', status: 409 }),
    );
    expect(() => tripSeats({ ...bus, status: 'MAINTENANCE' })).toThrow(
      expect.objectContaining({ code: 'BUS_NOT_IN_SERVICE' }),
    );
  });

  it('gives a legacy bus a generated layout only while it has none and its capacity fits one', () => {
    const legacy = { ...bus, legacy_seat_map: true, capacity: 33, active_seat_count: null };
    expect(legacyLayoutDue(legacy)).toBe(true);
    expect(legacyLayoutDue({ ...legacy, active_seat_count: 48 })).toBe(false);
    expect(legacyLayoutDue({ ...legacy, legacy_seat_map: false })).toBe(false);
    // Its own layout archived (capacity 0), or more seats than a generated layout holds: it needs one drawn.
    for (const capacity of [0, LEGACY_LAYOUT_MAX_SEATS + 1]) {
      expect(legacyLayoutDue({ ...legacy, capacity })).toBe(false);
      expect(() => tripSeats({ ...legacy, capacity })).toThrow(
        expect.objectContaining({ code: 'BUS_LAYOUT_REQUIRED' }),
      );
    }
    expect(tripSeats({ ...legacy, capacity: LEGACY_LAYOUT_MAX_SEATS })).toBe(LEGACY_LAYOUT_MAX_SEATS);
  });
});

describe('replanRefusal', () => {
  const plan: TripPlanFields = {
    routeId: 'r',
    departureAt: 1000,
    arrivalAt: 2000,
    busId: 'b',
    pickupStopId: 'p',
    driverId: null,
    priceBase: 100,
    priceVip: null,
  };
  const trip = { ...plan, status: 'SCHEDULED', hasBookings: true };

  it('lets driver and fares change on a booked trip', () => {
    expect(replanRefusal(trip, { ...plan, driverId: 'd', priceBase: 200 })).toBeNull();
  });

  it("refuses a booked trip's new pickup stop or bus, naming the fields", () => {
    expect(replanRefusal(trip, { ...plan, pickupStopId: 'q', busId: 'c' })).toMatchObject({
      code: 'TRIP_HAS_BOOKINGS',
      details: { fields: ['bus_id', 'pickup_stop_id'] },
    });
    expect(replanRefusal({ ...trip, hasBookings: false }, { ...plan, pickupStopId: 'q' })).toBeNull();
  });

  it('refuses new times or route, and any change once the trip left', () => {
    expect(replanRefusal(trip, { ...plan, departureAt: 1500, arrivalAt: 2500 })?.code).toBe(
      'TRIP_TIMETABLE_FIXED',
    );
    for (const status of ['DEPARTED', 'ARRIVED', 'COMPLETED', 'CANCELLED']) {
      expect(replanRefusal({ ...trip, status }, plan)).toMatchObject({
        code: 'TRIP_NOT_EDITABLE',
        details: { status },
      });
    }
  });

  it('lets a boarding or delayed trip change its driver and nothing else, naming what else changed', () => {
    for (const status of ['BOARDING', 'DELAYED']) {
      const running = { ...trip, status };
      expect(replanRefusal(running, { ...plan, driverId: 'd' })).toBeNull();
      expect(replanRefusal({ ...running, driverId: 'd' }, plan)).toBeNull();
      expect(replanRefusal(running, { ...plan, driverId: 'd', priceBase: 200 })).toMatchObject({
        code: 'TRIP_NOT_EDITABLE',
        details: { status, fields: ['price_base'] },
      });
      // A later departure of the same length moves its arrival too: only departure_at changed.
      expect(
        replanRefusal(running, { ...plan, departureAt: 1500, arrivalAt: 2500, busId: 'c', priceVip: 5 }),
      ).toMatchObject({ details: { fields: ['departure_at', 'bus_id', 'price_vip'] } });
      expect(replanRefusal(running, { ...plan, arrivalAt: 2500, pickupStopId: 'q' })).toMatchObject({
        details: { fields: ['duration_minutes', 'pickup_stop_id'] },
      });
    }
  });
});
