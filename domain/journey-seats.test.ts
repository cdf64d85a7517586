import { describe, expect, it } from 'vitest';
import { chooseSeats, compareSeats, seatTravellers, type LegSeat } from './journey-seats.js';

const seat = (seatNumber: string, options: Partial<LegSeat> = {}): LegSeat => ({
  seatId: `s-${seatNumber}`,
  seatNumber,
  deck: 1,
  seatClass: 'STANDARD',
  free: true,
  ...options,
});

describe('chooseSeats', () => {
  const layout = [
    seat('10'),
    seat('2'),
    seat('1', { free: false }),
    seat('3'),
    seat('V1', { seatClass: 'VIP' }),
    seat('U1', { deck: 2 }),
  ];

  it('takes the lowest free seats in seat order (deck, then natural label order)', () => {
    const choice = chooseSeats(layout, [{ resourceCode: 'SEAT', quantity: 3, assignments: [] }]);
    expect(choice.seats?.map((picked) => picked.seatNumber)).toEqual(['2', '3', '10']);
  });

  it('takes the assigned seats first, then fills up', () => {
    const choice = chooseSeats(layout, [{ resourceCode: 'SEAT', quantity: 2, assignments: ['10'] }]);
    expect(choice.seats?.map((picked) => picked.seatNumber)).toEqual(['10', '2']);
  });

  it('gives a VIP_SEAT a VIP-class seat and a SEAT a standard one before any VIP seat', () => {
    const vip = chooseSeats(layout, [{ resourceCode: 'VIP_SEAT', quantity: 1, assignments: [] }]);
    expect(vip.seats?.map((picked) => picked.seatNumber)).toEqual(['V1']);
    const standard = chooseSeats(layout, [{ resourceCode: 'SEAT', quantity: 5, assignments: [] }]);
    expect(standard.seats?.map((picked) => picked.seatNumber)).toEqual(['2', '3', '10', 'U1', 'V1']);
  });

  it('never gives a VIP_SEAT a standard seat, even on a layout without VIP seats', () => {
    const standardOnly = layout.filter((seat) => seat.seatClass === 'STANDARD');
    expect(chooseSeats(standardOnly, [{ resourceCode: 'VIP_SEAT', quantity: 1, assignments: [] }])).toEqual({
      unavailable: [],
    });
    expect(chooseSeats(layout, [{ resourceCode: 'VIP_SEAT', quantity: 1, assignments: ['2'] }])).toEqual({
      unavailable: ['2'],
    });
  });

  it('refuses with the taken labels, or an empty list when too few seats are free', () => {
    expect(chooseSeats(layout, [{ resourceCode: 'SEAT', quantity: 1, assignments: ['1'] }])).toEqual({
      unavailable: ['1'],
    });
    expect(chooseSeats(layout, [{ resourceCode: 'SEAT', quantity: 1, assignments: ['99'] }])).toEqual({
      unavailable: ['99'],
    });
    expect(chooseSeats(layout, [{ resourceCode: 'SEAT', quantity: 6, assignments: [] }])).toEqual({
      unavailable: [],
    });
    expect(chooseSeats(layout, [{ resourceCode: 'VIP_SEAT', quantity: 2, assignments: [] }])).toEqual({
      unavailable: [],
    });
  });

  it('refuses an assigned seat whose class is no longer the one the quote priced it at, either way', () => {
    const quoted = (label: string, seatClass: 'STANDARD' | 'VIP') =>
      chooseSeats(layout, [
        { resourceCode: 'SEAT', quantity: 1, assignments: [label], assignedClasses: [seatClass] },
      ]);
    expect(quoted('V1', 'STANDARD')).toEqual({ unavailable: ['V1'] });
    expect(quoted('2', 'VIP')).toEqual({ unavailable: ['2'] });
    expect(quoted('V1', 'VIP').seats?.map((picked) => picked.seatNumber)).toEqual(['V1']);
    // A quote stored before the classes were recorded is held as it was priced.
    const unrecorded = chooseSeats(layout, [{ resourceCode: 'SEAT', quantity: 1, assignments: ['V1'] }]);
    expect(unrecorded.seats?.map((picked) => picked.seatNumber)).toEqual(['V1']);
  });
});

describe('seatTravellers', () => {
  it('seats traveller i in the i-th seat in seat order', () => {
    const pairs = seatTravellers([seat('12'), seat('3')], ['Ali', 'Rana']);
    expect(pairs?.map(({ seat: picked, traveller }) => [traveller, picked.seatNumber])).toEqual([
      ['Ali', '3'],
      ['Rana', '12'],
    ]);
    expect(seatTravellers([seat('1')], ['Ali', 'Rana'])).toBeNull();
    expect(
      [seat('A10'), seat('A2'), seat('B1', { deck: 2 })].sort(compareSeats).map((s) => s.seatNumber),
    ).toEqual(['A2', 'A10', 'B1']);
  });
});
