import { describe, expect, it } from 'vitest';
import { priceLeg, refuseLegResources, type LegAvailability, type LegFares } from './journey-quote.js';

// Full fares 10,000 (standard) and 15,000 (VIP); the leg covers 60% of the trip.
const fares: LegFares = { priceBase: 10_000, priceVip: 15_000, boardBp: 2_000, alightBp: 8_000 };
const seats = new Map([
  ['1', { seatClass: 'VIP' as const, taken: false }],
  ['2', { seatClass: 'STANDARD' as const, taken: false }],
  ['3', { seatClass: 'STANDARD' as const, taken: true }],
]);
const availability: LegAvailability = { freeSeats: 10, vipSeats: 4, freeVipSeats: 2, seats };

describe('priceLeg', () => {
  it('charges the leg share of the standard fare per SEAT and of the VIP fare per VIP_SEAT', () => {
    const priced = priceLeg(
      fares,
      [
        { resource_code: 'SEAT', quantity: 2, assignments: [] },
        { resource_code: 'VIP_SEAT', quantity: 1, assignments: [] },
      ],
      () => 'STANDARD',
    );
    expect(priced.unit_price).toBe(6_000);
    expect(priced.resources.map((r) => [r.unit_price, r.subtotal])).toEqual([
      [6_000, 12_000],
      [9_000, 9_000],
    ]);
    expect(priced).toMatchObject({ quantity: 3, subtotal: 21_000, assignments: [] });
  });

  it('charges the VIP fare for a SEAT whose assigned seat is VIP class, and records the class it priced', () => {
    const priced = priceLeg(
      fares,
      [{ resource_code: 'SEAT', quantity: 3, assignments: ['1', '2'] }],
      (label) => seats.get(label)!.seatClass,
    );
    expect(priced.subtotal).toBe(9_000 + 6_000 + 6_000);
    expect(priced.assignments).toEqual(['1', '2']);
    expect(priced.resources[0]!.assignment_classes).toEqual(['VIP', 'STANDARD']);
  });
});

describe('refuseLegResources', () => {
  it('offers what the bus has', () => {
    expect(
      refuseLegResources(
        2,
        fares,
        [{ resource_code: 'SEAT', quantity: 2, assignments: ['2'] }],
        availability,
      ),
    ).toBeNull();
  });

  it('refuses VIP_SEAT on a trip without a VIP fare', () => {
    const refusal = refuseLegResources(
      1,
      { ...fares, priceVip: null },
      [{ resource_code: 'VIP_SEAT', quantity: 1, assignments: [] }],
      availability,
    );
    expect(refusal).toMatchObject({ status: 400, errorCode: 'RESOURCE_NOT_OFFERED' });
  });

  it('refuses VIP_SEAT on a bus whose layout has no VIP seat, but not one whose VIP seats are all taken', () => {
    const vipSeat = [{ resource_code: 'VIP_SEAT' as const, quantity: 1, assignments: [] }];
    expect(
      refuseLegResources(1, fares, vipSeat, { ...availability, vipSeats: 0, freeVipSeats: 0 }),
    ).toMatchObject({ status: 400, errorCode: 'RESOURCE_NOT_OFFERED' });
    expect(refuseLegResources(1, fares, vipSeat, { ...availability, freeVipSeats: 0 })).toMatchObject({
      status: 409,
      errorCode: 'INSUFFICIENT_SEATS',
    });
  });

  it('refuses a label that is not on the bus, then a taken seat', () => {
    expect(
      refuseLegResources(
        1,
        fares,
        [{ resource_code: 'SEAT', quantity: 1, assignments: ['99'] }],
        availability,
      ),
    ).toMatchObject({
      status: 400,
      errorCode: 'SEAT_NOT_FOUND',
      details: { seats: ['99'] },
    });
    expect(
      refuseLegResources(
        1,
        fares,
        [{ resource_code: 'SEAT', quantity: 1, assignments: ['3'] }],
        availability,
      ),
    ).toMatchObject({
      status: 409,
      errorCode: 'SEAT_OCCUPIED',
    });
  });

  it('refuses a party larger than the free seats, and more VIP seats than are free', () => {
    expect(
      refuseLegResources(11, fares, [{ resource_code: 'SEAT', quantity: 11, assignments: [] }], availability),
    ).toMatchObject({
      status: 409,
      errorCode: 'INSUFFICIENT_SEATS',
    });
    expect(
      refuseLegResources(
        3,
        fares,
        [{ resource_code: 'VIP_SEAT', quantity: 3, assignments: [] }],
        availability,
      ),
    ).toMatchObject({
      status: 409,
      errorCode: 'INSUFFICIENT_SEATS',
    });
  });

  it('counts a VIP-class seat chosen for a SEAT against the free VIP seats, once', () => {
    // Two VIP seats are free, seat "1" among them.
    const vipSeatsFor = (resources: Parameters<typeof refuseLegResources>[2]) =>
      refuseLegResources(
        resources.reduce((sum, resource) => sum + resource.quantity, 0),
        fares,
        resources,
        availability,
      );
    expect(
      vipSeatsFor([
        { resource_code: 'SEAT', quantity: 1, assignments: ['1'] },
        { resource_code: 'VIP_SEAT', quantity: 2, assignments: [] },
      ]),
    ).toMatchObject({ status: 409, errorCode: 'INSUFFICIENT_SEATS', details: { free_vip_seats: 2 } });
    expect(
      vipSeatsFor([
        { resource_code: 'SEAT', quantity: 1, assignments: ['1'] },
        { resource_code: 'VIP_SEAT', quantity: 1, assignments: [] },
      ]),
    ).toBeNull();
    expect(vipSeatsFor([{ resource_code: 'VIP_SEAT', quantity: 2, assignments: ['1'] }])).toBeNull();
  });

  it('refuses a standard seat assigned to a VIP_SEAT on a bus with VIP seats', () => {
    expect(
      refuseLegResources(
        1,
        fares,
        [{ resource_code: 'VIP_SEAT', quantity: 1, assignments: ['2'] }],
        availability,
      ),
    ).toMatchObject({
      status: 400,
      errorCode: 'SEAT_CLASS_MISMATCH',
    });
  });
});
